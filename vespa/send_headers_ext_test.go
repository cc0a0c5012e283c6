package vespa_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestSendOnce_HeadersOfEachRequest: the fixed headers go with every
// request, a request's own headers with that request only, and a put's
// Content-Type never with a remove.
func TestSendOnce_HeadersOfEachRequest(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	var mu sync.Mutex
	var seen []http.Header
	record := func(base http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			seen = append(seen, r.Header.Clone())
			mu.Unlock()
			return base.RoundTrip(r)
		})
	}
	c := newTestClient(t, srv.URL(), vespa.WithHTTPVersion(vespa.HTTP2), vespa.WithUserAgent("ua/1"),
		vespa.WithHeader("X-Fixed", "f"), vespa.WithTransportWrapper(record))
	ctx := context.Background()
	id := vespa.MustParseDocumentID("id:ns:music::h")
	body := []byte(`{"fields":{"title":"x"}}`)
	steps := []struct {
		kind vespa.OperationKind
		opts vespa.OperationOptions
	}{
		{vespa.OpPut, vespa.OperationOptions{}},
		{vespa.OpPut, vespa.OperationOptions{Header: http.Header{"X-Req": {"1"}}}},
		{vespa.OpPut, vespa.OperationOptions{}},
		{vespa.OpRemove, vespa.OperationOptions{}},
		{vespa.OpPut, vespa.OperationOptions{Gzip: true}},
		{vespa.OpPut, vespa.OperationOptions{}},
	}
	for _, s := range steps {
		b := body
		if s.kind == vespa.OpRemove {
			b = nil
		}
		r, err := c.SendOnce(ctx, nil, s.kind, id, b, s.opts)
		if err != nil || !r.OK() {
			t.Fatalf("%v: %v, %+v", s.kind, err, r)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(steps) {
		t.Fatalf("%d requests seen, want %d", len(seen), len(steps))
	}
	for i, h := range seen {
		s := steps[i]
		if h.Get("User-Agent") != "ua/1" || h.Get("X-Fixed") != "f" {
			t.Errorf("request %d: fixed headers missing: %v", i, h)
		}
		if got, want := h.Get("X-Req"), s.opts.Header.Get("X-Req"); got != want {
			t.Errorf("request %d: X-Req %q, want %q", i, got, want)
		}
		if got := h.Get("Content-Type") != ""; got != (s.kind == vespa.OpPut) {
			t.Errorf("request %d (%v): Content-Type %q", i, s.kind, h.Get("Content-Type"))
		}
		if got := h.Get("Content-Encoding") == "gzip"; got != s.opts.Gzip {
			t.Errorf("request %d: Content-Encoding %q", i, h.Get("Content-Encoding"))
		}
	}
}
