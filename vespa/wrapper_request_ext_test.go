package vespa_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
)

// recordingVespa answers every /document/v1 request as Vespa does and
// calls seen with each request, as the server received it.
func recordingVespa(t *testing.T, seen func(r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		seen(r)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"pathId":%q,"id":"id:ns:music::x"}`, r.URL.EscapedPath())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestWrapper_HeaderAddDoesNotPileUp: a wrapper that adds a header with
// Header.Add (as a tracer adding a request ID does) adds it to one request:
// 50 puts carry one X-Trace each. Before each request owned its headers, the
// 50th put carried 50.
func TestWrapper_HeaderAddDoesNotPileUp(t *testing.T) {
	var mu sync.Mutex
	var counts []int
	srv := recordingVespa(t, func(r *http.Request) {
		mu.Lock()
		counts = append(counts, len(r.Header.Values("X-Trace")))
		mu.Unlock()
	})
	add := func(base http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			r.Header.Add("X-Trace", "t")
			return base.RoundTrip(r)
		})
	}
	c := newTestClient(t, srv.URL, vespa.WithTransportWrapper(add))
	ctx := context.Background()
	for i := range 50 {
		id := vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: fmt.Sprint("d", i)}
		if _, err := c.Put(ctx, id, map[string]any{"n": i}, vespa.OperationOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Remove(ctx, id, vespa.OperationOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, n := range counts {
		if n != 1 {
			t.Fatalf("request %d carried %d X-Trace values, want 1", i, n)
		}
	}
}

// TestWrapper_HeaderSetUnderFeeder: under the feeder (many requests at
// once), a wrapper that sets a request ID with Header.Set sets it on that
// request only: every request reaches the server with its own ID. Before,
// the wrapper wrote the one map every request shared: under -race a data
// race, without it duplicated IDs or "fatal error: concurrent map writes".
func TestWrapper_HeaderSetUnderFeeder(t *testing.T) {
	var mu sync.Mutex
	ids := map[string]int{}
	srv := recordingVespa(t, func(r *http.Request) {
		mu.Lock()
		ids[r.Header.Get("X-Request-Id")]++
		mu.Unlock()
	})
	var next atomic.Int64
	set := func(base http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			r.Header.Set("X-Request-Id", fmt.Sprint(next.Add(1)))
			return base.RoundTrip(r)
		})
	}
	// recordingVespa is HTTP/1.1 only (httptest), and a feeder speaks
	// HTTP/2 unless told otherwise.
	c := newTestClient(t, srv.URL, vespa.WithTransportWrapper(set), vespa.WithHTTPVersion(vespa.HTTP1))
	var failed atomic.Int64
	f, err := feed.New(c, feed.Config{Connections: 4, MinInflight: 16, MaxInflight: 16,
		OnOutcome: func(_ context.Context, o feed.Outcome) {
			if !o.OK() {
				failed.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 2000
	for i := range n {
		id := vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: fmt.Sprint("d", i)}
		if err := f.Put(ctx, id, map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if failed.Load() != 0 {
		t.Fatalf("%d operations failed", failed.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for id, k := range ids {
		total += k
		if id == "" || k != 1 {
			t.Fatalf("X-Request-Id %q reached the server %d times, want once", id, k)
		}
	}
	if total < n {
		t.Fatalf("%d requests, want at least %d", total, n)
	}
}

// TestWrapper_SeesDocumentPath: the request a wrapper gets for a document
// operation is what net/http's users expect: URL.Path the decoded path,
// URL.Host the endpoint's, URL.String() the whole URL with its host, and the
// exact escaped path (an id with '/', ' ', '+' and '%') still reaches the
// server unchanged. Before, the path was in URL.Opaque only: Path was "",
// and URL.String() had no host.
func TestWrapper_SeesDocumentPath(t *testing.T) {
	var got string
	srv := recordingVespa(t, func(r *http.Request) { got = r.RequestURI })
	type view struct{ path, rawPath, host, str, uri string }
	var seen []view
	look := func(base http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			seen = append(seen, view{r.URL.Path, r.URL.EscapedPath(), r.URL.Host, r.URL.String(), r.URL.RequestURI()})
			return base.RoundTrip(r)
		})
	}
	for _, prefix := range []string{"", "/my%20prefix"} {
		seen, got = nil, ""
		c := newTestClient(t, srv.URL+prefix, vespa.WithTransportWrapper(look))
		id := vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: "a/b c+d%e"}
		if _, err := c.Put(context.Background(), id, map[string]any{"n": 1}, vespa.OperationOptions{}); err != nil {
			t.Fatal(err)
		}
		wantRaw := prefix + "/document/v1/ns/music/docid/a%2Fb%20c%2Bd%25e"
		wantPath := strings.ReplaceAll(prefix, "%20", " ") + "/document/v1/ns/music/docid/a/b c+d%e"
		if len(seen) != 1 {
			t.Fatalf("%d requests seen", len(seen))
		}
		v := seen[0]
		host := strings.TrimPrefix(srv.URL, "http://")
		if v.path != wantPath || v.rawPath != wantRaw || v.host != host {
			t.Errorf("wrapper saw Path %q EscapedPath %q Host %q, want %q %q %q", v.path, v.rawPath, v.host, wantPath, wantRaw, host)
		}
		if noQuery(v.str) != srv.URL+wantRaw {
			t.Errorf("URL.String() = %q, want %s", v.str, srv.URL+wantRaw)
		}
		if noQuery(got) != wantRaw || got != v.uri {
			t.Errorf("server got %q, wrapper's RequestURI %q, want %s", got, v.uri, wantRaw)
		}
	}
}

func noQuery(s string) string {
	s, _, _ = strings.Cut(s, "?")
	return s
}
