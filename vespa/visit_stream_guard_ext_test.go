package vespa_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
)

// hangingStreamServer answers as Vespa's document/v1 handler does
// (DocumentV1ApiHandler.visit calls onStart, which for a streamed visit
// commits 200 before the visitor session parses the selection; a selection
// that does not parse then leaves the streamed answer open for good): a
// streamed page is 200 and then nothing until the client goes away, an
// unstreamed page with the bad selection is a prompt 400, any other
// unstreamed page is one document and a continuation, and a streamed page
// after it is one document and the end. It records each page's query.
type hangingStreamServer struct {
	mu      sync.Mutex
	queries []string
}

const badSelection = "music.year ==" // balanced, so only Vespa's parser can refuse it

func (s *hangingStreamServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.queries = append(s.queries, r.URL.RawQuery)
	s.mu.Unlock()
	switch {
	case q.Get("stream") == "true" && q.Get("selection") == badSelection:
		w.Header().Set("Content-Type", "application/jsonl; charset=UTF-8")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the page that will not come
	case q.Get("selection") == badSelection:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"pathId":"/document/v1/ns/music/docid","message":"Failed to parse expression: music.year =="}`)
	case q.Get("stream") == "true":
		w.Header().Set("Content-Type", "application/jsonl; charset=UTF-8")
		_, _ = io.WriteString(w, `{"put":"id:ns:music::b","fields":{}}`+"\n"+`{"continuation":{"percentFinished":100.0}}`+"\n")
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"pathId":"/document/v1/ns/music/docid","documents":[{"id":"id:ns:music::a","fields":{}}],"documentCount":1,"continuation":"AAAA"}`)
	}
}

func (s *hangingStreamServer) pages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

// TestVisit_StreamBadSelectionFailsAtOnce: a streamed visit whose selection
// Vespa cannot parse ends with Vespa's 400, not by waiting for a streamed
// page that never ends. Before the guard, the first page was streamed and
// the visit waited out the client's deadline for it (1.1×10 s + 1 s),
// failing with context.DeadlineExceeded.
func TestVisit_StreamBadSelectionFailsAtOnce(t *testing.T) {
	srv := &hangingStreamServer{}
	c := newHandlerClient(t, srv, visitFastRetries)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var last error
	docs := 0
	for _, err := range c.Visit(ctx, vespa.VisitRequest{Namespace: "ns", DocType: "music", Selection: badSelection, Stream: true, Slices: 2, Timeout: 10 * time.Second}) {
		if err != nil {
			last = err
			continue
		}
		docs++
	}
	var ve *vespa.Error
	if !errors.As(last, &ve) || ve.Status != http.StatusBadRequest || errors.Is(last, context.DeadlineExceeded) {
		t.Fatalf("visit ended with %v, want Vespa's 400 for the selection", last)
	}
	if docs != 0 {
		t.Errorf("%d documents from a visit whose selection does not parse", docs)
	}
	for _, q := range srv.pages() {
		if got := mustQuery(t, q).Get("stream"); got != "" {
			t.Errorf("page %s was streamed before Vespa had accepted the selection", q)
		}
	}
}

// TestVisit_StreamAfterFirstPage: once a chain's first page has been
// answered (unstreamed), its later pages are streamed.
func TestVisit_StreamAfterFirstPage(t *testing.T) {
	srv := &hangingStreamServer{}
	c := newHandlerClient(t, srv, visitFastRetries)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	got := collect(t, c.Visit(ctx, vespa.VisitRequest{Namespace: "ns", DocType: "music", Stream: true, Slices: 1}))
	if len(got) != 2 || got["id:ns:music::a"] != 1 || got["id:ns:music::b"] != 1 {
		t.Errorf("documents %v, want a (first page) and b (streamed page) once each", got)
	}
	pages := srv.pages()
	if len(pages) != 2 {
		t.Fatalf("pages %v, want 2", pages)
	}
	if first, second := mustQuery(t, pages[0]), mustQuery(t, pages[1]); first.Get("stream") != "" || second.Get("stream") != "true" || second.Get("continuation") != "AAAA" {
		t.Errorf("pages %v: want the first unstreamed, the second streamed from its continuation", pages)
	}
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("page query %q: %v", raw, err)
	}
	return q
}
