package vespa_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// recorded is one request as a fake Vespa received it.
type recorded struct {
	Method     string
	RequestURI string
	RawPath    string // r.URL.EscapedPath()
	Query      url.Values
	Header     http.Header
	Body       []byte
	Proto      int
}

// fakeVespa is an httptest server that records every request and answers
// with the reply function.
type fakeVespa struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []recorded
	reply func(w http.ResponseWriter, r *http.Request)
}

func newFakeVespa(t testing.TB, reply func(w http.ResponseWriter, r *http.Request)) *fakeVespa {
	t.Helper()
	f := &fakeVespa{reply: reply}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeVespa) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, recorded{
		Method: r.Method, RequestURI: r.RequestURI, RawPath: r.URL.EscapedPath(),
		Query: r.URL.Query(), Header: r.Header.Clone(), Body: body, Proto: r.ProtoMajor,
	})
	f.mu.Unlock()
	if f.reply == nil {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = io.WriteString(w, `{"pathId":"`+r.URL.EscapedPath()+`","id":"x"}`)
		return
	}
	f.reply(w, r)
}

// requests returns a copy of what was received so far.
func (f *fakeVespa) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// last returns the last request; it fails the test when there is none.
func (f *fakeVespa) last(t testing.TB) recorded {
	t.Helper()
	rs := f.requests()
	if len(rs) == 0 {
		t.Fatal("the server received no request")
	}
	return rs[len(rs)-1]
}

// jsonReply answers with status and body as JSON.
func jsonReply(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}
