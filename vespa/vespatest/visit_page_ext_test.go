package vespatest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

// visitPages follows a visit's continuations from query and returns each
// page's documentCount and whether it had a continuation.
func visitPages(t *testing.T, s *vespatest.Server, query string) (counts []int, more []bool) {
	t.Helper()
	cont := ""
	for range 10000 { // bounded: the corpora below need far fewer pages
		q := query
		if cont != "" {
			q += "&continuation=" + url.QueryEscape(cont)
		}
		status, body, _ := get(t, s, "/document/v1/ns/music/docid?"+q)
		if status != http.StatusOK {
			t.Fatalf("status %d: %s", status, body)
		}
		var page struct {
			DocumentCount int    `json:"documentCount"`
			Continuation  string `json:"continuation"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		counts, more = append(counts, page.DocumentCount), append(more, page.Continuation != "")
		if cont = page.Continuation; cont == "" {
			return counts, more
		}
	}
	t.Fatal("no end after 10000 pages")
	return nil, nil
}

// TestVisit_pagesEndAtWantedDocumentCount checks the page sizes of Vespa's
// MessageBusVisitorSession: it sends no new bucket visitor once the
// documents returned reach maxTotalHits (wantedDocumentCount, default 1 when
// not streamed), so a page ends at the first bucket boundary at or past it.
func TestVisit_pagesEndAtWantedDocumentCount(t *testing.T) {
	s := vespatest.NewTestServer(t)
	const n = 3000
	for i := range n {
		if err := s.PutDocument(fmt.Sprintf("id:ns:music::%d", i), json.RawMessage(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	sum := func(counts []int) (total int) {
		for _, c := range counts {
			total += c
		}
		return total
	}
	t.Run("default: one bucket a page", func(t *testing.T) {
		counts, more := visitPages(t, s, "")
		if sum(counts) != n {
			t.Fatalf("%d documents, want %d", sum(counts), n)
		}
		for i, c := range counts {
			// 3000 documents in 4096 buckets: a bucket holds a handful.
			if more[i] && (c < 1 || c > 8) {
				t.Fatalf("page %d: %d documents, want one bucket's", i, c)
			}
		}
		if len(counts) < n/4 {
			t.Errorf("%d pages for %d documents: pages hold more than a bucket", len(counts), n)
		}
	})
	t.Run("wantedDocumentCount=500", func(t *testing.T) {
		counts, more := visitPages(t, s, "wantedDocumentCount=500")
		if sum(counts) != n {
			t.Fatalf("%d documents, want %d", sum(counts), n)
		}
		for i, c := range counts {
			if more[i] && (c < 500 || c >= 500+8) {
				t.Errorf("page %d: %d documents, want 500 up to the bucket's end", i, c)
			}
		}
	})
	t.Run("streamed without wantedDocumentCount: one answer", func(t *testing.T) {
		counts, _ := visitPages(t, s, "stream=true")
		if len(counts) != 1 || counts[0] != n {
			t.Errorf("pages %v, want one of %d", counts, n)
		}
	})
}

func TestVisit_streamedJSONLFailure(t *testing.T) {
	s := vespatest.NewTestServer(t)
	for i := range 10 {
		if err := s.PutDocument(fmt.Sprintf("id:ns:music::%d", i), json.RawMessage(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("a visitor failure is a message line and a continuation after a 200", func(t *testing.T) {
		s.ScriptFaults(vespatest.OpVisit, vespatest.FaultServerError())
		status, body, h := get(t, s, "/document/v1/ns/music/docid?stream=true", "Accept", "application/jsonl")
		if status != http.StatusOK || h.Get("Content-Type") != "application/jsonl; charset=UTF-8" {
			t.Fatalf("status %d, Content-Type %q", status, h.Get("Content-Type"))
		}
		var lines []map[string]json.RawMessage
		sc := bufio.NewScanner(bytes.NewReader(body))
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			lines = append(lines, m)
		}
		if len(lines) == 0 || lines[0]["message"] == nil {
			t.Fatalf("lines %s: want a message first", body)
		}
		var last struct {
			Continuation *struct {
				Token string `json:"token"`
			} `json:"continuation"`
		}
		raw, _ := json.Marshal(lines[len(lines)-1])
		if err := json.Unmarshal(raw, &last); err != nil || last.Continuation == nil || last.Continuation.Token == "" {
			t.Errorf("last line %s: want a continuation with a token", raw)
		}
	})
	t.Run("an overload is still a 429", func(t *testing.T) {
		s.ScriptFaults(vespatest.OpVisit, vespatest.FaultOverload())
		if status, body, _ := get(t, s, "/document/v1/ns/music/docid?stream=true", "Accept", "application/jsonl"); status != http.StatusTooManyRequests {
			t.Errorf("status %d: %s", status, body)
		}
	})
}
