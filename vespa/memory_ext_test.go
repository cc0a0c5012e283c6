package vespa_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
)

// heapInUse returns the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc) //nolint:gosec // far below 2^63
}

const mib = 1 << 20

// http2Clients are the client's two HTTP/2 transports, ours first, so that
// each memory test compares them under the same attack.
var http2Clients = []vespa.HTTP2Transport{vespa.HTTP2Batching, vespa.HTTP2NetHTTP}

// TestHTTP2_PingFloodThatNeverReadsIsBounded checks issue 27 item 4: a
// server that floods PINGs and never reads the answers. Before, the queue of
// PING ACKs had no bound and the heap grew by 60–76 MiB; now the connection
// is closed past 10,000 queued answers (as x/net's server bounds its own),
// and the heap stays within a few MiB of net/http's HTTP/2 under the same
// flood.
func TestHTTP2_PingFloodThatNeverReadsIsBounded(t *testing.T) {
	growth := map[vespa.HTTP2Transport]int64{}
	for _, tr := range http2Clients {
		t.Run(tr.String(), func(t *testing.T) {
			flooded := make(chan struct{})
			srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
				defer close(flooded)
				sc.WriteSettings()
				for f := range sc.Frames() {
					if _, ok := f.(*http2.MetaHeadersFrame); ok {
						break // the request is in flight: flood, and never read again
					}
				}
				_ = sc.NC.SetWriteDeadline(time.Now().Add(2 * time.Second))
				var data [8]byte
				for range 3_000_000 {
					if sc.Fr.WritePing(false, data) != nil {
						return
					}
				}
				sc.Flush()
			})
			c, err := vespa.NewClient(srv.URL, vespa.WithHTTPVersion(vespa.HTTP2), vespa.WithHTTP2Transport(tr))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			before := heapInUse()
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan struct{})
			go func() {
				defer close(done)
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/document/v1/", nil)
				if res, err := c.HTTPClient().Do(req); err == nil {
					res.Body.Close()
				}
			}()
			<-flooded
			growth[tr] = heapInUse() - before
			cancel()
			<-done
			t.Logf("%v: heap grew %.1f MiB under the flood", tr, float64(growth[tr])/mib)
		})
	}
	ours, theirs := growth[vespa.HTTP2Batching], growth[vespa.HTTP2NetHTTP]
	if ours > theirs+8*mib {
		t.Errorf("the batching transport's heap grew %.1f MiB, net/http's %.1f MiB", float64(ours)/mib, float64(theirs)/mib)
	}
}

// TestHTTP2_SlowReaderOfALargeBodyIsBounded checks issue 27 item 4's second
// half: a response body of 48 MiB read a little slower than it comes. Before,
// a stream's receive buffer was reset only when fully drained, so it grew
// toward the size of the body (+64 MiB); now it stays near the stream's
// flow-control window, as net/http's HTTP/2 does.
func TestHTTP2_SlowReaderOfALargeBodyIsBounded(t *testing.T) {
	const size = 48 * mib
	chunk := strings.Repeat("x", 64<<10)
	srv := testutil.H2CServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for range size / len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}))
	peak := map[vespa.HTTP2Transport]int64{}
	for _, tr := range http2Clients {
		t.Run(tr.String(), func(t *testing.T) {
			c, err := vespa.NewClient(srv.URL, vespa.WithHTTPVersion(vespa.HTTP2), vespa.WithHTTP2Transport(tr))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			before := heapInUse()
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/big", nil)
			res, err := c.HTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			buf := make([]byte, 4<<10)
			var read, next int64
			for {
				n, err := res.Body.Read(buf)
				read += int64(n)
				if read >= next {
					peak[tr] = max(peak[tr], heapInUse()-before)
					next += 2 * mib
				}
				if err != nil {
					break
				}
				time.Sleep(20 * time.Microsecond) // a little slower than loopback
			}
			if read != size {
				t.Fatalf("read %d bytes of %d", read, size)
			}
			t.Logf("%v: heap peaked %.1f MiB above the start", tr, float64(peak[tr])/mib)
		})
	}
	ours, theirs := peak[vespa.HTTP2Batching], peak[vespa.HTTP2NetHTTP]
	if ours > theirs+8*mib {
		t.Errorf("the batching transport's heap peaked %.1f MiB above the start, net/http's %.1f MiB", float64(ours)/mib, float64(theirs)/mib)
	}
}
