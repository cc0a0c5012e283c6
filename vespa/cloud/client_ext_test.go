package cloud_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/retries"
)

func TestClient_DeployAndFollowRun(t *testing.T) {
	key := newKey(t)
	srv, c := newCloud(t, key)
	ctx := t.Context()
	run, err := c.Deploy(ctx, devZone, certPackage(t), cloud.DeployOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if run.ID != 1 || !strings.Contains(run.Message, "run 1 of dev-aws-us-east-1c") {
		t.Errorf("run = %+v", run)
	}
	var got []cloud.LogEntry
	res, err := c.FollowRun(ctx, run, func(e cloud.LogEntry) { got = append(got, e) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != cloud.RunStatusSuccess || res.Steps["installReal"] != "succeeded" {
		t.Errorf("result = %+v", res)
	}
	if len(got) != 7 || got[0].Step != "deployReal" || got[len(got)-1].Message != "Installation succeeded!" {
		t.Errorf("log = %+v", got)
	}
	if !slices.IsSortedFunc(got, func(a, b cloud.LogEntry) int { return a.At.Compare(b.At) }) {
		t.Error("log entries are not in time order")
	}
	// Every entry once: no duplicates across polls.
	seen := map[string]bool{}
	for _, e := range got {
		if seen[e.Message] {
			t.Errorf("entry %q handed over twice", e.Message)
		}
		seen[e.Message] = true
	}
	d, ok := srv.Deployment("scoober", "albums", "default", "dev", "aws-us-east-1c")
	if !ok || !slices.Contains(d.Files, "security/clients.pem") || !slices.Contains(d.Files, "schemas/music.sd") {
		t.Errorf("deployment = %+v, %v", d, ok)
	}
	// Every request was signed, and the signature verified.
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("only %d requests", len(reqs))
	}
	polls := 0
	for _, r := range reqs {
		if !r.Signed || r.KeyID != "scoober:albums:default" || r.Status != http.StatusOK {
			t.Errorf("request %+v not signed and verified", r)
		}
		if strings.Contains(r.Path, "/run/") {
			polls++
			if polls == 1 && r.RawQuery != "after=-1" {
				t.Errorf("first poll query %q, want after=-1", r.RawQuery)
			}
		}
	}
}

func TestClient_DeployPinnedVersionIsMultipart(t *testing.T) {
	srv, c := newCloud(t, newKey(t))
	if _, err := c.Deploy(t.Context(), devZone, certPackage(t), cloud.DeployOptions{VespaVersion: "8.400.12"}); err != nil {
		t.Fatal(err)
	}
	d, ok := srv.Deployment("scoober", "albums", "default", "dev", "aws-us-east-1c")
	if !ok || d.VespaVersion != "8.400.12" {
		t.Errorf("deployment = %+v, want version 8.400.12", d)
	}
}

func TestClient_DeployRefusals(t *testing.T) {
	srv, c := newCloud(t, newKey(t))
	ctx := t.Context()
	noCert, err := deploy.NewPackageFS(testutil.MapFS("services.xml", "<services/>"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Deploy(ctx, devZone, noCert, cloud.DeployOptions{}); err == nil || !strings.Contains(err.Error(), "security/clients.pem") {
		t.Errorf("deploy without certificate: %v", err)
	}
	if _, err := c.Deploy(ctx, cloud.Zone{Environment: "prod", Region: "aws-us-east-1c"}, certPackage(t), cloud.DeployOptions{}); err == nil {
		t.Error("deploy to prod succeeded")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent for refused deployments", n)
	}
	if _, err := c.Deploy(ctx, devZone, noCert, cloud.DeployOptions{SkipCertificateCheck: true}); err != nil {
		t.Errorf("deploy with SkipCertificateCheck: %v", err)
	}
}

func TestClient_RunStatusMapping(t *testing.T) {
	for _, c := range []struct {
		status cloud.RunStatus
		step   string
	}{
		{cloud.RunStatusDeploymentFailed, "deployReal"},
		{cloud.RunStatusOutOfCapacity, "deployReal"},
		{cloud.RunStatusEndpointCertificateTimeout, "deployReal"},
		{cloud.RunStatusNodeAllocationFailure, "deployReal"},
		{cloud.RunStatusInvalidApplication, "deployReal"},
		{cloud.RunStatusInstallationFailed, "installReal"},
		{cloud.RunStatusTestFailure, "installReal"},
		{cloud.RunStatusError, "installReal"},
	} {
		t.Run(string(c.status), func(t *testing.T) {
			_, cl := newCloud(t, newKey(t), cloudtest.WithRunStatus(string(c.status)))
			run, err := cl.Deploy(t.Context(), devZone, certPackage(t), cloud.DeployOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := cl.FollowRun(t.Context(), run, nil)
			var re *cloud.RunError
			if res != nil || !errors.As(err, &re) || !errors.Is(err, cloud.ErrRunFailed) {
				t.Fatalf("FollowRun = %v, %v; want a *RunError", res, err)
			}
			if re.Status != c.status || re.Step != c.step || len(re.Messages) == 0 {
				t.Errorf("RunError = %+v", re)
			}
			if !strings.Contains(err.Error(), string(c.status)) {
				t.Errorf("error %q does not name the status", err)
			}
		})
	}
	t.Run("noTests is a success", func(t *testing.T) {
		_, cl := newCloud(t, newKey(t), cloudtest.WithRunStatus("noTests"))
		run, err := cl.Deploy(t.Context(), devZone, certPackage(t), cloud.DeployOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := cl.FollowRun(t.Context(), run, nil); err != nil || res.Status != cloud.RunStatusNoTests {
			t.Errorf("FollowRun = %+v, %v", res, err)
		}
	})
}

func TestClient_EndpointsAndDelete(t *testing.T) {
	srv, c := newCloud(t, newKey(t), cloudtest.WithEndpointURLs("https://mtls.example/", "https://token.example/"))
	ctx := t.Context()
	if _, err := c.Endpoints(ctx, devZone, cloud.EndpointFilter{}); !errors.Is(err, cloud.ErrNotFound) {
		t.Errorf("endpoints before deploying: %v, want ErrNotFound", err)
	}
	if _, err := c.Deploy(ctx, devZone, certPackage(t), cloud.DeployOptions{}); err != nil {
		t.Fatal(err)
	}
	all, err := c.Endpoints(ctx, devZone, cloud.EndpointFilter{})
	if err != nil || len(all) != 2 {
		t.Fatalf("endpoints = %+v, %v", all, err)
	}
	tok, err := c.Endpoints(ctx, devZone, cloud.EndpointFilter{AuthMethod: cloud.AuthToken, Cluster: "default"})
	if err != nil || len(tok) != 1 || tok[0].URL != "https://token.example/" || tok[0].Scope != "zone" {
		t.Errorf("token endpoints = %+v, %v", tok, err)
	}
	none, err := c.Endpoints(ctx, devZone, cloud.EndpointFilter{Cluster: "other"})
	if err != nil || len(none) != 0 {
		t.Errorf("endpoints of another cluster = %+v, %v", none, err)
	}
	msg, err := c.Delete(ctx, devZone)
	if err != nil || msg != "Deactivated scoober.albums.default in dev.aws-us-east-1c" {
		t.Errorf("Delete = %q, %v", msg, err)
	}
	if _, ok := srv.Deployment("scoober", "albums", "default", "dev", "aws-us-east-1c"); ok {
		t.Error("deployment still there after Delete")
	}
	if _, err := c.Delete(ctx, cloud.Zone{Environment: "prod", Region: "aws-us-east-1c"}); err == nil {
		t.Error("Delete of a prod zone succeeded")
	}
}

func TestClient_SubmitAndWaitForBuild(t *testing.T) {
	srv, c := newCloud(t, newKey(t))
	ctx := t.Context()
	sub, err := c.Submit(ctx, certPackage(t), certPackage(t), cloud.SubmitOptions{Commit: "d00d", AuthorEmail: "a@b"})
	if err != nil || sub.Build != 1 {
		t.Fatalf("Submit = %+v, %v", sub, err)
	}
	var seen []string
	st, err := c.WaitForBuild(ctx, sub.Build, func(s *cloud.BuildStatus) { seen = append(seen, s.Status) })
	if err != nil || !st.Deployed || st.Status != "done" {
		t.Errorf("WaitForBuild = %+v, %v", st, err)
	}
	if len(seen) == 0 || seen[len(seen)-1] != "done" {
		t.Errorf("statuses seen: %q", seen)
	}
	srv.SetRunStatus("deploymentFailed")
	sub, err = c.Submit(ctx, certPackage(t), nil, cloud.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.WaitForBuild(ctx, sub.Build, nil)
	var be *cloud.BuildError
	if !errors.As(err, &be) || !errors.Is(err, cloud.ErrBuildFailed) || be.Job == nil || be.Job.RunStatus != "deploymentFailed" {
		t.Errorf("WaitForBuild of a failing build: %v", err)
	}
	if _, err := c.BuildStatus(ctx, 99); !errors.Is(err, cloud.ErrNotFound) {
		t.Errorf("BuildStatus of an unknown build: %v", err)
	}
}

func TestClient_CreateToken(t *testing.T) {
	_, c := newCloud(t, newKey(t))
	tok, err := c.CreateToken(t.Context(), "my-token", 0)
	if err != nil || tok.ID != "my-token" || !strings.HasPrefix(tok.Value, "vespa_cloud_") {
		t.Fatalf("CreateToken = %+v, %v", tok, err)
	}
	if strings.Contains(tok.String(), tok.Value) {
		t.Error("Token.String shows the secret")
	}
}

func TestClient_AccessToken(t *testing.T) {
	srv := cloudtest.NewTestServer(t, cloudtest.WithAccessToken("s3cret"))
	good, err := cloud.NewClient(testApp, cloud.WithEndpoint(srv.URL()), cloud.WithAccessToken("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := good.CreateToken(t.Context(), "t", 0); err != nil {
		t.Errorf("with the right access token: %v", err)
	}
	bad, _ := cloud.NewClient(testApp, cloud.WithEndpoint(srv.URL()), cloud.WithAccessToken("wrong"))
	_, err = bad.CreateToken(t.Context(), "t", 0)
	if !errors.Is(err, cloud.ErrUnauthorized) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("with a wrong access token: %v", err)
	}
}

func TestClient_Signing(t *testing.T) {
	key := newKey(t)
	t.Run("wrong key is rejected and not retried", func(t *testing.T) {
		srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key))
		c, _ := cloud.NewClient(testApp, cloud.WithEndpoint(srv.URL()), cloud.WithAPIKey(newKey(t)))
		_, err := c.Endpoints(t.Context(), devZone, cloud.EndpointFilter{})
		var e *cloud.Error
		if !errors.As(err, &e) || e.Status != http.StatusUnauthorized || e.Message != "Access denied" {
			t.Errorf("wrong key: %v", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d attempts, want 1: a 401 is final", n)
		}
	})
	for _, skew := range []time.Duration{-6 * time.Minute, 6 * time.Minute} {
		t.Run("timestamp off by "+skew.String()+" is rejected", func(t *testing.T) {
			srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key))
			c, _ := cloud.NewClient(testApp, cloud.WithEndpoint(srv.URL()), cloud.WithAPIKey(key),
				cloud.WithClock(func() time.Time { return time.Now().Add(skew) }))
			if _, err := c.Endpoints(t.Context(), devZone, cloud.EndpointFilter{}); !errors.Is(err, cloud.ErrUnauthorized) {
				t.Errorf("stale timestamp: %v, want ErrUnauthorized", err)
			}
		})
	}
	t.Run("timestamp within 5 minutes is accepted", func(t *testing.T) {
		srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key))
		c, _ := cloud.NewClient(testApp, cloud.WithEndpoint(srv.URL()), cloud.WithAPIKey(key),
			cloud.WithClock(func() time.Time { return time.Now().Add(-4 * time.Minute) }))
		if _, err := c.Endpoints(t.Context(), devZone, cloud.EndpointFilter{}); !errors.Is(err, cloud.ErrNotFound) {
			t.Errorf("4 minutes of skew: %v, want the 404 of no deployment", err)
		}
	})
}

func TestClient_RetriesInjected5xx(t *testing.T) {
	key := newKey(t)
	srv, _ := newCloud(t, key)
	// Retries without waits, over a real connection; the waits themselves are
	// tested under synctest (TestClient_RetryWaitsUnderSynctest).
	c, err := cloud.NewClient(testApp, cloud.WithEndpoint(srv.URL()), cloud.WithAPIKey(key),
		cloud.WithRetryPolicy(retries.ControlPlane.WithWait(retries.WaitNone())))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Deploy(t.Context(), devZone, certPackage(t), cloud.DeployOptions{}); err != nil {
		t.Fatal(err)
	}
	srv.FailNext(2, http.StatusServiceUnavailable)
	before := len(srv.Requests())
	eps, err := c.Endpoints(t.Context(), devZone, cloud.EndpointFilter{})
	if err != nil || len(eps) == 0 {
		t.Fatalf("after two 503s: %v, %v", eps, err)
	}
	reqs := srv.Requests()[before:]
	if len(reqs) != 3 || reqs[0].Status != 503 || reqs[1].Status != 503 || reqs[2].Status != 200 || !reqs[2].Signed {
		t.Errorf("attempts = %+v", reqs)
	}
}

func TestNewClient_Options(t *testing.T) {
	key := newKey(t)
	for name, opts := range map[string][]cloud.Option{
		"no auth":         nil,
		"two auths":       {cloud.WithAPIKey(key), cloud.WithAccessToken("x")},
		"bad key":         {cloud.WithAPIKey([]byte("nope"))},
		"missing file":    {cloud.WithAPIKeyFile("/nonexistent/key.pem")},
		"bad endpoint":    {cloud.WithAccessToken("x"), cloud.WithEndpoint("ftp://x")},
		"zero poll":       {cloud.WithAccessToken("x"), cloud.WithPollInterval(0)},
		"nil http client": {cloud.WithAccessToken("x"), cloud.WithHTTPClient(nil)},
	} {
		if _, err := cloud.NewClient(testApp, opts...); err == nil {
			t.Errorf("%s: NewClient succeeded", name)
		} else if strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Errorf("%s: error shows key material: %v", name, err)
		}
	}
	if _, err := cloud.NewClient(cloud.ApplicationID{Tenant: "Bad Name", Application: "a"}, cloud.WithAccessToken("x")); err == nil {
		t.Error("NewClient accepted an invalid tenant")
	}
}

func TestFollowRun_UnknownRunIsFinal(t *testing.T) {
	_, c := newCloud(t, newKey(t))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := c.FollowRun(ctx, &cloud.Run{ID: 7, Zone: devZone}, nil)
	if !errors.Is(err, cloud.ErrNotFound) {
		t.Errorf("FollowRun of an unknown run: %v, want ErrNotFound at once", err)
	}
}
