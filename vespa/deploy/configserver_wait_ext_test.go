package deploy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/vespa/deploy"
)

// conflicting answers serviceconverge with a 409 carrying code for the
// first n polls, then reports convergence at generation 3.
type conflicting struct {
	mu    sync.Mutex
	code  string
	n     int
	polls int
}

func (c *conflicting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.polls++
	w.Header().Set("Content-Type", "application/json")
	if c.polls <= c.n {
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintf(w, `{"error-code":%q,"message":"not now"}`, c.code)
		return
	}
	io.WriteString(w, `{"services":[],"currentGeneration":3,"wantedGeneration":3,"converged":true}`)
}

func TestWaitForConvergence_TransientConflictsAreWaitedOut(t *testing.T) {
	for _, code := range []string{"APPLICATION_LOCK_FAILURE", "CONFIG_NOT_CONVERGED", "LOAD_BALANCER_NOT_READY", "PARENT_HOST_NOT_READY"} {
		t.Run(code, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// 7 conflicts: more than one call's 3 attempts, so both the
				// retry policy and the poll wait them out.
				h := &conflicting{code: code, n: 7}
				conv, err := newConfigServer(t, h).WaitForConvergence(t.Context(), &deploy.Session{ID: 3})
				if err != nil || !conv.Converged || h.polls != 8 {
					t.Errorf("WaitForConvergence = %+v, %v after %d polls; want converged after 8", conv, err, h.polls)
				}
			})
		})
	}
}

func TestWaitForConvergence_FinalConflictEndsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &conflicting{code: "ACTIVATION_CONFLICT", n: 100}
		start := time.Now()
		_, err := newConfigServer(t, h).WaitForConvergence(t.Context(), &deploy.Session{ID: 3})
		var e *deploy.Error
		if !errors.As(err, &e) || e.Code != "ACTIVATION_CONFLICT" || h.polls != 1 || time.Since(start) != 0 {
			t.Errorf("WaitForConvergence = %v after %d polls in %v; want ACTIVATION_CONFLICT at once", err, h.polls, time.Since(start))
		}
	})
}

// TestWaitForHealth_KeepsTheLastRealCause: the container first fails with a
// 503 (the real problem), then hangs until the deadline cuts the poll. The
// error must say both.
func TestWaitForHealth_KeepsTheLastRealCause(t *testing.T) {
	for _, cut := range []time.Duration{1500 * time.Millisecond, 20 * time.Second} {
		t.Run(fmt.Sprint("deadline ", cut), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				calls := 0
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					calls++
					n := calls
					mu.Unlock()
					if n == 1 || n%4 == 0 {
						w.WriteHeader(http.StatusServiceUnavailable)
						io.WriteString(w, `{"error-code":"UNAVAILABLE","message":"x509: certificate signed by unknown authority"}`)
						return
					}
					<-r.Context().Done() // hangs until the caller gives up
				})
				cs := newConfigServer(t, h)
				ctx, cancel := context.WithTimeout(t.Context(), cut)
				defer cancel()
				err := cs.WaitForHealth(ctx, "http://container:8080")
				if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "x509") {
					t.Errorf("WaitForHealth = %v; want the deadline and the last real cause (the 503's x509 message)", err)
				}
				var e *deploy.Error
				if !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable {
					t.Errorf("errors.As(*Error) of %v: %+v", err, e)
				}
			})
		})
	}
}
