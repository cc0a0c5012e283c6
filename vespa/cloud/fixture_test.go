package cloud

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/deploy"
)

func fixtureClient(t *testing.T, app ApplicationID, url string) *Client {
	t.Helper()
	key, _ := GenerateAPIKey()
	c, err := NewClient(app, WithEndpoint(url), WithAPIKey(key))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testPackage(t *testing.T) *deploy.Package {
	t.Helper()
	p, err := deploy.NewPackageFS(fstest.MapFS{"services.xml": {Data: []byte("<services/>")}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func checkRequest(t *testing.T, f testutil.Fixture, got *http.Request) {
	t.Helper()
	if got.Method != f.Request.Method || got.URL.Path != f.Request.Path {
		t.Errorf("sent %s %s, fixture %s %s", got.Method, got.URL.Path, f.Request.Method, f.Request.Path)
	}
}

func TestFixtures_Cloud(t *testing.T) {
	fx := testutil.LoadFixtures(t, "cloud.json")
	ctx := t.Context()

	t.Run("deploy", func(t *testing.T) {
		f := fx["cloud-deploy-dev-accepted"]
		var got http.Request
		c := fixtureClient(t, ApplicationID{"tenant1", "application1", "otheruser"}, testutil.Replay(t, f, &got).URL)
		run, err := c.Deploy(ctx, Zone{"dev", "us-east-1"}, testPackage(t), DeployOptions{SkipCertificateCheck: true})
		if err != nil || run.ID != 1 || !strings.HasPrefix(run.Message, "Deployment started in run 1") {
			t.Fatalf("Deploy = %+v, %v", run, err)
		}
		checkRequest(t, f, &got)
		// The fixture's request is multipart, with part applicationZip.
		if ct := got.Header.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/form-data; boundary=") {
			t.Errorf("Content-Type %q, want the fixture's multipart/form-data", ct)
		}
	})

	t.Run("run log paging", func(t *testing.T) {
		first, err := decodeRunDetails(fx["cloud-run-status-running-with-log"].Body())
		if err != nil {
			t.Fatal(err)
		}
		if !first.Active || first.Status != RunStatusRunning || first.LastID != 8 || len(first.Log) != 9 {
			t.Errorf("first part: active %v status %s lastId %d, %d entries", first.Active, first.Status, first.LastID, len(first.Log))
		}
		// Entries at 0 keep their step order; the copyVespaLogs entry (at a
		// later time) comes last.
		if first.Log[0].Step != "deployReal" || first.Log[4].Step != "installReal" || first.Log[8].Step != "copyVespaLogs" {
			t.Errorf("order: %+v", first.Log)
		}
		if first.Steps["installReal"] != "unfinished" {
			t.Errorf("steps %v", first.Steps)
		}
		f := fx["cloud-run-status-success-after"]
		var got http.Request
		c := fixtureClient(t, ApplicationID{"tenant", "application", "default"}, testutil.Replay(t, f, &got).URL)
		d, err := c.RunDetails(ctx, Zone{"dev", "us-east-1"}, 1, 8)
		if err != nil {
			t.Fatal(err)
		}
		checkRequest(t, f, &got)
		if got.URL.RawQuery != f.Request.RawQuery {
			t.Errorf("query %q, fixture %q", got.URL.RawQuery, f.Request.RawQuery)
		}
		if d.Active || !d.Status.Succeeded() || d.LastID != 12 || len(d.Log) != 4 || d.Log[3].Message != "Installation succeeded!" {
			t.Errorf("second part: %+v", d)
		}
	})

	t.Run("endpoints", func(t *testing.T) {
		f := fx["cloud-deployment-endpoints"]
		var got http.Request
		c := fixtureClient(t, ApplicationID{"scoober", "albums", "default"}, testutil.Replay(t, f, &got).URL)
		eps, err := c.Endpoints(ctx, Zone{"prod", "aws-us-east-1c"}, EndpointFilter{AuthMethod: AuthMTLS})
		if err != nil {
			t.Fatal(err)
		}
		checkRequest(t, f, &got)
		if len(eps) != 1 || eps[0].URL != "https://albums.scoober.aws-us-east-1c.public.vespa.oath.cloud/" || eps[0].Scope != "zone" || eps[0].Cluster != "default" {
			t.Errorf("endpoints %+v (an endpoint without authMethod is mtls)", eps)
		}
	})

	t.Run("delete", func(t *testing.T) {
		f := fx["cloud-deactivate-dev"]
		var got http.Request
		c := fixtureClient(t, ApplicationID{"tenant1", "application1", "otheruser"}, testutil.Replay(t, f, &got).URL)
		msg, err := c.Delete(ctx, Zone{"dev", "us-east-1"})
		if err != nil || msg != "Deactivated tenant1.application1.otheruser in dev.us-east-1" {
			t.Errorf("Delete = %q, %v", msg, err)
		}
		checkRequest(t, f, &got)
	})

	t.Run("access denied", func(t *testing.T) {
		f := fx["cloud-access-denied-403"]
		var got http.Request
		c := fixtureClient(t, ApplicationID{"tenant1", "application1", "otheruser"}, testutil.Replay(t, f, &got).URL)
		_, err := c.Delete(ctx, Zone{"dev", "us-east-1"})
		var e *Error
		if !errors.As(err, &e) || e.Status != 403 || e.Message != "Access denied" || !errors.Is(err, ErrUnauthorized) {
			t.Errorf("Delete = %v", err)
		}
	})

	t.Run("submit", func(t *testing.T) {
		f := fx["cloud-submit-accepted"]
		var got http.Request
		c := fixtureClient(t, ApplicationID{"tenant1", "application1", "instance1"}, testutil.Replay(t, f, &got).URL)
		s, err := c.Submit(ctx, testPackage(t), testPackage(t), SubmitOptions{Commit: "d00d"})
		if err != nil || s.Build != 0 || !strings.HasPrefix(s.Message, "Application package version: 1.0.43-d00d") {
			t.Errorf("Submit = %+v, %v", s, err)
		}
		if got.URL.Path != "/application/v4/tenant/tenant1/application/application1/submit" {
			t.Errorf("path %s (submit is per application, not instance)", got.URL.Path)
		}
	})

	t.Run("submit hash mismatch", func(t *testing.T) {
		f := fx["cloud-submit-hash-mismatch-400"]
		var got http.Request
		c := fixtureClient(t, ApplicationID{"tenant1", "application1", "instance1"}, testutil.Replay(t, f, &got).URL)
		_, err := c.Submit(ctx, testPackage(t), nil, SubmitOptions{})
		var e *Error
		if !errors.As(err, &e) || e.Code != "BAD_REQUEST" || e.Message != "Value of X-Content-Hash header does not match computed content hash" {
			t.Errorf("Submit = %v", err)
		}
	})
}
