package feed

import (
	"io"
	"math"
	"net/http"
	"sync/atomic"

	"github.com/govespa/govespa/vespa"
)

// This file is the one place where the feeder chooses its transports: a
// change of transport (a dedicated HTTP/2 one, say) is made in newConns.

// conn is one connection of the feeder: an *http.Client with a transport of
// its own. Over HTTP/2 that is one TCP connection carrying many requests at
// once; over HTTP/1.1 it is a pool, whose size is the client's
// [vespa.WithConnections] (one request in flight per TCP connection).
type conn struct {
	hc      *http.Client
	busy    atomic.Int64  // requests in flight on it
	streams streamLimiter // nil: the transport cannot tell
}

// newConns opens n connections with the client's settings
// ([vespa.Client.NewFeedHTTPClient]: HTTP/2 unless chosen otherwise), counting the
// bytes they carry into stats.
func newConns(client *vespa.Client, n int, stats *collector) []*conn {
	conns := make([]*conn, n)
	for i := range conns {
		hc := client.NewFeedHTTPClient()
		sl, _ := hc.Transport.(streamLimiter)
		hc.Transport = &countingTransport{base: hc.Transport, stats: stats}
		conns[i] = &conn{hc: hc, streams: sl}
	}
	return conns
}

// streamLimiter is a transport that knows how many streams the server lets
// it open at once (vespa's HTTP/2 transport, from SETTINGS_MAX_CONCURRENT_STREAMS).
type streamLimiter interface{ StreamLimit() (int, bool) }

// streamLimit returns the streams the servers let conns open at once, once
// every connection knows its own; a connection whose transport cannot tell
// counts as perConn.
func streamLimit(conns []*conn, perConn int) (int, bool) {
	sum, known := 0, false
	for _, c := range conns {
		n, ok := 0, false
		if c.streams != nil {
			n, ok = c.streams.StreamLimit()
		}
		if !ok {
			n = perConn
		} else {
			known = true
		}
		sum = min(sum+n, math.MaxInt32)
	}
	return sum, known
}

// leastBusy returns the connection with the fewest requests in flight.
func leastBusy(conns []*conn) *conn {
	best := conns[0]
	n := best.busy.Load()
	for _, c := range conns[1:] {
		if b := c.busy.Load(); b < n {
			best, n = c, b
		}
	}
	return best
}

// closeConns closes the idle connections of conns.
func closeConns(conns []*conn) {
	for _, c := range conns {
		c.hc.CloseIdleConnections()
	}
}

// countingTransport counts the body bytes sent and received.
type countingTransport struct {
	base  http.RoundTripper
	stats *collector
}

// RoundTrip implements http.RoundTripper.
func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.ContentLength > 0 {
		t.stats.bytesOut.Add(req.ContentLength)
	}
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		if resp.ContentLength >= 0 {
			t.stats.bytesIn.Add(resp.ContentLength)
		} else if resp.Body != nil {
			resp.Body = &countingBody{ReadCloser: resp.Body, stats: t.stats}
		}
	}
	return resp, err
}

// CloseIdleConnections closes the base transport's idle connections.
func (t *countingTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// countingBody counts the bytes read from a response body of unknown length.
type countingBody struct {
	io.ReadCloser
	stats *collector
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.stats.bytesIn.Add(int64(n))
	return n, err
}
