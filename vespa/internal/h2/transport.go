package h2

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/govespa/govespa/vespa/retries"
)

// Transport is an HTTP/2 [http.RoundTripper] (see the package doc). Its zero
// value is usable: h2c for http:// and TLS with the system roots for
// https://, one connection per host. It is safe for concurrent use; create
// it once and [Transport.Close] it when done. Set its fields before the
// first request and do not change them after.
type Transport struct {
	// TLSClientConfig is the TLS configuration of https:// connections
	// (client certificates, CA, ...); it is cloned and its NextProtos set to
	// "h2". Nil means a default configuration.
	TLSClientConfig *tls.Config
	// DialContext dials the TCP connection. Nil means a [net.Dialer] with a
	// 30 s timeout and keep-alive.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxConnsPerHost is the most connections to one host. A request that
	// finds every stream of them busy waits for one. Zero means 1.
	MaxConnsPerHost int
	// IdleConnTimeout closes a connection that has had no stream that long.
	// Zero means never.
	IdleConnTimeout time.Duration
	// MaxResponseHeaderBytes bounds a response's header list; zero means
	// 1 MiB.
	MaxResponseHeaderBytes uint32
	// ReadIdleTimeout is how long a connection may receive nothing before
	// it sends a PING to learn whether the server is still there. Zero
	// means no such PING; a connection still sends one after a silent
	// timeout (see the package doc).
	ReadIdleTimeout time.Duration
	// PingTimeout is how long a PING may go unanswered before the
	// connection is closed, failing its streams with a [*ConnError]
	// matching [ErrPingTimeout]. Zero means 15 s.
	PingTimeout time.Duration

	mu      sync.Mutex
	conns   map[connKey][]*conn
	dialing map[connKey]int
	closed  bool
	wg      sync.WaitGroup // every dial, and every connection's reader and writer
	// closing ends when Close is called; the dials in flight end with it.
	closing     context.Context
	stopClosing context.CancelFunc

	// free is closed and replaced whenever a stream slot or a connection
	// may have become free, for requests waiting in getConn. It has its own
	// lock, taken under conn.mu; t.mu is never taken under conn.mu.
	freeMu  sync.Mutex
	free    chan struct{}
	waiting atomic.Int32
}

// connKey identifies the connections to one server.
type connKey struct{ scheme, addr string }

// pingTimeout returns PingTimeout or its default.
func (t *Transport) pingTimeout() time.Duration {
	if t.PingTimeout > 0 {
		return t.PingTimeout
	}
	return 15 * time.Second
}

// retriesNotProcessed is how many times RoundTrip sends again a request the
// server did not process before it gives up.
const retriesNotProcessed = 5

// RoundTrip sends req and returns the response once its headers arrived.
// The body is read from memory; see the package doc. Errors are the
// context's, a [*ConnError], an [http2.StreamError] (the server reset the
// stream), a dial or TLS error, or one about req itself.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	b, err := requestBody(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	if req.URL == nil {
		closeBody(req)
		return nil, errors.New("h2: request has no URL")
	}
	scheme := req.URL.Scheme
	if scheme != "http" && scheme != "https" {
		closeBody(req)
		return nil, fmt.Errorf("h2: unsupported scheme %q", scheme)
	}
	addr := canonicalAddr(req.URL)
	if addr == "" {
		closeBody(req)
		return nil, errors.New("h2: request URL has no host")
	}
	if err := validHeaders(req.Header); err != nil {
		closeBody(req)
		return nil, err
	}
	key := connKey{scheme, addr}
	for attempt := 0; ; attempt++ {
		c, err := t.getConn(ctx, key, scheme, addr)
		if err != nil {
			closeBody(req)
			return nil, err
		}
		res, err := c.roundTrip(ctx, req, b)
		if err != nil && attempt < retriesNotProcessed && errors.Is(err, ErrNotProcessed) && ctx.Err() == nil {
			continue
		}
		closeBody(req)
		return res, err
	}
}

// requestBody returns req's body as bytes. A body that writes itself in
// one Write of exactly ContentLength bytes (bytes.Reader, strings.Reader
// through http.NewRequest) is not copied.
func requestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if ub, ok := req.Body.(unreadBytes); ok {
		if b := ub.UnreadBytes(); req.ContentLength < 0 || int64(len(b)) == req.ContentLength {
			return b, nil
		}
		closeBody(req)
		return nil, fmt.Errorf("h2: the request body is not of its ContentLength %d", req.ContentLength)
	}
	if wt, ok := req.Body.(io.WriterTo); ok && req.GetBody != nil && req.ContentLength > 0 {
		var g grab
		n, err := wt.WriteTo(&g)
		if err == nil && n == req.ContentLength && g.writes == 1 {
			return g.b, nil
		}
		if err != nil {
			closeBody(req)
			return nil, fmt.Errorf("h2: reading the request body: %w", err)
		}
		// More than one write: the slices may have been reused. Start
		// again from a fresh body and copy.
		body, err := req.GetBody()
		if err != nil {
			closeBody(req)
			return nil, fmt.Errorf("h2: request GetBody: %w", err)
		}
		b, err := io.ReadAll(body)
		_ = body.Close()
		if err != nil {
			closeBody(req)
			return nil, fmt.Errorf("h2: reading the request body: %w", err)
		}
		return b, nil
	}
	b, err := io.ReadAll(req.Body)
	if err != nil {
		closeBody(req)
		return nil, fmt.Errorf("h2: reading the request body: %w", err)
	}
	return b, nil
}

// unreadBytes is a body that hands its bytes over, to be sent without a
// copy (vespa's request bodies, wire.Body): the caller keeps them unchanged
// until RoundTrip returns.
type unreadBytes interface{ UnreadBytes() []byte }

// grab is an io.Writer that keeps the slice of a single Write.
type grab struct {
	b      []byte
	writes int
}

func (g *grab) Write(p []byte) (int, error) {
	g.writes++
	if g.writes == 1 {
		g.b = p
	}
	return len(p), nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// canonicalAddr returns u's host:port, with the scheme's default port.
func canonicalAddr(u *url.URL) string {
	host := u.Hostname()
	if host == "" {
		return ""
	}
	port := u.Port()
	if port != "" {
		return u.Host // host:port or [v6]:port already
	}
	port = "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(host, port)
}

// getConn returns a connection to key with a stream slot reserved for the
// caller, dialing one if there is room, else waiting for a free slot.
func (t *Transport) getConn(ctx context.Context, key connKey, scheme, addr string) (*conn, error) {
	// The fast path: a connection with a free slot.
	t.mu.Lock()
	if !t.closed {
		for _, c := range t.conns[key] {
			if ok, _ := c.reserve(); ok {
				t.mu.Unlock()
				return c, nil
			}
		}
	}
	t.mu.Unlock()
	// The slow path counts as waiting from before its first check, so that
	// a slot freed meanwhile wakes it.
	t.waiting.Add(1)
	defer t.waiting.Add(-1)
	for {
		free := t.freeChan()
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			return nil, ErrClosed
		}
		open := 0
		for _, c := range t.conns[key] {
			ok, usable := c.reserve()
			if ok {
				t.mu.Unlock()
				return c, nil
			}
			if usable {
				open++
			}
		}
		maxConns := t.MaxConnsPerHost
		if maxConns <= 0 {
			maxConns = 1
		}
		if open+t.dialing[key] < maxConns {
			if t.dialing == nil {
				t.dialing = map[connKey]int{}
			}
			t.dialing[key]++
			// Close waits for the dial (counted before Close can see it)
			// and cancels it.
			t.wg.Add(1)
			closing := t.closingLocked()
			t.mu.Unlock()
			c, err := t.dialUntilClosed(ctx, closing, scheme, addr)
			t.mu.Lock()
			t.dialing[key]--
			if t.closed {
				if err == nil {
					c.shutdown(ErrClosed)
				}
				err = ErrClosed
			}
			if err == nil {
				if t.conns == nil {
					t.conns = map[connKey][]*conn{}
				}
				t.conns[key] = append(t.conns[key], c)
				c.key = key
				c.reserve()
			}
			t.mu.Unlock()
			t.wg.Done()
			t.signalFree()
			if err != nil {
				return nil, err
			}
			return c, nil
		}
		t.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// closingLocked returns the context that Close cancels; the caller holds
// t.mu.
func (t *Transport) closingLocked() context.Context {
	if t.closing == nil {
		t.closing, t.stopClosing = context.WithCancel(context.Background())
	}
	return t.closing
}

// dialUntilClosed is dial under ctx, cancelled as well by Close.
func (t *Transport) dialUntilClosed(ctx, closing context.Context, scheme, addr string) (*conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(closing, cancel)
	defer stop()
	return t.dial(ctx, scheme, addr)
}

// freeChan returns the channel that the next signalFree closes.
func (t *Transport) freeChan() chan struct{} {
	t.freeMu.Lock()
	defer t.freeMu.Unlock()
	if t.free == nil {
		t.free = make(chan struct{})
	}
	return t.free
}

// signalFree wakes the requests waiting for a stream slot or a connection.
func (t *Transport) signalFree() {
	if t.waiting.Load() == 0 {
		return
	}
	t.freeMu.Lock()
	if t.free != nil {
		close(t.free)
		t.free = nil
	}
	t.freeMu.Unlock()
}

// forget removes c from the pool; it takes no new streams.
func (t *Transport) forget(c *conn) {
	t.mu.Lock()
	list := t.conns[c.key]
	for i, x := range list {
		if x == c {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(t.conns, c.key)
	} else {
		t.conns[c.key] = list
	}
	t.mu.Unlock()
	t.signalFree()
}

// CloseIdleConnections closes the connections that have no stream in
// flight, and waits for their goroutines to end. Busy connections go on.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	var idle []*conn
	for _, list := range t.conns {
		for _, c := range list {
			if c.idle() {
				idle = append(idle, c)
			}
		}
	}
	t.mu.Unlock()
	for _, c := range idle {
		c.shutdown(nil)
		t.forget(c)
		c.wg.Wait()
	}
}

// Close closes every connection, failing the requests in flight with a
// [*ConnError] that matches [ErrClosed] (or ErrClosed itself, for one
// whose connection was being dialled: the dial is cancelled), waits for
// every goroutine of the transport to end, and makes later requests fail
// with [ErrClosed]. It returns nil.
func (t *Transport) Close() error {
	t.mu.Lock()
	t.closed = true
	if t.stopClosing != nil {
		t.stopClosing()
	}
	var all []*conn
	for _, list := range t.conns {
		all = append(all, list...)
	}
	t.conns = nil
	t.mu.Unlock()
	for _, c := range all {
		c.shutdown(ErrClosed)
	}
	t.signalFree()
	t.wg.Wait()
	return nil
}

// dial opens and starts a connection.
func (t *Transport) dial(ctx context.Context, scheme, addr string) (*conn, error) {
	dial := t.DialContext
	if dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		dial = d.DialContext
	}
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if scheme == "https" {
		cfg := t.TLSClientConfig.Clone()
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		cfg.NextProtos = []string{"h2"}
		if cfg.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			cfg.ServerName = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		}
		tc := tls.Client(nc, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			if noApplicationProtocol(err) {
				// The server offers ALPN, but not h2 (RFC 7301's alert).
				return nil, fmt.Errorf("h2: %s: %w: %w", addr, retries.ErrHTTP2NotNegotiated, err)
			}
			return nil, err
		}
		if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
			_ = tc.Close()
			return nil, fmt.Errorf("h2: %s: %w (got %q)", addr, retries.ErrHTTP2NotNegotiated, p)
		}
		nc = tc
	}
	c, err := newConn(t, nc, addr)
	if err != nil {
		_ = nc.Close()
		return nil, &ConnError{Addr: addr, Cause: err}
	}
	return c, nil
}

// noApplicationProtocol reports whether err is the server's TLS alert
// no_application_protocol (120), which crypto/tls reports as a "remote
// error" of an unexported type.
func noApplicationProtocol(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "remote error" && opErr.Err != nil &&
		opErr.Err.Error() == "tls: no application protocol"
}

// validHeaders checks header names and values for what HTTP/2 cannot carry.
func validHeaders(h http.Header) error {
	for k, vs := range h {
		if !httpguts.ValidHeaderFieldName(k) {
			return fmt.Errorf("h2: invalid header name %q", k)
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return fmt.Errorf("h2: invalid value for header %q", k)
			}
		}
	}
	return nil
}

// StreamLimit returns the streams the servers let this transport's open
// connections have at once (their SETTINGS_MAX_CONCURRENT_STREAMS, summed,
// capped at math.MaxInt32); ok is false until a connection has had the
// server's settings. A server that sets no limit counts as math.MaxUint32.
func (t *Transport) StreamLimit() (n int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var sum uint64
	for _, conns := range t.conns {
		for _, c := range conns {
			c.mu.Lock()
			if c.gotSettings && !c.closed && c.goAway == nil && !c.retired {
				sum += uint64(c.maxStreams)
				ok = true
			}
			c.mu.Unlock()
		}
	}
	return int(min(sum, math.MaxInt32)), ok
}
