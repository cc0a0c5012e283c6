package testutil

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"syscall"
)

// RoundTripFunc is a fake transport, for the edge cases a server cannot
// produce (a transport error, a body that fails mid-read).
type RoundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// HandlerTransport serves requests in-process with Handler, as a server
// would see them (Host: req.Host, else the URL's; RequestURI, the URL
// parsed from it as net/http's server does, so that an opaque path reads as
// a path; a loopback RemoteAddr; a non-nil body): for tests under
// testing/synctest, where a real listener cannot run. A handler that panics with http.ErrAbortHandler
// (a dropped connection) gives a connection reset; a request whose context
// has ended gets its error and no response, as from net/http.
type HandlerTransport struct{ Handler http.Handler }

// RoundTrip serves req with t.Handler.
func (t HandlerTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	uri := req.URL.RequestURI()
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		return nil, err
	}
	in := req.Clone(req.Context())
	if in.Host == "" { // the Host header net/http's client sends
		in.Host = req.URL.Host
	}
	in.RequestURI, in.URL, in.RemoteAddr = uri, u, "127.0.0.1:9"
	if in.Body == nil {
		in.Body = http.NoBody
	}
	defer func() {
		if r := recover(); r != nil {
			if r != http.ErrAbortHandler { //nolint:errorlint // a recovered value, compared as net/http's server does
				panic(r)
			}
			resp, err = nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
		}
	}()
	rec := httptest.NewRecorder()
	t.Handler.ServeHTTP(rec, in)
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	return rec.Result(), nil
}
