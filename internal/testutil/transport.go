package testutil

import (
	"net/http"
	"net/http/httptest"
)

// RoundTripFunc is a fake transport, for the edge cases a server cannot
// produce (a transport error, a body that fails mid-read).
type RoundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// HandlerTransport serves requests in-process with Handler, as a server
// would see them (Host, RequestURI, a path-only URL, a non-nil body): for
// tests under testing/synctest, where a real listener cannot run. A request
// whose context has ended gets its error and no response, as from net/http.
type HandlerTransport struct{ Handler http.Handler }

// RoundTrip serves req with t.Handler.
func (t HandlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	in := req.Clone(req.Context())
	in.Host = req.URL.Host
	in.RequestURI = req.URL.RequestURI()
	u := *req.URL
	u.Scheme, u.Host = "", ""
	in.URL = &u
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	t.Handler.ServeHTTP(rec, in)
	if req.Body != nil {
		_ = req.Body.Close()
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	return rec.Result(), nil
}
