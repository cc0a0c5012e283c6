package vespatest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

// TestCondition_illegalIs500: a test-and-set condition that does not parse,
// names an unknown document type or a field the document type lacks is
// refused by the content node with ILLEGAL_PARAMETERS
// (storage/src/vespa/storage/persistence/testandsethelper.cpp:
// parseDocumentSelection, fetch_and_match_selection), which
// MessageBusAsyncSession maps to the outcome ERROR and DocumentV1ApiHandler
// to 500 — so a feed that would open its breaker on Vespa does so here too.
// The selection is parsed before the document is looked up, so the answer
// is the same for a missing document, with or without create.
func TestCondition_illegalIs500(t *testing.T) {
	s := newMusicServer(t, "title", "string", "year", "int")
	hc, base := s.Client(), s.URL()+"/document/v1/ns/music/docid/"
	if st, body := do(t, hc, http.MethodPost, base+"a", `{"fields":{"title":"x","year":2000}}`); st != http.StatusOK {
		t.Fatalf("seed: %d %s", st, body)
	}
	for _, c := range []struct {
		name, method, doc, cond, query string
		status                         int
		message                        string
	}{
		{"unparsable, existing document", http.MethodPut, "a", "test it", "", 500, "Failed to parse test and set condition: "},
		{"unparsable, missing document", http.MethodPut, "b", "test it", "", 500, "Failed to parse test and set condition: "},
		{"unparsable, create", http.MethodPut, "b", "test it", "&create=true", 500, "Failed to parse test and set condition: "},
		{"unparsable, remove", http.MethodDelete, "a", "music.year ==", "", 500, "Failed to parse test and set condition: "},
		{"unparsable, put", http.MethodPost, "a", "(music", "", 500, "Failed to parse test and set condition: "},
		{"unknown document type", http.MethodPut, "a", "book.year == 2000", "", 500,
			"Failed to parse test and set condition: Document type 'book' not found at column 1 when parsing selection 'book.year == 2000'"},
		{"unknown field", http.MethodPut, "a", "music.nope == 1", "", 500,
			"Condition field 'nope' could not be found, or is an imported field."},
		{"unknown field, missing document", http.MethodPut, "b", "music.title == 'x' or music.nope", "", 500, "Condition field 'nope' could not be found"},
		{"valid, no match", http.MethodPut, "a", "music.year == 1999", "", 412, "TEST_AND_SET_CONDITION_FAILED"},
		{"valid, missing document", http.MethodPut, "b", "music.year == 2000", "", 412, "Document does not exist"},
		{"valid, match", http.MethodPut, "a", "music.year == 2000 and music", "", 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"fields":{"title":{"assign":"y"}}}`
			switch c.method {
			case http.MethodPost:
				body = `{"fields":{"title":"y"}}`
			case http.MethodDelete:
				body = ""
			}
			st, got := do(t, hc, c.method, base+c.doc+"?condition="+url.QueryEscape(c.cond)+c.query, body)
			if st != c.status || !strings.Contains(got, c.message) {
				t.Fatalf("%s %s: %d %s, want %d with %q", c.method, c.cond, st, got, c.status, c.message)
			}
			if c.status == 500 && !strings.Contains(got, "ReturnCode(ILLEGAL_PARAMETERS, ") {
				t.Errorf("a 500 without the content node's ILLEGAL_PARAMETERS: %s", got)
			}
		})
	}
	if st, got := do(t, hc, http.MethodGet, base+"a", ""); st != 200 || !strings.Contains(got, `"title":"y"`) {
		t.Errorf("after the matching update: %d %s", st, got)
	}
	// Without schemas (lenient mode) every field exists: only the syntax is checked.
	lenient := vespatest.NewTestServer(t)
	if st, got := do(t, lenient.Client(), http.MethodPut, lenient.URL()+"/document/v1/ns/music/docid/a?condition="+url.QueryEscape("music.anything == 1"), `{"fields":{}}`); st != 412 {
		t.Errorf("lenient mode, unknown field: %d %s, want 412", st, got)
	}
	if st, got := do(t, lenient.Client(), http.MethodPut, lenient.URL()+"/document/v1/ns/music/docid/a?condition=test+it", `{"fields":{}}`); st != 500 {
		t.Errorf("lenient mode, unparsable: %d %s, want 500", st, got)
	}
}
