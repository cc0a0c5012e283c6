package feed_test

import (
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

// countingProxy forwards loopback TCP connections to target and counts them.
func countingProxy(t *testing.T, target string) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int64)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			out, err := (&net.Dialer{}).DialContext(t.Context(), "tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			mu.Lock()
			open = append(open, in, out)
			mu.Unlock()
			wg.Go(func() { _, _ = io.Copy(out, in); out.Close() })
			wg.Go(func() { _, _ = io.Copy(in, out); in.Close() })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String(), accepted
}

// TestFeeder_DefaultIsHTTP2OverPlainHTTP checks issue 30's first item: a
// feeder built the README's way (vespa.NewClient(url), no HTTP version) over
// http:// speaks HTTP/2 (h2c), so it opens at most its configured
// connections however many operations are in flight. Before, it spoke
// HTTP/1.1 and opened a TCP connection per request in flight.
func TestFeeder_DefaultIsHTTP2OverPlainHTTP(t *testing.T) {
	srv := vespatest.NewServer()
	defer srv.Close()
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	addr, accepted := countingProxy(t, u.Host)
	c, err := vespa.NewClient("http://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const conns, n = 3, 2000
	f, err := feed.New(c, feed.Config{Connections: conns, MinInflight: 64, MaxInflight: 64})
	if err != nil {
		t.Fatal(err)
	}
	putAll(t, f, n)
	if got := accepted.Load(); got > conns {
		t.Errorf("the feeder opened %d TCP connections for Connections: %d (HTTP/1.1 opens one per request in flight)", got, conns)
	}
}
