package deploy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/deploy"
)

// fakeConfigServer is a minimal config server: prepareandactivate,
// serviceconverge converging after convergeAfter polls, and a container
// health that turns "up" after upAfter polls.
type fakeConfigServer struct {
	mu            sync.Mutex
	convergeAfter int
	upAfter       int
	polls, health int
	zips          [][]byte
	queries       []string
	deployReply   string
	deployStatus  int
}

func (f *fakeConfigServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/application/v2/tenant/default/prepareandactivate":
		body, _ := io.ReadAll(r.Body)
		f.zips = append(f.zips, body)
		f.queries = append(f.queries, r.URL.RawQuery)
		if r.Header.Get("Content-Type") != "application/zip" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error-code":"BAD_REQUEST","message":"want application/zip"}`)
			return
		}
		status, reply := f.deployStatus, f.deployReply
		if status == 0 {
			status = 200
		}
		if reply == "" {
			reply = `{"log":[{"time":1,"level":"WARNING","message":"careful"}],"tenant":"default","session-id":"3","activated":true,"url":"http://x","message":"Session 3 for tenant 'default' prepared and activated.","configChangeActions":{"restart":[],"refeed":[],"reindex":[]}}`
		}
		w.WriteHeader(status)
		io.WriteString(w, reply)
	case strings.HasSuffix(r.URL.Path, "/serviceconverge"):
		f.polls++
		gen := 2
		if f.polls > f.convergeAfter {
			gen = 3
		}
		err := json.NewEncoder(w).Encode(map[string]any{
			"services":          []any{map[string]any{"clusterName": "default", "host": "vespa", "port": 8080, "type": "container", "currentGeneration": gen}},
			"currentGeneration": gen, "wantedGeneration": 3, "converged": gen == 3,
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	case r.URL.Path == "/state/v1/health":
		f.health++
		code := "initializing"
		if f.health > f.upAfter {
			code = "up"
		}
		io.WriteString(w, `{"time":1,"status":{"code":"`+code+`"}}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error-code":"NOT_FOUND","message":"no"}`)
	}
}

func newConfigServer(t *testing.T, h http.Handler) *deploy.ConfigServer {
	t.Helper()
	cs, err := deploy.NewConfigServer("http://localhost:19071", deploy.WithHTTPClient(&http.Client{Transport: testutil.HandlerTransport{Handler: h}}))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// serveConfigServer serves h on a loopback listener for the rest of the test
// and returns a client of it.
func serveConfigServer(t *testing.T, h http.Handler) *deploy.ConfigServer {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cs, err := deploy.NewConfigServer(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestConfigServer_DeployAndWait(t *testing.T) {
	f := &fakeConfigServer{convergeAfter: 3, upAfter: 2}
	synctest.Test(t, func(t *testing.T) {
		cs := newConfigServer(t, f)
		pkg := appPackage(t)
		start := time.Now()
		s, err := cs.DeployAndWait(t.Context(), pkg, deploy.Params{Application: "music", Instance: "i1"})
		if err != nil {
			t.Fatal(err)
		}
		if s.ID != 3 || !s.Activated || len(s.Log) != 1 || s.Log[0].Level != "WARNING" || s.Application != "music" {
			t.Errorf("session = %+v", s)
		}
		// 4 convergence polls and 3 health polls, 2 s apart.
		if f.polls != 4 || f.health != 3 || time.Since(start) != 5*deploy.DefaultPollInterval {
			t.Errorf("polls = %d, health = %d, took %v", f.polls, f.health, time.Since(start))
		}
		var want strings.Builder
		if err := pkg.WriteZip(&want); err != nil {
			t.Fatal(err)
		}
		if len(f.zips) != 1 || string(f.zips[0]) != want.String() {
			t.Error("the config server did not get the package's zip")
		}
		if f.queries[0] != "applicationName=music&instance=i1" {
			t.Errorf("query = %q", f.queries[0])
		}
	})
}

func TestConfigServer_WaitBoundedByDeadline(t *testing.T) {
	f := &fakeConfigServer{convergeAfter: 1 << 30}
	synctest.Test(t, func(t *testing.T) {
		cs := newConfigServer(t, f)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		start := time.Now()
		_, err := cs.WaitForConvergence(ctx, &deploy.Session{ID: 3})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Minute {
			t.Errorf("WaitForConvergence = %v after %v", err, time.Since(start))
		}
		if f.polls != 30 {
			t.Errorf("%d polls in a minute, want 30", f.polls)
		}
	})
}

func TestConfigServer_DeployErrors(t *testing.T) {
	t.Run("not activated", func(t *testing.T) {
		f := &fakeConfigServer{deployReply: `{"log":[],"message":"Session 3 for tenant 'test' prepared, but activation failed: host still booting","session-id":"3","activated":false,"tenant":"test"}`}
		s, err := newConfigServer(t, f).Deploy(t.Context(), appPackage(t), deploy.Params{})
		if !errors.Is(err, deploy.ErrNotActivated) || !strings.Contains(err.Error(), "host still booting") || s == nil || s.ID != 3 {
			t.Errorf("Deploy = %+v, %v", s, err)
		}
	})
	t.Run("invalid package", func(t *testing.T) {
		f := &fakeConfigServer{deployStatus: 400, deployReply: `{"error-code":"INVALID_APPLICATION_PACKAGE","message":"schema music: bad field"}`}
		_, err := newConfigServer(t, f).Deploy(t.Context(), appPackage(t), deploy.Params{})
		var e *deploy.Error
		if !errors.As(err, &e) || e.Code != "INVALID_APPLICATION_PACKAGE" || e.Message != "schema music: bad field" || !errors.Is(err, deploy.ErrBadRequest) {
			t.Errorf("Deploy = %v", err)
		}
		if len(f.zips) != 1 {
			t.Errorf("%d attempts, want 1: a 400 is final", len(f.zips))
		}
	})
	t.Run("a 5xx is not retried: the upload is sent once", func(t *testing.T) {
		f := &fakeConfigServer{deployStatus: 500, deployReply: `{"error-code":"INTERNAL_SERVER_ERROR","message":"boom"}`}
		_, err := newConfigServer(t, f).Deploy(t.Context(), appPackage(t), deploy.Params{})
		if err == nil || !strings.Contains(err.Error(), "boom") || len(f.zips) != 1 {
			t.Errorf("Deploy = %v after %d uploads, want the 500 after 1", err, len(f.zips))
		}
	})
	t.Run("a transient 409 is not retried either", func(t *testing.T) {
		f := &fakeConfigServer{deployStatus: 409, deployReply: `{"error-code":"APPLICATION_LOCK_FAILURE","message":"Timed out after waiting PT1M to acquire lock"}`}
		_, err := newConfigServer(t, f).Deploy(t.Context(), appPackage(t), deploy.Params{})
		var e *deploy.Error
		if !errors.As(err, &e) || e.Code != "APPLICATION_LOCK_FAILURE" || !errors.Is(err, deploy.ErrConflict) || len(f.zips) != 1 {
			t.Errorf("Deploy = %v after %d uploads, want the 409 after 1", err, len(f.zips))
		}
	})
}

func TestConfigServer_ContainerURLs(t *testing.T) {
	cs, err := deploy.NewConfigServer("https://cfg.example:19071/")
	if err != nil {
		t.Fatal(err)
	}
	got := cs.ContainerURLs(&deploy.Convergence{Services: []deploy.ServiceStatus{
		{Type: "container", Port: 8080}, {Type: "searchnode", Port: 19107}, {Type: "container", Port: 8080}, {Type: "container", Port: 8081},
	}})
	if strings.Join(got, " ") != "https://cfg.example:8080 https://cfg.example:8081" {
		t.Errorf("ContainerURLs = %q", got)
	}
	if _, err := deploy.NewConfigServer("http://x:19071", nil); err == nil {
		t.Error("NewConfigServer accepted a nil option")
	}
}

func TestConfigServer_RealListener(t *testing.T) {
	cs := serveConfigServer(t, &fakeConfigServer{})
	if s, err := cs.Deploy(t.Context(), appPackage(t), deploy.Params{}); err != nil || s.ID != 3 {
		t.Errorf("Deploy over a real connection (chunked body) = %+v, %v", s, err)
	}
}

func TestConfigServer_Format(t *testing.T) {
	cs, err := deploy.NewConfigServer("http://localhost:19071/")
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if got := fmt.Sprintf(verb, cs); got != "deploy.ConfigServer{URL:http://localhost:19071}" {
			t.Errorf("%s: %s", verb, got)
		}
	}
}
