package h2_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/internal/h2"
	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/vespatest"
)

// echo answers with the SHA-256 of the request body, its length, the
// protocol and selected request headers, then n bytes if ?n= asks.
func echo(w http.ResponseWriter, r *http.Request) {
	sum := sha256.New()
	n, err := io.Copy(sum, r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("X-Proto", r.Proto)
	w.Header().Set("X-Len", strconv.FormatInt(n, 10))
	w.Header().Set("X-Sum", hex.EncodeToString(sum.Sum(nil)))
	w.Header().Set("X-Path", r.URL.RequestURI())
	w.Header().Set("X-Agent", r.Header.Get("User-Agent"))
	w.Header().Set("X-Content-Length", strconv.FormatInt(r.ContentLength, 10))
	if q := r.URL.Query().Get("n"); q != "" {
		size, _ := strconv.Atoi(q)
		chunk := bytes.Repeat([]byte("x"), 32<<10)
		for size > 0 {
			k := min(size, len(chunk))
			if _, err := w.Write(chunk[:k]); err != nil {
				return
			}
			size -= k
		}
		return
	}
	w.WriteHeader(http.StatusOK)
}

// h2cServer starts Go's HTTP/2 server with prior-knowledge h2c.
func h2cServer(t *testing.T, h http.HandlerFunc, conf *http.HTTP2Config) *httptest.Server {
	t.Helper()
	s := httptest.NewUnstartedServer(h)
	s.Config.Protocols = new(http.Protocols)
	s.Config.Protocols.SetUnencryptedHTTP2(true)
	s.Config.HTTP2 = conf
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func newTransport(t *testing.T, tr *h2.Transport) *h2.Transport {
	t.Helper()
	if tr == nil {
		tr = &h2.Transport{}
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// answer is a response with its body read.
type answer struct {
	StatusCode int
	Header     http.Header
}

// post sends body to url and returns the response with its body read.
func post(t *testing.T, rt http.RoundTripper, url string, body []byte) (answer, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "h2-test")
	res, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("POST %s: reading the body: %v", url, err)
	}
	return answer{res.StatusCode, res.Header}, data
}

func checkEcho(t *testing.T, res answer, body []byte) {
	t.Helper()
	sum := sha256.Sum256(body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	if got := res.Header.Get("X-Proto"); got != "HTTP/2.0" {
		t.Errorf("server saw %q, want HTTP/2.0", got)
	}
	if got, want := res.Header.Get("X-Len"), strconv.Itoa(len(body)); got != want {
		t.Errorf("server read %s bytes, want %s", got, want)
	}
	if got, want := res.Header.Get("X-Sum"), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("server got a different body: sum %s, want %s", got, want)
	}
}

// goRoundTrip sends req on a goroutine of its own and delivers the error of
// its RoundTrip, closing the body of an answer.
func goRoundTrip(rt http.RoundTripper, req *http.Request) <-chan error {
	errc := make(chan error, 1)
	go func() {
		res, err := rt.RoundTrip(req)
		if err == nil {
			res.Body.Close()
		}
		errc <- err
	}()
	return errc
}

// within returns what ch delivers, or fails t with what when nothing comes
// within 5 s.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal(what)
	}
	var zero T
	return zero
}

// parallel runs f(0) to f(n-1), each on a goroutine of its own, and
// returns when all have returned.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

func TestTransport_H2CConcurrent(t *testing.T) {
	srv := h2cServer(t, echo, nil)
	tr := newTransport(t, nil)
	errs := make(chan error, 400)
	parallel(8, func(g int) {
		for i := range 50 {
			body := []byte(fmt.Sprintf(`{"fields":{"g":%d,"i":%d}}`, g, i))
			url := fmt.Sprintf("%s/document/v1/ns/music/docid/d%d-%d?timeout=1s", srv.URL, g, i)
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
			req.Header.Set("User-Agent", "h2-test")
			res, err := tr.RoundTrip(req)
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			sum := sha256.Sum256(body)
			if res.Header.Get("X-Sum") != hex.EncodeToString(sum[:]) ||
				res.Header.Get("X-Path") != fmt.Sprintf("/document/v1/ns/music/docid/d%d-%d?timeout=1s", g, i) ||
				res.Header.Get("X-Agent") != "h2-test" ||
				res.Header.Get("X-Content-Length") != strconv.Itoa(len(body)) {
				errs <- fmt.Errorf("request %d/%d: the server saw %v", g, i, res.Header)
				return
			}
		}
	})
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestTransport_BodiesLargerThanWindows(t *testing.T) {
	// The server grants 1 KiB per stream: a 300 KB body goes out as its
	// WINDOW_UPDATEs come in. The 5 MB answer exceeds the client's own
	// windows, which reading must credit back.
	srv := h2cServer(t, echo, &http.HTTP2Config{MaxReceiveBufferPerStream: 1024, MaxReceiveBufferPerConnection: 64 << 10})
	tr := newTransport(t, nil)
	body := bytes.Repeat([]byte("0123456789"), 30_000)
	parallel(4, func(_ int) {
		res, data := post(t, tr, srv.URL+"/big?n=5000000", body)
		checkEcho(t, res, body)
		if len(data) != 5_000_000 {
			t.Errorf("read %d bytes, want 5000000", len(data))
		}
	})
}

func TestTransport_MaxConcurrentStreams1(t *testing.T) {
	var mu sync.Mutex
	inflight, peak := 0, 0
	srv := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inflight++
		peak = max(peak, inflight)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		inflight--
		mu.Unlock()
		echo(w, r)
	}, &http.HTTP2Config{MaxConcurrentStreams: 1})
	tr := newTransport(t, nil)
	// The first request learns the limit from the server's SETTINGS.
	post(t, tr, srv.URL, []byte("first"))
	parallel(20, func(i int) {
		body := []byte(strconv.Itoa(i))
		res, _ := post(t, tr, srv.URL, body)
		checkEcho(t, res, body)
	})
	if peak != 1 {
		t.Errorf("the server had %d requests at once, want 1", peak)
	}
}

// StreamLimit reports the server's SETTINGS_MAX_CONCURRENT_STREAMS once a
// connection has them, summed over the connections, and nothing before.
func TestTransport_StreamLimit(t *testing.T) {
	srv := h2cServer(t, echo, &http.HTTP2Config{MaxConcurrentStreams: 7})
	tr := newTransport(t, &h2.Transport{MaxConnsPerHost: 2})
	if n, ok := tr.StreamLimit(); ok {
		t.Fatalf("StreamLimit before any connection = %d, true", n)
	}
	post(t, tr, srv.URL, []byte("first"))
	if n, ok := tr.StreamLimit(); !ok || n != 7 {
		t.Errorf("StreamLimit = %d, %v, want 7, true", n, ok)
	}
}

func TestTransport_TLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(echo))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())

	t.Run("trusted CA", func(t *testing.T) {
		tr := newTransport(t, &h2.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}})
		body := []byte(`{"fields":{}}`)
		res, _ := post(t, tr, srv.URL+"/x", body)
		checkEcho(t, res, body)
	})
	t.Run("unknown CA is a certificate error, not a connection error", func(t *testing.T) {
		tr := newTransport(t, &h2.Transport{})
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
		res, err := tr.RoundTrip(req)
		if err == nil {
			res.Body.Close()
			t.Fatal("no error for an untrusted certificate")
		}
		if retries.IsConnectionError(err) {
			t.Errorf("IsConnectionError(%v) = true", err)
		}
	})
}

func TestTransport_MutualTLSEmulator(t *testing.T) {
	srv := vespatest.NewServer(vespatest.WithClientCertificates())
	t.Cleanup(srv.Close)
	certPEM, keyPEM := srv.ClientCertificatePEM()
	tr := newTransport(t, &h2.Transport{TLSClientConfig: testutil.ClientTLSConfig(t, srv.CACertificatePEM(), certPEM, keyPEM)})
	putGet(t, tr, srv.URL())

	t.Run("without a client certificate", func(t *testing.T) {
		tr := newTransport(t, &h2.Transport{TLSClientConfig: testutil.ClientTLSConfig(t, srv.CACertificatePEM(), nil, nil)})
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL()+"/state/v1/health", nil)
		res, err := tr.RoundTrip(req)
		if err == nil {
			res.Body.Close()
			t.Fatal("the emulator answered a client without a certificate")
		}
	})
}

func TestTransport_Emulator(t *testing.T) {
	srv := vespatest.NewServer()
	t.Cleanup(srv.Close)
	tr := newTransport(t, nil)
	putGet(t, tr, srv.URL())
}

// putGet puts a document through /document/v1 and reads it back.
func putGet(t *testing.T, tr http.RoundTripper, base string) {
	t.Helper()
	url := base + "/document/v1/ns/music/docid/a%2Fb"
	res, data := post(t, tr, url, []byte(`{"fields":{"title":"Yellow"}}`))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("put: %d %s", res.StatusCode, data)
	}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	got, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Body.Close()
	data, _ = io.ReadAll(got.Body)
	if got.StatusCode != http.StatusOK || !strings.Contains(string(data), `"Yellow"`) || !strings.Contains(string(data), `id:ns:music::a/b`) {
		t.Fatalf("get: %d %s", got.StatusCode, data)
	}
}

func TestTransport_ContextCancel(t *testing.T) {
	release := make(chan struct{})
	srv := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done(): // the client's RST_STREAM
		case <-release:
		}
	}, nil)
	defer close(release)
	tr := newTransport(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("x"))
	res, err := tr.RoundTrip(req)
	if err == nil {
		res.Body.Close()
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	// The stream slot is free again and the connection still works.
	after, _ := post(t, tr, h2cServer(t, echo, nil).URL, []byte("after"))
	checkEcho(t, after, []byte("after"))
}

func TestTransport_ClosedTransport(t *testing.T) {
	srv := h2cServer(t, echo, nil)
	tr := &h2.Transport{}
	post(t, tr, srv.URL, []byte("x"))
	tr.CloseIdleConnections()
	post(t, tr, srv.URL, []byte("y")) // a new connection
	_ = tr.Close()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
	res, err := tr.RoundTrip(req)
	if err == nil {
		res.Body.Close()
	}
	if !errors.Is(err, h2.ErrClosed) {
		t.Fatalf("after Close: err = %v, want ErrClosed", err)
	}
}

// TestTransport_CloseDuringDial: Close while a request's connection is
// being dialled cancels the dial, waits for it, and the request fails with
// ErrClosed (not with its own context, which has no deadline).
func TestTransport_CloseDuringDial(t *testing.T) {
	dialing := make(chan struct{})
	tr := &h2.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		close(dialing)
		<-ctx.Done() // a dial that never connects
		return nil, ctx.Err()
	}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://192.0.2.1/", nil)
	errc := goRoundTrip(tr, req)
	<-dialing
	_ = tr.Close()
	if err := within(t, errc, "RoundTrip still dialling 5 s after Close"); !errors.Is(err, h2.ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

// TestTransport_HeaderTableChurn sends header values that keep entering
// and leaving the server's 4 KiB HPACK table, among fixed ones: the server
// must decode every request's own values.
func TestTransport_HeaderTableChurn(t *testing.T) {
	srv := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", r.Header.Get("X-Varying")+"|"+r.Header.Get("X-Fixed")+"|"+r.Header.Get("User-Agent"))
	}, nil)
	tr := newTransport(t, nil)
	for i := range 300 {
		v := fmt.Sprintf("%d-%s", i%37, strings.Repeat("v", 200+i%37))
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
		req.Header.Set("X-Varying", v)
		req.Header.Set("X-Fixed", "fixed")
		req.Header.Set("User-Agent", "h2-test")
		res, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got, want := res.Header.Get("X-Seen"), v+"|fixed|h2-test"; got != want {
			t.Fatalf("request %d: the server saw %q, want %q", i, got, want)
		}
	}
}

// TestTransport_IdleConnTimeout: a connection without streams for the
// timeout is closed by the client.
func TestTransport_IdleConnTimeout(t *testing.T) {
	closed := make(chan struct{}, 1)
	s := httptest.NewUnstartedServer(http.HandlerFunc(echo))
	s.Config.Protocols = new(http.Protocols)
	s.Config.Protocols.SetUnencryptedHTTP2(true)
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- struct{}{}
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	tr := newTransport(t, &h2.Transport{IdleConnTimeout: 50 * time.Millisecond})
	post(t, tr, s.URL, []byte("x"))
	within(t, closed, "the idle connection was not closed")
	res, _ := post(t, tr, s.URL, []byte("again")) // a new connection
	checkEcho(t, res, []byte("again"))
}
