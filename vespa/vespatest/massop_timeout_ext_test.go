package vespatest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/vespatest"
)

// TestMassOperation_slowAnswers200WithContinuation: a delete-where (or
// update-where, copy) that runs out of time is answered 200 with the
// progress so far as its continuation, never 504: Vespa's visitor session
// (min(timeChunk, visitTimeout)) ends before the request, and a mass
// operation's session does not visit inconsistent buckets, so its TIMEOUT
// falls through to SUCCESS (DocumentV1ApiHandler.visit, parseParameters).
// The client resumes with the continuation.
func TestMassOperation_slowAnswers200WithContinuation(t *testing.T) {
	s := vespatest.NewTestServer(t)
	for _, id := range []string{"id:ns:music::a", "id:ns:music::b"} {
		if err := s.PutDocument(id, json.RawMessage(`{"year":1980}`)); err != nil {
			t.Fatal(err)
		}
	}
	path := s.URL() + "/document/v1/ns/music/docid/?cluster=content&selection=" + url.QueryEscape("music.year < 1990") + "&timeout=10s&timeChunk=50ms"
	s.ScriptFaults(vespatest.OpDeleteWhere, vespatest.FaultLatency(time.Hour))
	start := time.Now()
	st, body := do(t, s.Client(), http.MethodDelete, path, "")
	if st != http.StatusOK || !strings.Contains(body, `"documentCount":0`) || !strings.Contains(body, `"continuation":"`) {
		t.Fatalf("slow delete-where: %d %s, want 200 with a continuation", st, body)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("answered after %v, not at the end of the 50 ms time chunk", took)
	}
	var page struct{ Continuation string }
	if err := json.Unmarshal([]byte(body), &page); err != nil {
		t.Fatal(err)
	}
	if st, got := do(t, s.Client(), http.MethodGet, s.URL()+"/document/v1/ns/music/docid/a", ""); st != 200 {
		t.Fatalf("the slow page removed a document: %d %s", st, got)
	}
	st, body = do(t, s.Client(), http.MethodDelete, path+"&continuation="+url.QueryEscape(page.Continuation), "")
	if st != http.StatusOK || !strings.Contains(body, `"documentCount":2`) || strings.Contains(body, "continuation") {
		t.Fatalf("resumed delete-where: %d %s, want both documents and no continuation", st, body)
	}
}
