package vespa_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
)

// newTestClient returns a client of url that is closed when the test or
// benchmark ends.
func newTestClient(tb testing.TB, url string, opts ...vespa.Option) *vespa.Client {
	tb.Helper()
	c, err := vespa.NewClient(url, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// newHandlerClient serves h on a loopback server and returns a client of it;
// both are closed when the test ends, the client first.
func newHandlerClient(t *testing.T, h http.Handler, opts ...vespa.Option) *vespa.Client {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return newTestClient(t, hs.URL, opts...)
}

// noWait is the default sync policy without its waits, so retry tests are
// instant.
var noWait = vespa.WithRetryPolicy(retries.SyncRequest.WithWait(retries.WaitNone()))

func TestClient_Put(t *testing.T) {
	type song struct {
		Title string `json:"title"`
		Year  int    `json:"year,omitempty"`
	}
	tests := []struct {
		name   string
		fields any
		body   string
	}{
		{"struct", song{Title: "Yellow", Year: 2000}, `{"fields":{"title":"Yellow","year":2000}}`},
		{"map", map[string]any{"title": "Yellow"}, `{"fields":{"title":"Yellow"}}`},
		{"json.RawMessage", json.RawMessage(` {"title":"Yellow"} `), `{"fields":{"title":"Yellow"}}`},
		{"[]byte", []byte(`{"n":1}`), `{"fields":{"n":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeVespa(t, nil)
			c := newTestClient(t, srv.URL)
			res, err := c.Put(context.Background(), testID, tt.fields, vespa.OperationOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := srv.last(t)
			if got.Method != http.MethodPost || got.RequestURI != "/document/v1/ns/music/docid/a" {
				t.Errorf("sent %s %s", got.Method, got.RequestURI)
			}
			if string(got.Body) != tt.body {
				t.Errorf("body %s, want %s", got.Body, tt.body)
			}
			if ct := got.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			if res.Status != 200 || res.ID != testID || res.PathID != "/document/v1/ns/music/docid/a" {
				t.Errorf("result %+v", res)
			}
		})
	}
	t.Run("fields that are not an object are refused before sending", func(t *testing.T) {
		srv := newFakeVespa(t, nil)
		c := newTestClient(t, srv.URL)
		for op, send := range map[string]func(context.Context, vespa.DocumentID, any, vespa.OperationOptions) (*vespa.Result, error){"put": c.Put, "update": c.Update} {
			for _, f := range []any{nil, []int{1}, json.RawMessage(`{"a":`), "x", make(chan int)} {
				_, err := send(context.Background(), testID, f, vespa.OperationOptions{})
				var ee *vespa.EncodeError
				if !errors.As(err, &ee) || !errors.Is(err, vespa.ErrInvalidDocument) || ee.Op != op || ee.ID != testID.String() {
					t.Errorf("%s(%v) = %v, want a %s *EncodeError of %s", op, f, err, op, testID)
				}
			}
		}
		if n := len(srv.requests()); n != 0 {
			t.Errorf("%d requests sent", n)
		}
	})
}

func TestClient_OperationOptions(t *testing.T) {
	all := vespa.OperationOptions{
		Condition: "music.year > 2000", Create: true, Route: "default-get", Timeout: 1500 * time.Millisecond,
		TraceLevel: 3, FieldSet: "music:title", Cluster: "content", DryRun: true, TensorFormat: "long",
	}
	tests := []struct {
		op   string
		want string // the query Vespa gets, sorted
	}{
		{"put", "condition=music.year+%3E+2000&create=true&dryRun=true&route=default-get&timeout=1500ms&tracelevel=3"},
		{"update", "condition=music.year+%3E+2000&create=true&dryRun=true&route=default-get&timeout=1500ms&tracelevel=3"},
		{"remove", "condition=music.year+%3E+2000&dryRun=true&route=default-get&timeout=1500ms&tracelevel=3"},
		{"get", "cluster=content&fieldSet=music%3Atitle&format.tensors=long&timeout=1500ms&tracelevel=3"},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			srv := newFakeVespa(t, nil)
			c := newTestClient(t, srv.URL)
			ctx := context.Background()
			var err error
			switch tt.op {
			case "put":
				_, err = c.Put(ctx, testID, map[string]int{"a": 1}, all)
			case "update":
				_, err = c.Update(ctx, testID, vespa.NewUpdate().Increment("a", 1), all)
			case "remove":
				_, err = c.Remove(ctx, testID, all)
			case "get":
				_, err = c.Get(ctx, testID, all)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := srv.last(t)
			if q := sortedQuery(got.Query); q != tt.want {
				t.Errorf("query\n got %s\nwant %s", q, tt.want)
			}
		})
	}
	t.Run("zero options send no parameters", func(t *testing.T) {
		srv := newFakeVespa(t, nil)
		c := newTestClient(t, srv.URL)
		if _, err := c.Put(context.Background(), testID, map[string]int{"a": 1}, vespa.OperationOptions{}); err != nil {
			t.Fatal(err)
		}
		if q := srv.last(t).Query; len(q) != 0 {
			t.Errorf("query %v", q)
		}
	})
	t.Run("the client's default timeout", func(t *testing.T) {
		srv := newFakeVespa(t, nil)
		c := newTestClient(t, srv.URL, vespa.WithTimeout(2*time.Second))
		if _, err := c.Remove(context.Background(), testID, vespa.OperationOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Remove(context.Background(), testID, vespa.OperationOptions{Timeout: 250 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		rs := srv.requests()
		if rs[0].Query.Get("timeout") != "2000ms" || rs[1].Query.Get("timeout") != "250ms" {
			t.Errorf("timeouts %q, %q", rs[0].Query.Get("timeout"), rs[1].Query.Get("timeout"))
		}
	})
}

func sortedQuery(q url.Values) string { return q.Encode() }

func TestClient_Deadline(t *testing.T) {
	if got := vespa.ClientDeadline(10 * time.Second); got != 12*time.Second {
		t.Errorf("deadline for 10s = %v, want 12s (1.1×t + 1s)", got)
	}
	if got := vespa.ClientDeadline(0); got != 190*time.Second {
		t.Errorf("deadline without timeout = %v, want 190s", got)
	}
	var deadline time.Time
	rt := testutil.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		deadline, _ = r.Context().Deadline()
		return jsonResponse(200, `{"pathId":"/document/v1/ns/music/docid/a","id":"id:ns:music::a"}`), nil
	})
	c := newTestClient(t, "http://localhost:8080", vespa.WithBaseTransport(rt))
	start := time.Now()
	if _, err := c.Get(context.Background(), testID, vespa.OperationOptions{Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if d := deadline.Sub(start); d < 11*time.Second || d > 13*time.Second {
		t.Errorf("request deadline in %v, want about 12s", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	want, _ := ctx.Deadline()
	if _, err := c.Get(ctx, testID, vespa.OperationOptions{Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if !deadline.Equal(want) {
		t.Errorf("the caller's earlier deadline was not kept: %v vs %v", deadline, want)
	}
}

func TestClient_Gzip(t *testing.T) {
	srv := newFakeVespa(t, nil)
	c := newTestClient(t, srv.URL)
	if _, err := c.Put(context.Background(), testID, map[string]string{"t": strings.Repeat("x", 1000)}, vespa.OperationOptions{Gzip: true}); err != nil {
		t.Fatal(err)
	}
	got := srv.last(t)
	if got.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q", got.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(got.Body))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if want := `{"fields":{"t":"` + strings.Repeat("x", 1000) + `"}}`; string(plain) != want {
		t.Errorf("inflated body %.60s...", plain)
	}
}

func TestClient_GetInto(t *testing.T) {
	type song struct {
		Title string   `json:"title"`
		Tags  []string `json:"tags"`
	}
	srv := newFakeVespa(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/missing") {
			jsonReply(404, `{"pathId":"/document/v1/ns/music/docid/missing","id":"id:ns:music::missing"}`)(w, r)
			return
		}
		jsonReply(200, `{"pathId":"/document/v1/ns/music/docid/a","id":"id:ns:music::a","fields":{"title":"Yellow","tags":["x","y"]}}`)(w, r)
	})
	c := newTestClient(t, srv.URL)
	s, res, err := vespa.GetInto[song](context.Background(), c, testID, vespa.OperationOptions{FieldSet: "music:title,tags"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Yellow" || len(s.Tags) != 2 || res.ServerID != "id:ns:music::a" {
		t.Errorf("got %+v, %+v", s, res)
	}
	if srv.last(t).Method != http.MethodGet {
		t.Errorf("method %s", srv.last(t).Method)
	}
	m, _, err := vespa.GetInto[map[string]any](context.Background(), c, testID, vespa.OperationOptions{})
	if err != nil || m["title"] != "Yellow" {
		t.Errorf("map: %v, %v", m, err)
	}
	missing := vespa.MustParseDocumentID("id:ns:music::missing")
	s, res, err = vespa.GetInto[song](context.Background(), c, missing, vespa.OperationOptions{})
	if !errors.Is(err, vespa.ErrNotFound) || s.Title != "" || res == nil || res.Status != 404 {
		t.Errorf("missing document: %+v, %+v, %v", s, res, err)
	}
	_, _, err = vespa.GetInto[int](context.Background(), c, testID, vespa.OperationOptions{})
	if err == nil || !strings.Contains(err.Error(), "decoding fields") {
		t.Errorf("decoding into int: %v", err)
	}
}

func TestClient_UpdateAndRemove(t *testing.T) {
	srv := newFakeVespa(t, nil)
	c := newTestClient(t, srv.URL)
	ctx := context.Background()
	if _, err := c.Update(ctx, testID, vespa.NewUpdate().Assign("title", "x"), vespa.OperationOptions{Create: true}); err != nil {
		t.Fatal(err)
	}
	got := srv.last(t)
	if got.Method != http.MethodPut || string(got.Body) != `{"fields":{"title":{"assign":"x"}}}` || got.Query.Get("create") != "true" {
		t.Errorf("update sent %s %s %s", got.Method, got.RequestURI, got.Body)
	}
	for _, raw := range []any{json.RawMessage(`{"fields":{"n":{"increment":1}}}`), []byte(`{"fields":{"n":{"increment":1}}}`), map[string]any{"fields": map[string]any{"n": map[string]int{"increment": 1}}}} {
		if _, err := c.Update(ctx, testID, raw, vespa.OperationOptions{}); err != nil {
			t.Fatal(err)
		}
		if b := string(srv.last(t).Body); b != `{"fields":{"n":{"increment":1}}}` {
			t.Errorf("raw update sent %s", b)
		}
	}
	if _, err := c.Update(ctx, testID, vespa.NewUpdate(), vespa.OperationOptions{}); err == nil {
		t.Error("an empty update was sent")
	}
	if _, err := c.Remove(ctx, testID, vespa.OperationOptions{Condition: "false"}); err != nil {
		t.Fatal(err)
	}
	got = srv.last(t)
	if got.Method != http.MethodDelete || len(got.Body) != 0 || got.Query.Get("condition") != "false" {
		t.Errorf("remove sent %s %s %q", got.Method, got.RequestURI, got.Body)
	}
}

func TestClient_InvalidIDIsNotSent(t *testing.T) {
	srv := newFakeVespa(t, nil)
	c := newTestClient(t, srv.URL)
	for _, id := range []vespa.DocumentID{{}, {Namespace: "ns", DocType: "t", Group: "a:b", UserSpecific: "x"}, {Namespace: "ns", DocType: "t", UserSpecific: ".."}} {
		if _, err := c.Get(context.Background(), id, vespa.OperationOptions{}); !errors.Is(err, vespa.ErrInvalidDocumentID) {
			t.Errorf("Get(%+v) = %v", id, err)
		}
		if _, err := c.SendOnce(context.Background(), nil, vespa.OpRemove, id, nil, vespa.OperationOptions{}); !errors.Is(err, vespa.ErrInvalidDocumentID) {
			t.Errorf("SendOnce(%+v) = %v", id, err)
		}
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestClient_Retries(t *testing.T) {
	t.Run("429 is retried with the whole body each time", func(t *testing.T) {
		var n atomic.Int32
		srv := newFakeVespa(t, func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) < 3 {
				w.Header().Set("Retry-After", "0")
				jsonReply(429, `{"pathId":"p","message":"Rejecting execution due to overload"}`)(w, r)
				return
			}
			jsonReply(200, `{"pathId":"p","id":"id:ns:music::a"}`)(w, r)
		})
		c := newTestClient(t, srv.URL, noWait)
		res, err := c.Put(context.Background(), testID, map[string]int{"a": 1}, vespa.OperationOptions{})
		if err != nil || res.Status != 200 {
			t.Fatalf("Put = %v, %v", res, err)
		}
		rs := srv.requests()
		if len(rs) != 3 {
			t.Fatalf("%d attempts, want 3", len(rs))
		}
		for _, r := range rs {
			if string(r.Body) != `{"fields":{"a":1}}` {
				t.Errorf("attempt sent body %q", r.Body)
			}
		}
	})
	t.Run("429 until attempts run out", func(t *testing.T) {
		srv := newFakeVespa(t, jsonReply(429, `{"pathId":"p","message":"overload"}`))
		c := newTestClient(t, srv.URL, noWait, vespa.WithRetryAttempts(4))
		res, err := c.Remove(context.Background(), testID, vespa.OperationOptions{})
		if !errors.Is(err, vespa.ErrTooManyRequests) || res == nil || res.Status != 429 {
			t.Fatalf("Remove = %v, %v", res, err)
		}
		if n := len(srv.requests()); n != 4 {
			t.Errorf("%d attempts, want 4", n)
		}
	})
	t.Run("final statuses are not retried", func(t *testing.T) {
		for _, status := range []int{400, 412, 413, 500, 502, 503, 504, 507} {
			srv := newFakeVespa(t, jsonReply(status, `{"pathId":"p","message":"m"}`))
			c := newTestClient(t, srv.URL, noWait)
			if _, err := c.Put(context.Background(), testID, map[string]int{"a": 1}, vespa.OperationOptions{}); err == nil {
				t.Errorf("%d: no error", status)
			}
			if n := len(srv.requests()); n != 1 {
				t.Errorf("%d: %d attempts", status, n)
			}
		}
	})
	t.Run("connection errors are retried", func(t *testing.T) {
		var n atomic.Int32
		rt := testutil.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
			if n.Add(1) == 1 {
				return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
			}
			return jsonResponse(200, `{"id":"id:ns:music::a"}`), nil
		})
		c := newTestClient(t, "http://localhost:8080", noWait, vespa.WithBaseTransport(rt))
		if _, err := c.Get(context.Background(), testID, vespa.OperationOptions{}); err != nil {
			t.Fatal(err)
		}
		if n.Load() != 2 {
			t.Errorf("%d attempts", n.Load())
		}
	})
}

func TestClient_ContextCanceled(t *testing.T) {
	srv := newFakeVespa(t, nil)
	c := newTestClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Put(ctx, testID, map[string]int{"a": 1}, vespa.OperationOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var ve *vespa.Error
	if !errors.As(err, &ve) || ve.Status != 0 || ve.Op != "put" {
		t.Errorf("err = %#v", err)
	}
}

func TestSendOnce(t *testing.T) {
	srv := newFakeVespa(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Vespa-Ignored-Fields", "true")
		w.Header().Set("Retry-After", "7")
		jsonReply(429, `{"pathId":"/p","id":"id:ns:music::a","trace":[{"message":"t"}],"message":"busy"}`)(w, r)
	})
	c := newTestClient(t, srv.URL)
	hc := c.NewHTTPClient()
	res, err := c.SendOnce(context.Background(), hc, vespa.OpUpdate, testID, []byte(`{"fields":{}}`), vespa.OperationOptions{TraceLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != 429 || res.Message != "busy" || string(res.Trace) != `[{"message":"t"}]` || !res.IgnoredFields || res.OK() {
		t.Errorf("result %+v", res)
	}
	if d, ok := res.RetryAfter(); !ok || d != 7*time.Second {
		t.Errorf("RetryAfter = %v, %v", d, ok)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("SendOnce sent %d requests", n)
	}
	if _, err := c.SendOnce(context.Background(), nil, vespa.OperationKind(42), testID, nil, vespa.OperationOptions{}); err == nil {
		t.Error("unknown kind accepted")
	}
}

func TestOperationKind_String(t *testing.T) {
	for k, want := range map[vespa.OperationKind][2]string{
		vespa.OpPut: {"put", "POST"}, vespa.OpUpdate: {"update", "PUT"}, vespa.OpRemove: {"remove", "DELETE"}, vespa.OpGet: {"get", "GET"},
	} {
		if k.String() != want[0] || k.Method() != want[1] {
			t.Errorf("%d: %s %s", k, k.String(), k.Method())
		}
	}
	if vespa.OperationKind(9).String() != "OperationKind(9)" {
		t.Error(vespa.OperationKind(9).String())
	}
}

// TestEnums_String checks the names of the package's other enumerations,
// and that a value without one (negative, or past the last) prints as
// Type(n).
func TestEnums_String(t *testing.T) {
	for _, c := range []struct {
		v    fmt.Stringer
		want string
	}{
		{vespa.HTTPAuto, "auto"}, {vespa.HTTP1, "1.1"}, {vespa.HTTP2, "2"}, {vespa.HTTPVersion(3), "HTTPVersion(3)"},
		{vespa.HTTP2Batching, "batching"}, {vespa.HTTP2NetHTTP, "net/http"}, {vespa.HTTP2Transport(-1), "HTTP2Transport(-1)"},
		{vespa.NotConditionFailure, "not a condition failure"}, {vespa.ConditionFalse, "condition false"},
		{vespa.DocumentMissing, "document missing"}, {vespa.ConditionUnknown, "condition failed, reason unknown"},
		{vespa.ConditionFailure(4), "ConditionFailure(4)"}, {vespa.OperationKind(-2), "OperationKind(-2)"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%s, want %s", got, c.want)
		}
	}
}

func jsonResponse(status int, body string) *http.Response {
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json")
	rec.WriteHeader(status)
	_, _ = rec.WriteString(body)
	return rec.Result()
}
