package deploy_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/govespa/govespa/vespa/deploy"
)

// booting is a config server whose upload is prepared but not activated
// (a host still booting), whose activation answers 409 code for the first
// n tries, and which converges at once once active.
type booting struct {
	mu          sync.Mutex
	code        string
	n           int
	uploads     int
	activations int
	queries     []string
}

func (b *booting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/prepareandactivate"):
		_, _ = io.Copy(io.Discard, r.Body)
		b.uploads++
		io.WriteString(w, `{"log":[],"message":"Session 3 for tenant 'default' prepared, but activation failed: host still booting","session-id":"3","activated":false,"tenant":"default"}`)
	case r.Method == http.MethodPut && r.URL.Path == "/application/v2/tenant/default/prepareandactivate/3":
		b.activations++
		b.queries = append(b.queries, r.URL.RawQuery)
		if b.activations <= b.n {
			w.WriteHeader(http.StatusConflict)
			fmt.Fprintf(w, `{"error-code":%q,"message":"host still booting"}`, b.code)
			return
		}
		io.WriteString(w, `{"message":"Session 3 for default.default.default activated"}`)
	case strings.HasSuffix(r.URL.Path, "/serviceconverge"):
		io.WriteString(w, `{"services":[],"currentGeneration":3,"wantedGeneration":3,"converged":true}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error-code":"NOT_FOUND","message":"no"}`)
	}
}

func TestDeployAndWait_ActivatesAPreparedSessionWithoutUploadingAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &booting{code: "PARENT_HOST_NOT_READY", n: 5}
		s, err := newConfigServer(t, b).DeployAndWait(t.Context(), appPackage(t), deploy.Params{ContainerURLs: []string{}})
		if err != nil || s == nil || !s.Activated || s.Message != "Session 3 for default.default.default activated" {
			t.Fatalf("DeployAndWait = %+v, %v", s, err)
		}
		if b.uploads != 1 || b.activations != 6 {
			t.Errorf("%d uploads and %d activations, want 1 and 6", b.uploads, b.activations)
		}
		for _, q := range b.queries {
			if v, ok := urlQuery(q); !ok {
				t.Errorf("activation without the timeout: %q", q)
			} else if _, ok := serverTimeout(v); !ok {
				t.Errorf("activation timeout %q does not parse as the config server parses it", v)
			}
		}
	})
}

func TestDeployAndWait_ActivationConflictIsFinal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &booting{code: "ACTIVATION_CONFLICT", n: 100}
		_, err := newConfigServer(t, b).DeployAndWait(t.Context(), appPackage(t), deploy.Params{})
		var e *deploy.Error
		if !errors.As(err, &e) || e.Code != "ACTIVATION_CONFLICT" || b.uploads != 1 || b.activations != 1 {
			t.Errorf("DeployAndWait = %v after %d uploads and %d activations; want ACTIVATION_CONFLICT after 1 and 1", err, b.uploads, b.activations)
		}
	})
}
