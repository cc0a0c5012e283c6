package vespa_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
)

// silentPuts starts testutil.SilentH2Server(answered, pings), sends it n
// puts through an HTTP/2 client with opts, and returns what puts returns
// and the connections the server saw.
func silentPuts(t *testing.T, answered int, pings bool, n int, timeout time.Duration, opts ...vespa.Option) (ok, timedOut int, conns int32) {
	t.Helper()
	url, seen := testutil.SilentH2Server(t, answered, pings)
	c, err := vespa.NewClient(url, append([]vespa.Option{vespa.WithHTTPVersion(vespa.HTTP2)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ok, timedOut = puts(t, c, n, timeout)
	return ok, timedOut, seen.Load()
}

// puts sends n puts, each bounded by timeout, and returns how many
// succeeded and how many ended by their deadline.
func puts(t *testing.T, c *vespa.Client, n int, timeout time.Duration) (ok, timedOut int) {
	t.Helper()
	for i := range n {
		ctx, cancel := context.WithTimeout(t.Context(), timeout)
		id := vespa.MustParseDocumentID("id:ns:music::" + string(rune('a'+i)))
		_, err := c.Put(ctx, id, map[string]any{"year": i}, vespa.OperationOptions{})
		cancel()
		switch {
		case err == nil:
			ok++
		case errors.Is(err, context.DeadlineExceeded):
			t.Logf("put %d: %v", i, err)
			timedOut++
		default:
			t.Errorf("put %d: %v", i, err)
		}
	}
	return ok, timedOut
}

// TestClient_DeadConnectionIsReplaced checks issue 27 item 5: a connection
// that goes silent is pinged after the read-idle interval, closed when the
// PING goes unanswered, and the requests on it are retried on a new
// connection. Before, every put after the silence timed out on the same
// connection (17 of 17 in the run).
func TestClient_DeadConnectionIsReplaced(t *testing.T) {
	for _, tr := range []vespa.HTTP2Transport{vespa.HTTP2Batching, vespa.HTTP2NetHTTP} {
		t.Run(tr.String(), func(t *testing.T) {
			ok, timedOut, conns := silentPuts(t, 2, false, 6, 3*time.Second,
				vespa.WithHTTP2Transport(tr), vespa.WithHealthCheck(100*time.Millisecond, 200*time.Millisecond))
			if ok != 6 || timedOut != 0 {
				t.Errorf("%d puts succeeded, %d timed out; want 6 and 0", ok, timedOut)
			}
			if conns != 2 {
				t.Errorf("%d connections, want 2 (the silent one replaced once)", conns)
			}
		})
	}
}

// TestClient_SilentTimeoutSendsAPing: with no idle PING, a request that times
// out with nothing received since it was sent makes the connection send a
// PING at once; unanswered, it closes the connection, and the next puts
// succeed on a new one: one put times out, not every one.
func TestClient_SilentTimeoutSendsAPing(t *testing.T) {
	ok, timedOut, conns := silentPuts(t, 1, false, 6, 3*time.Second, vespa.WithHealthCheck(0, 200*time.Millisecond))
	if timedOut > 1 || ok < 5 {
		t.Errorf("%d puts succeeded, %d timed out; want at most one timed out", ok, timedOut)
	}
	if conns != 2 {
		t.Errorf("%d connections, want 2", conns)
	}
}

// TestClient_ConnectionThatOnlyTimesOutIsAbandoned: the server answers PINGs
// but no request on its first connection. After three timeouts in a row
// with nothing but PING answers, the connection takes no new request, and
// the rest go to a new connection.
func TestClient_ConnectionThatOnlyTimesOutIsAbandoned(t *testing.T) {
	ok, timedOut, conns := silentPuts(t, 1, true, 10, 300*time.Millisecond, vespa.WithHealthCheck(0, time.Second))
	if timedOut != 3 || ok != 7 {
		t.Errorf("%d puts succeeded, %d timed out; want 7 and 3", ok, timedOut)
	}
	if conns != 2 {
		t.Errorf("%d connections, want 2", conns)
	}
}
