package vespa_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
)

// putOnce sends one put of id:ns:music::a within timeout and returns how
// long it took and its error.
func putOnce(t *testing.T, c *vespa.Client, timeout time.Duration) (time.Duration, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	start := time.Now()
	_, err := c.Put(ctx, vespa.MustParseDocumentID("id:ns:music::a"), map[string]any{"year": 1}, vespa.OperationOptions{})
	return time.Since(start), err
}

// maxDials is the most dials a transport with the dial backoff makes in d:
// tens a second, never one per attempt.
func maxDials(d time.Duration) int { return int(20*d.Seconds()) + 2 }

// TestClient_WrongEndpointFailsFast checks issue 27 item 9 for the sync
// client: a put to a closed port fails, once the client's connect patience
// has passed without a connection, with an error matching
// vespa.ErrUnreachable and the refusal, long before its deadline; failed
// dials back off (tens a second at most, counted by their Debug records),
// the give-up is logged at Warn once, and the next put fails at once.
// Before, a put took the policy's 11 attempts (24 s in the run).
func TestClient_WrongEndpointFailsFast(t *testing.T) {
	for _, v := range []vespa.HTTPVersion{vespa.HTTP1, vespa.HTTP2} {
		t.Run(v.String(), func(t *testing.T) {
			var log testutil.LogRecorder
			c, err := vespa.NewClient("http://"+testutil.FreeLoopbackAddr(t), vespa.WithHTTPVersion(v),
				vespa.WithLogger(slog.New(&log)), vespa.WithConnectPatience(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			took, err := putOnce(t, c, 30*time.Second)
			t.Logf("%v: %v", took.Round(time.Millisecond), err)
			if !errors.Is(err, vespa.ErrUnreachable) || !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v: want vespa.ErrUnreachable and ECONNREFUSED before the deadline", err)
			}
			dials := len(log.Records("vespa: dial failed"))
			if dials > maxDials(took) {
				t.Errorf("%d dials in %v: more than tens a second", dials, took)
			}
			if n := len(log.Records("vespa: the endpoint was never reached; requests fail at once until a dial succeeds")); n != 1 {
				t.Errorf("%d Warn records of the give-up, want 1", n)
			}
			if took, err := putOnce(t, c, 30*time.Second); !errors.Is(err, vespa.ErrUnreachable) || took > 2*time.Second {
				t.Errorf("the next put: %v after %v; want vespa.ErrUnreachable at once", err, took)
			}
		})
	}
}

// TestClient_PatientConnectRetriesRefusals: with WithConnectPatience(-1) a
// refused connection is retried as the policy says, to the deadline, with
// the same dial backoff.
func TestClient_PatientConnectRetriesRefusals(t *testing.T) {
	var log testutil.LogRecorder
	c, err := vespa.NewClient("http://"+testutil.FreeLoopbackAddr(t), vespa.WithLogger(slog.New(&log)), vespa.WithConnectPatience(-1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	took, err := putOnce(t, c, 2*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, vespa.ErrUnreachable) {
		t.Errorf("error %v: want the deadline, not vespa.ErrUnreachable", err)
	}
	if dials := len(log.Records("vespa: dial failed")); dials > maxDials(took) {
		t.Errorf("%d dials in %v: more than tens a second", dials, took)
	}
}

// TestClient_RefusedAfterAConnectionIsRetried: a client that reached its
// endpoint once retries refused connections (a restarting container) as
// any connection error, whatever its patience.
func TestClient_RefusedAfterAConnectionIsRetried(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"pathId":"/document/v1/ns/music/docid/a","id":"id:ns:music::a"}`))
	}))
	c, err := vespa.NewClient(srv.URL, vespa.WithConnectPatience(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := putOnce(t, c, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	_, err = putOnce(t, c, 1500*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, vespa.ErrUnreachable) {
		t.Errorf("error %v: want the deadline after retries, not vespa.ErrUnreachable", err)
	}
}
