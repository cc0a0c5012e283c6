package vespa_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
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

// TestSendOnce_CookieJarLeavesTheSharedHeaders: an *http.Client with a
// cookie jar adds its cookies to the request's headers (net/http's
// Client.Do does); they go with that request only, never into the headers
// the client's other requests share.
func TestSendOnce_CookieJarLeavesTheSharedHeaders(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	var mu sync.Mutex
	var cookies []string
	record := func(base http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			cookies = append(cookies, r.Header.Get("Cookie"))
			mu.Unlock()
			return base.RoundTrip(r)
		})
	}
	c := newTestClient(t, srv.URL(), vespa.WithTransportWrapper(record))
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	jar.SetCookies(u, []*http.Cookie{{Name: "s", Value: "1"}})
	withJar := &http.Client{Transport: c.HTTPClient().Transport, Jar: jar,
		CheckRedirect: c.HTTPClient().CheckRedirect}
	ctx := context.Background()
	id := vespa.MustParseDocumentID("id:ns:music::h")
	body := []byte(`{"fields":{"title":"x"}}`)
	for _, hc := range []*http.Client{withJar, withJar, nil} {
		for _, kind := range []vespa.OperationKind{vespa.OpPut, vespa.OpRemove} {
			b := body
			if kind == vespa.OpRemove {
				b = nil
			}
			r, err := c.SendOnce(ctx, hc, kind, id, b, vespa.OperationOptions{})
			if err != nil || !r.OK() {
				t.Fatalf("%v: %v, %+v", kind, err, r)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"s=1", "s=1", "s=1", "s=1", "", ""}
	if !slices.Equal(cookies, want) {
		t.Errorf("Cookie headers %q, want %q", cookies, want)
	}
}
