package query_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/retries"
)

// These tests send queries to hostile but ordinary servers on loopback.

func TestSearch_RedirectsAreErrors(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			var elsewhere atomic.Int64
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				elsewhere.Add(1)
				io.WriteString(w, okBody)
			}))
			defer other.Close()
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/search/", code)
			}))
			defer front.Close()
			qc, err := query.New(vespaClient(t, front.URL, vespa.WithToken("tok")))
			if err != nil {
				t.Fatal(err)
			}
			_, err = qc.Search(context.Background(), &query.Request{YQL: "select * from music where true"})
			var ve *vespa.Error
			if !errors.Is(err, vespa.ErrRedirect) || !errors.As(err, &ve) || ve.Status != code || !strings.HasPrefix(ve.Location, other.URL) {
				t.Fatalf("got %v, want a %d *vespa.Error naming the Location", err, code)
			}
			if elsewhere.Load() != 0 {
				t.Errorf("the other host got %d queries", elsewhere.Load())
			}
		})
	}
}

func TestSearch_TwoHundredThatIsNotAResult(t *testing.T) {
	for name, body := range map[string]string{
		"null":               "null",
		"an empty object":    "{}",
		"an error object":    `{"error":"something"}`,
		"an HTML page":       "<html><body>Login</body></html>",
		"a truncated result": okBody[:40],
		"an empty body":      "",
	} {
		t.Run(name, func(t *testing.T) {
			qc, _ := newServer(t, 200, body)
			res, err := qc.Search(context.Background(), &query.Request{YQL: "select * from music where true"})
			if !errors.Is(err, query.ErrMalformedResponse) || !errors.Is(err, vespa.ErrMalformedResponse) || res != nil {
				t.Fatalf("got %v, %v; want ErrMalformedResponse and no result", res, err)
			}
		})
	}
}

func TestSearch_DefaultDeadlineBoundsTheCall(t *testing.T) {
	var requests atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select { // a backend that never answers in time
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	qc := newClient(t, srv.URL)
	for _, timeout := range []time.Duration{0, 100 * time.Millisecond} {
		requests.Store(0)
		start := time.Now()
		_, err := qc.Search(context.Background(), &query.Request{YQL: "select * from music where secret contains 'hidden'", Timeout: timeout, GET: true})
		elapsed := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("timeout %v: got %v, want DeadlineExceeded", timeout, err)
		}
		if strings.Contains(err.Error(), "hidden") || strings.Contains(err.Error(), "yql") {
			t.Errorf("the error repeats the query string: %v", err)
		}
		// 1.1×timeout + 1 s: 1.55 s for Vespa's default, 1.11 s for 100 ms;
		// the generous upper bound only tells a bound from none (the old
		// behaviour retried for up to ~28 s).
		eff := timeout
		if eff == 0 {
			eff = query.DefaultTimeout
		}
		if bound := eff + eff/10 + time.Second; elapsed < bound-50*time.Millisecond || elapsed > bound+5*time.Second {
			t.Errorf("timeout %v: the call took %v, want about %v", timeout, elapsed, bound)
		}
		if requests.Load() != 1 {
			t.Errorf("timeout %v: %d requests, want 1 (no attempt after the deadline)", timeout, requests.Load())
		}
	}
}

func TestSearch_WithCallTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		io.WriteString(w, okBody)
	}))
	defer srv.Close()
	qc := newClient(t, srv.URL, query.WithCallTimeout(10*time.Millisecond))
	if _, err := qc.Search(context.Background(), &query.Request{YQL: "select * from music where true"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a 10 ms call bound: %v", err)
	}
	qc = newClient(t, srv.URL, query.WithCallTimeout(30*time.Second))
	if _, err := qc.Search(context.Background(), &query.Request{YQL: "select * from music where true", Timeout: time.Millisecond}); err != nil {
		t.Errorf("a 30 s call bound: %v", err)
	}
	for _, c := range []struct {
		o    query.Option
		want string
	}{
		{query.WithCallTimeout(0), "query: WithCallTimeout(0s): must be positive"},
		{query.WithCallTimeout(-time.Second), "query: WithCallTimeout(-1s): must be positive"},
		{query.WithResultLimit(0), "query: WithResultLimit(0): must be positive"},
	} {
		if _, err := query.New(vespaClient(t, srv.URL), c.o); err == nil || err.Error() != c.want {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}

// vespaClient returns a vespa.Client of url, made with opts, that is closed
// when the test ends.
func vespaClient(tb testing.TB, url string, opts ...vespa.Option) *vespa.Client {
	tb.Helper()
	vc, err := vespa.NewClient(url, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { vc.Close() })
	return vc
}

func TestSearch_LyingContentLength(t *testing.T) {
	url := testutil.RawServer(t, func(conn net.Conn) {
		defer conn.Close()
		if _, err := testutil.ReadRequest(conn); err == nil {
			io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{}{}")
		}
	})
	qc := newClient(t, url, query.WithRetryPolicy(retries.Query.WithMaxAttempts(1)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := qc.Search(context.Background(), &query.Request{YQL: "select * from music where true"})
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a body cut short was a success")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("a 4-byte answer claiming 1 GiB allocated %d MiB", got>>20)
	}
}

func TestSearch_ResultLimit(t *testing.T) {
	qc, _ := newServer(t, 200, okBody, query.WithResultLimit(100))
	_, err := qc.Search(context.Background(), &query.Request{YQL: "select * from music where true"})
	if !errors.Is(err, vespa.ErrResponseTooLarge) {
		t.Fatalf("got %v", err)
	}
}

func TestSearch_RetryAfterAndSentinels(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "86400")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"root":{"id":"toplevel","relevance":1.0,"errors":[{"code":7,"summary":"x","message":"busy"}]}}`)
	}))
	defer srv.Close()
	qc := newClient(t, srv.URL)
	_, err := qc.Search(context.Background(), &query.Request{YQL: "select * from music where true"})
	var qe *query.Error
	var ve *vespa.Error
	if !errors.As(err, &qe) || !errors.As(err, &ve) || !errors.Is(err, vespa.ErrTooManyRequests) {
		t.Fatalf("got %v", err)
	}
	if d, ok := qe.RetryAfter(); !ok || d != 60*time.Second {
		t.Errorf("Retry-After %v, %v; want 60 s (capped)", d, ok)
	}
	if d, ok := ve.RetryAfter(); !ok || d != 60*time.Second {
		t.Errorf("the core error's Retry-After %v, %v", d, ok)
	}
}

func TestSearch_PerCallHeaders(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("X-Request-Id") + " " + r.Header.Get("Authorization"))
		io.WriteString(w, okBody)
	}))
	defer srv.Close()
	qc, err := query.New(vespaClient(t, srv.URL, vespa.WithToken("tok")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = qc.Search(context.Background(), &query.Request{YQL: "select * from music where true",
		Header: http.Header{"X-Request-Id": {"r-7"}}})
	if err != nil || got.Load() != "r-7 Bearer tok" {
		t.Errorf("%v; headers %q", err, got.Load())
	}
}
