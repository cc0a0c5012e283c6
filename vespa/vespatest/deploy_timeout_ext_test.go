package vespatest_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/vespatest"
)

// The deploy timeout follows Vespa's config server (configserver
// http/HttpHandler.getRequestTimeout, session/SessionPreparer.checkTimeout,
// deploy/Deployment.activate, http/HttpErrorResponse.requestTimeout): the
// timeout parameter is Double.parseDouble seconds, defaulting to the
// ZooKeeper barrier timeout (360 s) when absent or unparsable; the budget is
// checked after each prepare step and before activation, and a step that
// ends with none left is 408 REQUEST_TIMEOUT; the session is deleted and
// nothing is activated.

func prepareAndActivate(t *testing.T, s *vespatest.Server, query string) (int, string) {
	t.Helper()
	return do(t, http.DefaultClient, "POST", s.ConfigServerURL()+"/application/v2/tenant/default/prepareandactivate"+query, string(zipPackage(t)))
}

func activeApplications(t *testing.T, s *vespatest.Server) string {
	t.Helper()
	_, body := do(t, http.DefaultClient, "GET", s.ConfigServerURL()+"/application/v2/tenant/default/application", "")
	return body
}

func TestConfigServer_slowPrepareTimesOut(t *testing.T) {
	s := vespatest.NewTestServer(t)
	s.ScriptFaults(vespatest.OpDeploy, vespatest.FaultLatency(150*time.Millisecond))
	start := time.Now()
	st, body := prepareAndActivate(t, s, "?timeout=1e-1") // 0.1 s: a decimal number, not the query API's "1e-1" (1 s)
	took := time.Since(start)
	want := regexp.MustCompile(`^\{"error-code":"REQUEST_TIMEOUT","message":"prepare timed out \[preprocess: \d+ ms, build models: \d+ ms, total: \d+ ms\] after build models step \(timeout PT0\.1S\): default\.default\.default"\}$`)
	if st != http.StatusRequestTimeout || !want.MatchString(body) {
		t.Fatalf("slow prepare: %d %s", st, body)
	}
	if took < 150*time.Millisecond {
		t.Errorf("answered after %v: Vespa checks the budget after the step, so the whole latency passes", took)
	}
	if got := activeApplications(t, s); got != "[]" {
		t.Errorf("a timed-out deploy activated %s", got)
	}
	// The failed prepare deleted its session (2), as Deployment.prepare does.
	if st, body := do(t, http.DefaultClient, "PUT", s.ConfigServerURL()+"/application/v2/tenant/default/prepareandactivate/2", ""); st != http.StatusNotFound {
		t.Errorf("session of the timed-out deploy: %d %s", st, body)
	}
}

func TestConfigServer_timeoutNotParsedIsDefault(t *testing.T) {
	s := vespatest.NewTestServer(t)
	for _, q := range []string{"?timeout=1s", "?timeout=", "?timeout=soon", ""} {
		s.ScriptFaults(vespatest.OpDeploy, vespatest.FaultLatency(20*time.Millisecond))
		if st, body := prepareAndActivate(t, s, q); st != http.StatusOK || !strings.Contains(body, `"activated":true`) {
			t.Errorf("%q (Vespa's default of 360 s applies): %d %s", q, st, body)
		}
	}
}

func TestConfigServer_noTimeLeft(t *testing.T) {
	s := vespatest.NewTestServer(t)
	for _, q := range []string{"?timeout=0", "?timeout=-5", "?timeout=NaN", "?timeout=0.0009"} {
		st, body := prepareAndActivate(t, s, q)
		if st != http.StatusRequestTimeout || !strings.Contains(body, `after preprocess step (timeout PT`) || !strings.HasSuffix(body, `): default.default.default"}`) {
			t.Errorf("%q: %d %s", q, st, body)
		}
	}
	if got := activeApplications(t, s); got != "[]" {
		t.Errorf("deploys with no time activated %s", got)
	}
	// Activation of a prepared session checks its own budget (default 2 minutes) first.
	base := s.ConfigServerURL() + "/application/v2/tenant/default/"
	if st, body := prepareAndActivate(t, s, "?timeout=30"); st != http.StatusOK {
		t.Fatalf("deploy: %d %s", st, body)
	}
	send(t, http.DefaultClient, "POST", base+"session", zipPackage(t), "application/zip")
	st, body := do(t, http.DefaultClient, "PUT", base+"session/7/prepared?timeout=0", "")
	if st != http.StatusRequestTimeout || !strings.Contains(body, "after preprocess step (timeout PT0S)") {
		t.Errorf("prepare with timeout=0: %d %s", st, body)
	}
	send(t, http.DefaultClient, "POST", base+"session", zipPackage(t), "application/zip")
	send(t, http.DefaultClient, "PUT", base+"session/8/prepared", nil, "")
	for _, path := range []string{"session/8/active?timeout=0", "prepareandactivate/8?timeout=-1"} {
		st, body := do(t, http.DefaultClient, "PUT", base+path, "")
		if want := `{"error-code":"REQUEST_TIMEOUT","message":"Timeout exceeded when trying to activate 'default.default.default'"}`; st != http.StatusRequestTimeout || body != want {
			t.Errorf("PUT %s: %d %s, want 408 %s", path, st, body, want)
		}
	}
	if st, body := do(t, http.DefaultClient, "PUT", base+"session/8/active?timeout=bad", ""); st != http.StatusOK {
		t.Errorf("activation with an unparsable timeout (default 2 minutes): %d %s", st, body)
	}
}

// A multipart deploy carries its timeout in the prepareParams part, read by
// PrepareParams.getTimeout as a whole number of seconds (Slime's asLong: a
// string is 0).
func TestConfigServer_multipartTimeout(t *testing.T) {
	s := vespatest.NewTestServer(t)
	for params, wantStatus := range map[string]int{`{"timeout":"30"}`: http.StatusRequestTimeout, `{"timeout":30}`: http.StatusOK, `{}`: http.StatusOK} {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		pw, _ := mw.CreateFormFile("prepareParams", "prepareParams.json")
		pw.Write([]byte(params))
		aw, _ := mw.CreateFormFile("applicationPackage", "app.zip")
		aw.Write(zipPackage(t))
		mw.Close()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.ConfigServerURL()+"/application/v2/tenant/default/prepareandactivate?timeout=0", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != wantStatus {
			t.Errorf("prepareParams %s (the query's timeout=0 is not read): %d, want %d", params, resp.StatusCode, wantStatus)
		}
	}
}

// Faults on every operation leave deploys alone: OpDeploy must be named.
func TestConfigServer_opAnySparesDeploys(t *testing.T) {
	s := vespatest.NewTestServer(t)
	s.ScriptFaults(vespatest.OpAny, vespatest.FaultServerError())
	if err := s.AddFault(vespatest.FaultRule{Rate: 1, Fault: vespatest.FaultOverload()}); err != nil {
		t.Fatal(err)
	}
	if st, body := prepareAndActivate(t, s, ""); st != http.StatusOK {
		t.Errorf("deploy under OpAny faults: %d %s", st, body)
	}
	s.ClearFaults()
	s.ScriptFaults(vespatest.OpDeploy, vespatest.Fault{Status: http.StatusConflict, Message: "Timed out waiting for the application lock"})
	if st, body := prepareAndActivate(t, s, ""); st != http.StatusConflict || body != `{"error-code":"APPLICATION_LOCK_FAILURE","message":"Timed out waiting for the application lock"}` {
		t.Errorf("scripted 409: %d %s", st, body)
	}
}
