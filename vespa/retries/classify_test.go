package retries

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"go/build"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/net/http2"

	"github.com/govespa/govespa/internal/testutil"
)

// listen starts a loopback listener whose single connection is handed to
// serve; the listener and the connection are closed when the test ends.
func listen(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	return "http://" + ln.Addr().String()
}

// readRequestHead reads an HTTP/1 request up to the blank line.
func readRequestHead(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil || line == "\r\n" {
			return
		}
	}
}

// get sends one GET with a client of its own (no shared pool), reads the
// whole body and returns the error, if any.
func get(t *testing.T, tr *http.Transport, u string) error {
	t.Helper()
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return err
}

// quietTLSServer starts an httptest TLS server (whose certificate nobody but
// its own Client trusts) that does not log the handshakes it refuses.
func quietTLSServer(t *testing.T) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestIsConnectionErrorWithRealServers(t *testing.T) {
	t.Run("a server that closes the connection without answering: *url.Error wrapping io.EOF", func(t *testing.T) {
		u := listen(t, func(c net.Conn) { readRequestHead(c) })
		err := get(t, &http.Transport{}, u)
		var uerr *url.Error
		if !errors.As(err, &uerr) || !errors.Is(err, io.EOF) {
			t.Fatalf("net/http returned %#v; this test expects a *url.Error wrapping io.EOF", err)
		}
		if !IsConnectionError(err) {
			t.Errorf("IsConnectionError(%v) = false", err)
		}
	})
	t.Run("a server that resets the connection", func(t *testing.T) {
		u := listen(t, func(c net.Conn) {
			readRequestHead(c)
			_ = c.(*net.TCPConn).SetLinger(0) // close with RST
		})
		err := get(t, &http.Transport{}, u)
		if !errors.Is(err, syscall.ECONNRESET) || !IsConnectionError(err) {
			t.Errorf("IsConnectionError(%v) = %v, want a connection reset", err, IsConnectionError(err))
		}
	})
	t.Run("a response body cut short", func(t *testing.T) {
		u := listen(t, func(c net.Conn) {
			readRequestHead(c)
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b")
		})
		err := get(t, &http.Transport{}, u)
		if !errors.Is(err, io.ErrUnexpectedEOF) || !IsConnectionError(err) {
			t.Errorf("IsConnectionError(%v) = %v, want an unexpected EOF", err, IsConnectionError(err))
		}
	})
	t.Run("a refused port", func(t *testing.T) {
		err := get(t, &http.Transport{}, "http://"+testutil.FreeLoopbackAddr(t))
		if !errors.Is(err, syscall.ECONNREFUSED) || !IsConnectionError(err) {
			t.Errorf("IsConnectionError(%v) = %v, want a refused connection", err, IsConnectionError(err))
		}
	})
	t.Run("an untrusted TLS certificate is not a connection error", func(t *testing.T) {
		srv := quietTLSServer(t)
		err := get(t, &http.Transport{}, srv.URL) // a transport that does not trust it
		var verr *tls.CertificateVerificationError
		if !errors.As(err, &verr) {
			t.Fatalf("got %v, want a certificate verification error", err)
		}
		if IsConnectionError(err) {
			t.Errorf("IsConnectionError(%v) = true", err)
		}
	})
	t.Run("a wrong host name is not a connection error", func(t *testing.T) {
		srv := quietTLSServer(t)
		tr := srv.Client().Transport.(*http.Transport).Clone()
		tr.TLSClientConfig.ServerName = "not-the-host.invalid"
		err := get(t, tr, srv.URL)
		if err == nil || IsConnectionError(err) {
			t.Errorf("IsConnectionError(%v) = true", err)
		}
	})
	t.Run("a cancelled request is not a connection error", func(t *testing.T) {
		u := listen(t, func(c net.Conn) { readRequestHead(c); _, _ = io.Copy(io.Discard, c) })
		ctx, cancel := context.WithCancel(t.Context())
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		tr.Proxy = func(*http.Request) (*url.URL, error) { cancel(); return nil, nil }
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, context.Canceled) || IsConnectionError(err) {
			t.Errorf("IsConnectionError(%v) = %v", err, IsConnectionError(err))
		}
	})
}

// h2cServe answers one HTTP/2 prior-knowledge connection by hand: it reads
// the client preface, sends an empty SETTINGS frame, reads frames up to the
// request's HEADERS, then writes frames (each a type, a stream and a
// payload), half-closes and drains until the client hangs up.
func h2cServe(frames ...[]byte) func(net.Conn) {
	return func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := io.ReadFull(br, make([]byte, len("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))); err != nil {
			return
		}
		_, _ = c.Write(h2Frame(0x4, 0, nil)) // SETTINGS
		for {
			var head [9]byte
			if _, err := io.ReadFull(br, head[:]); err != nil {
				return
			}
			length := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
			if _, err := io.CopyN(io.Discard, br, int64(length)); err != nil {
				return
			}
			if head[3] == 0x1 { // HEADERS
				break
			}
		}
		for _, f := range frames {
			_, _ = c.Write(f)
		}
		_ = c.(*net.TCPConn).CloseWrite()
		_, _ = io.Copy(io.Discard, br)
	}
}

func h2Frame(typ byte, stream uint32, payload []byte) []byte {
	f := make([]byte, 9, 9+len(payload))
	f[0], f[1], f[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	f[3] = typ
	binary.BigEndian.PutUint32(f[5:], stream)
	return append(f, payload...)
}

func h2cTransport() *http.Transport {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	return tr
}

func TestIsConnectionErrorWithHTTP2(t *testing.T) {
	cases := []struct {
		name     string
		frames   [][]byte
		typeName string
	}{
		{"a stream reset (RST_STREAM INTERNAL_ERROR)",
			[][]byte{h2Frame(0x3, 1, binary.BigEndian.AppendUint32(nil, 0x2))}, "net/http.http2StreamError"},
		{"a GOAWAY, then the connection closes",
			[][]byte{h2Frame(0x7, 0, binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 1), 0x0))}, "net/http.http2GoAwayError"},
		{"a protocol violation (DATA on stream 0)",
			[][]byte{h2Frame(0x0, 0, nil)}, "net/http.http2ConnectionError"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := listen(t, h2cServe(c.frames...))
			err := get(t, h2cTransport(), u)
			if err == nil {
				t.Fatal("no error")
			}
			found := false
			for _, e := range chain(err) {
				if got := fmt.Sprintf("%T", e); strings.TrimPrefix(got, "*") == strings.TrimPrefix(c.typeName, "net/") {
					found = true
				}
			}
			if !found {
				t.Fatalf("net/http returned %#v, want a %s in its chain", err, c.typeName)
			}
			if !isHTTP2ConnectionError(err) || !IsConnectionError(err) {
				t.Errorf("IsConnectionError(%v) = false", err)
			}
		})
	}
}

func TestIsConnectionErrorByType(t *testing.T) {
	reset := os.NewSyscallError("read", syscall.ECONNRESET)
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"a dial error", &net.OpError{Op: "dial", Err: errors.New("x")}, true},
		{"a read error", &net.OpError{Op: "read", Err: errors.New("x")}, true},
		{"a write error", &net.OpError{Op: "write", Err: errors.New("x")}, true},
		{"a TLS alert from the server", &net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}, false},
		{"ECONNRESET, wrapped", fmt.Errorf("send: %w", reset), true},
		{"EPIPE", fmt.Errorf("send: %w", syscall.EPIPE), true},
		{"ECONNABORTED", syscall.ECONNABORTED, true},
		{"ECONNREFUSED", syscall.ECONNREFUSED, true},
		{"net.ErrClosed", fmt.Errorf("x: %w", net.ErrClosed), true},
		{"io.ErrUnexpectedEOF", io.ErrUnexpectedEOF, true},
		{"io.EOF from net/http", &url.Error{Op: "Get", URL: "http://x", Err: io.EOF}, true},
		{"a bare io.EOF (not from the transport)", io.EOF, false},
		{"net/http's server closed idle connection", &url.Error{Op: "Post", URL: "http://x", Err: errors.New(serverClosedIdle)}, true},
		{"that text in another type", &url.Error{Op: "Post", URL: "http://x", Err: &wrapError{errors.New("x")}}, false},
		{"that text outside a *url.Error", errors.New(serverClosedIdle), false},
		{"net/http's HTTP/2 PING unanswered", &url.Error{Op: "Post", URL: "http://x", Err: errors.New(lostPing)}, true},
		{"message text alone", errors.New("read: connection reset by peer"), false},
		{"context.Canceled", &url.Error{Op: "Get", URL: "http://x", Err: context.Canceled}, false},
		{"a dial cut by a deadline", &net.OpError{Op: "dial", Err: context.DeadlineExceeded}, false},
		{"a status error", &statusError{status: 503}, false},
		{"a certificate error over a reset", errors.Join(&tls.CertificateVerificationError{}, reset), false},
		{"a malformed HTTP/2 response over a stream error", fmt.Errorf("h2: %w: %w", ErrProtocolViolation, http2.StreamError{StreamID: 1, Code: http2.ErrCodeProtocol}), false},
		{"a stream error", fmt.Errorf("h2: %w", http2.StreamError{StreamID: 1, Code: http2.ErrCodeProtocol}), true},
	}
	for _, c := range cases {
		if got := IsConnectionError(c.err); got != c.want {
			t.Errorf("%s: IsConnectionError(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// TestNetHTTPInternalsStillMatch checks, against this Go's own source, the two
// things IsConnectionError knows about net/http's unexported internals.
func TestNetHTTPInternalsStillMatch(t *testing.T) {
	dir := filepath.Join(build.Default.GOROOT, "src", "net", "http")
	transport, err := os.ReadFile(filepath.Join(dir, "transport.go"))
	if err != nil {
		t.Skipf("Go source not available: %v", err)
	}
	if want := `errServerClosedIdle = errors.New("` + serverClosedIdle + `")`; !strings.Contains(string(transport), want) {
		t.Errorf("net/http/transport.go no longer has %s", want)
	}
	bundle, err := os.ReadFile(filepath.Join(dir, "h2_bundle.go"))
	if err != nil {
		t.Skipf("h2_bundle.go not available: %v", err)
	}
	if want := `errors.New("` + lostPing + `")`; !strings.Contains(string(bundle), want) {
		t.Errorf("net/http/h2_bundle.go no longer has %s", want)
	}
	for _, typ := range http2ErrorTypes {
		if typ.pkgPath == "net/http" && !strings.Contains(string(bundle), "type "+typ.name+" ") {
			t.Errorf("net/http/h2_bundle.go has no type %s", typ.name)
		}
	}
}
