package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/retries"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const okBody = `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":1},` +
	`"coverage":{"coverage":100,"documents":1,"full":true,"nodes":1,"results":1,"resultsFull":1},` +
	`"children":[{"id":"id:ns:music::a","relevance":0.5,"source":"music","fields":{"title":"A"}}]}}`

// captured is one request a test server received.
type captured struct {
	method, path, contentType string
	query                     url.Values
	body                      map[string]any
}

// newServer starts a server that records requests and answers with status
// and body; it returns a query client for it.
func newServer(t *testing.T, status int, body string, opts ...query.Option) (*query.Client, chan captured) {
	t.Helper()
	reqs := make(chan captured, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := captured{method: r.Method, path: r.URL.Path, contentType: r.Header.Get("Content-Type"), query: r.URL.Query()}
		if b, _ := io.ReadAll(r.Body); len(b) > 0 {
			if err := json.Unmarshal(b, &c.body); err != nil {
				t.Errorf("request body %q: %v", b, err)
			}
		}
		reqs <- c
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return newClient(t, srv.URL, opts...), reqs
}

// newClient returns a query client of endpoint on a vespa.Client that is
// closed when the test ends.
func newClient(tb testing.TB, endpoint string, opts ...query.Option) *query.Client {
	tb.Helper()
	qc, err := query.New(vespaClient(tb, endpoint), opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return qc
}

func fullRequest(get bool) *query.Request {
	return &query.Request{
		YQL:        `select * from music where userInput(@text)`,
		Query:      "a+b c",
		Hits:       20,
		Offset:     5,
		Ranking:    "semantic",
		Timeout:    1500 * time.Microsecond,
		Inputs:     map[string]any{"q": []float32{1, 2.5}, "query(p)": "{{cat:pop}:0.8}", "w": map[string]float64{"a": 1}},
		Summary:    "short",
		Timing:     true,
		TraceLevel: 3,
		Params: map[string]any{
			"text":    "heads & tails",
			"ranking": map[string]any{"matching": map[string]any{"numThreadsPerSearch": 2}, "profile": "loses"},
			"model":   map[string]any{"restrict": "music"},
			"list":    []int{1, 2},
		},
		GET: get,
	}
}

func TestSearch_PostSendsEveryOption(t *testing.T) {
	qc, reqs := newServer(t, 200, okBody)
	r, err := qc.Search(context.Background(), fullRequest(false))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 200 || len(r.Hits) != 1 || r.TotalCount != 1 {
		t.Errorf("result %+v", r)
	}
	c := <-reqs
	if c.method != "POST" || c.path != "/search/" || c.contentType != "application/json" || len(c.query) != 0 {
		t.Errorf("request %+v", c)
	}
	want := map[string]any{
		"yql": `select * from music where userInput(@text)`, "query": "a+b c", "hits": 20.0, "offset": 5.0,
		"ranking.profile": "semantic", "timeout": "2ms", "presentation.summary": "short", "presentation.timing": true,
		"trace.level": 3.0, "text": "heads & tails", "ranking.matching.numThreadsPerSearch": 2.0, "model.restrict": "music",
	}
	for k, v := range want {
		if c.body[k] != v {
			t.Errorf("body[%q] = %#v, want %#v", k, c.body[k], v)
		}
	}
	if l, _ := json.Marshal(c.body["list"]); string(l) != "[1,2]" {
		t.Errorf("list %s", l)
	}
	// Inputs travel as flat input.query(x) names, which Vespa reads as the
	// same parameters as a GET's (objects under input.* stay JSON).
	for k, v := range map[string]string{"input.query(p)": `"{{cat:pop}:0.8}"`, "input.query(q)": "[1,2.5]", "input.query(w)": `{"a":1}`} {
		if in, _ := json.Marshal(c.body[k]); string(in) != v {
			t.Errorf("%s %s, want %s", k, in, v)
		}
	}
	if len(c.body) != len(want)+4 {
		t.Errorf("body has extra keys: %v", c.body)
	}
}

func TestSearch_GetSendsEveryOption(t *testing.T) {
	qc, reqs := newServer(t, 200, okBody)
	if _, err := qc.Search(context.Background(), fullRequest(true)); err != nil {
		t.Fatal(err)
	}
	c := <-reqs
	if c.method != "GET" || c.body != nil {
		t.Errorf("request %+v", c)
	}
	want := url.Values{
		"yql": {`select * from music where userInput(@text)`}, "query": {"a+b c"}, "hits": {"20"}, "offset": {"5"},
		"ranking.profile": {"semantic"}, "timeout": {"2ms"}, "presentation.summary": {"short"},
		"presentation.timing": {"true"}, "trace.level": {"3"}, "text": {"heads & tails"},
		"ranking.matching.numThreadsPerSearch": {"2"}, "model.restrict": {"music"}, "list": {"[1,2]"},
		"input.query(q)": {"[1,2.5]"}, "input.query(p)": {"{{cat:pop}:0.8}"}, "input.query(w)": {`{"a":1}`},
	}
	for k, v := range want {
		if c.query.Get(k) != v[0] {
			t.Errorf("%s = %q, want %q", k, c.query.Get(k), v[0])
		}
	}
	if len(c.query) != len(want) {
		t.Errorf("query has %d params, want %d: %v", len(c.query), len(want), c.query)
	}
}

func TestSearch_HitsZeroAndDefaults(t *testing.T) {
	qc, reqs := newServer(t, 200, okBody)
	for _, tc := range []struct {
		req  query.Request
		want string
	}{
		{query.Request{YQL: "select * from sources * where true"}, `{"yql":"select * from sources * where true"}`},
		{query.Request{YQL: "y", Hits: query.NoHits}, `{"hits":0,"yql":"y"}`},
	} {
		if _, err := qc.Search(context.Background(), &tc.req); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal((<-reqs).body)
		if string(got) != tc.want {
			t.Errorf("body %s, want %s", got, tc.want)
		}
	}
}

func TestSearch_InvalidRequests(t *testing.T) {
	qc, _ := newServer(t, 200, okBody)
	for name, req := range map[string]*query.Request{
		"nil":            nil,
		"negative hits":  {Hits: -2},
		"negative off":   {Offset: -1},
		"negative tmo":   {Timeout: -time.Second},
		"bad input name": {Inputs: map[string]any{"a b": 1}},
		"nil input":      {Inputs: map[string]any{"a": nil}},
		"nil param":      {Params: map[string]any{"a": nil}},
		"bad param json": {Params: map[string]any{"a": func() {}}},
	} {
		if _, err := qc.Search(context.Background(), req); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestNew_Options(t *testing.T) {
	vc, err := vespa.NewClient("http://127.0.0.1:1/prefix/")
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	if _, err := query.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
	if _, err := query.New(vc, query.WithPath("search")); err == nil {
		t.Error("relative path accepted")
	}
	if _, err := query.New(vc, query.WithHTTPClient(nil)); err == nil {
		t.Error("nil http client accepted")
	}
	if _, err := query.New(vc, query.WithRetryPolicy(retries.Query.WithMaxAttempts(0))); err == nil {
		t.Error("invalid policy accepted")
	}
	qc, err := query.New(vc, query.WithPath("/s/"))
	if err != nil || !strings.Contains(qc.String(), "http://127.0.0.1:1/prefix/s/") {
		t.Errorf("%v %v", qc, err)
	}
}

func TestSearch_EndpointPathAndCustomHTTPClient(t *testing.T) {
	var path atomic.Value
	var viaCustom atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path.Store(r.URL.Path)
		viaCustom.Store(r.Header.Get("X-Custom") == "1")
		io.WriteString(w, okBody)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: testutil.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		r.Header.Set("X-Custom", "1")
		return http.DefaultTransport.RoundTrip(r)
	})}
	qc := newClient(t, srv.URL+"/app/", query.WithHTTPClient(hc))
	if _, err := qc.Search(context.Background(), &query.Request{YQL: "y"}); err != nil {
		t.Fatal(err)
	}
	if path.Load() != "/app/search/" || !viaCustom.Load() {
		t.Errorf("path %v custom %v", path.Load(), viaCustom.Load())
	}
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
}

func TestSearch_TransportErrorsAreRetriedResponsesAreNot(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			// Drop the connection without an answer: a transport failure.
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":0},"errors":[{"code":0,"summary":"No backends in service. Try later"}]}}`)
	}))
	defer srv.Close()
	fast := retries.Query.WithWait(retries.WaitNone())
	qc := newClient(t, srv.URL, query.WithRetryPolicy(fast))
	r, err := qc.Search(context.Background(), &query.Request{YQL: "y"})
	if calls.Load() != 2 {
		t.Errorf("%d calls, want 2 (one retry after the dropped connection, none after the 503)", calls.Load())
	}
	if !errors.Is(err, vespa.ErrUnavailable) || r == nil || r.Errors[0].Code != query.CodeNoBackendsInService {
		t.Errorf("err %v, result %+v", err, r)
	}
}

func TestSearch_TransportFailureAndCancel(t *testing.T) {
	addr := testutil.FreeLoopbackAddr(t)
	qc := newClient(t, "http://"+addr, query.WithRetryPolicy(retries.Query.WithMaxAttempts(2).WithWait(retries.WaitNone())))
	_, err := qc.Search(context.Background(), &query.Request{YQL: "y"})
	var ve *vespa.Error
	if !errors.As(err, &ve) || ve.Status != 0 || ve.Err == nil {
		t.Errorf("transport failure: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	qc2, _ := newServer(t, 200, okBody)
	if _, err := qc2.Search(ctx, &query.Request{YQL: "y"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
