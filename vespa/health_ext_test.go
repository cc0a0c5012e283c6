package vespa_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
)

func TestClient_Health(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		check  func(error) bool
	}{
		{"up", 200, `{"status":{"code":"up"},"metrics":{}}`, func(err error) bool { return err == nil }},
		{"initializing says 200 but is not ready", 200, `{"status":{"code":"initializing"}}`,
			func(err error) bool { return errors.Is(err, vespa.ErrNotReady) }},
		{"down with a message", 503, `{"status":{"code":"down","message":"out of service"}}`,
			func(err error) bool { return errors.Is(err, vespa.ErrNotReady) }},
		{"a proxy's HTML page", 502, `<html>bad gateway</html>`, func(err error) bool {
			var ve *vespa.Error
			return errors.As(err, &ve) && ve.Status == 502 && ve.Message == "<html>bad gateway</html>"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeVespa(t, jsonReply(tt.status, tt.body))
			c := newTestClient(t, srv.URL)
			err := c.Health(context.Background())
			if !tt.check(err) {
				t.Errorf("Health = %v", err)
			}
			if got := srv.last(t); got.RawPath != "/state/v1/health" || got.Method != http.MethodGet || got.Header.Get("User-Agent") != vespa.UserAgent {
				t.Errorf("sent %s %s (%s)", got.Method, got.RawPath, got.Header.Get("User-Agent"))
			}
		})
	}
	t.Run("no server", func(t *testing.T) {
		srv := newFakeVespa(t, nil)
		srv.Close()
		c := newTestClient(t, srv.URL)
		var ve *vespa.Error
		if err := c.Health(context.Background()); !errors.As(err, &ve) || ve.Status != 0 {
			t.Errorf("Health = %v", err)
		}
	})
}

func TestClient_WaitUntilReady(t *testing.T) {
	health := func(up func(n int32) bool, calls *atomic.Int32) vespa.Option {
		return vespa.WithBaseTransport(testutil.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
			if up(calls.Add(1)) {
				return jsonResponse(200, `{"status":{"code":"up"}}`), nil
			}
			return jsonResponse(200, `{"status":{"code":"initializing"}}`), nil
		}))
	}
	t.Run("polls until up", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var calls atomic.Int32
			c := newTestClient(t, "http://localhost:8080", health(func(n int32) bool { return n >= 4 }, &calls))
			start := time.Now()
			if err := c.WaitUntilReady(context.Background()); err != nil {
				t.Fatal(err)
			}
			if calls.Load() != 4 {
				t.Errorf("%d health checks, want 4", calls.Load())
			}
			if waited := time.Since(start); waited != 3*vespa.ReadyPoll {
				t.Errorf("waited %v, want %v", waited, 3*vespa.ReadyPoll)
			}
		})
	})
	t.Run("gives up when the context ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var calls atomic.Int32
			c := newTestClient(t, "http://localhost:8080", health(func(int32) bool { return false }, &calls))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := c.WaitUntilReady(ctx)
			if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, vespa.ErrNotReady) {
				t.Fatalf("err = %v", err)
			}
			if n := calls.Load(); n != 21 {
				t.Errorf("%d health checks in 10s, want 21", n)
			}
		})
	})
	t.Run("keeps the last real cause when the deadline cuts a check", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var calls atomic.Int32
			c := newTestClient(t, "http://localhost:8080", vespa.WithBaseTransport(testutil.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
				if calls.Add(1) == 1 {
					return nil, errors.New("x509: certificate signed by unknown authority")
				}
				<-r.Context().Done() // the next check hangs until the deadline cuts it
				return nil, r.Context().Err()
			})))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := c.WaitUntilReady(ctx)
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "x509") {
				t.Errorf("err = %v, want the deadline and the x509 cause", err)
			}
		})
	})
}
