package vespatest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/vespatest"
)

// Ordinary mistakes on /document/v1, answered as Vespa answers them. The
// sources are Vespa's, at 1f79d33dd014: vespaclient-container-plugin's
// DocumentV1ApiHandler.java (DV1 below), documentapi's
// DocumentRouteSelectorPolicy.java, storage's simplemessagehandler.cpp and
// visitorthread.cpp, document's fieldsetrepo.cpp.

func musicServer(t *testing.T) *vespatest.Server {
	t.Helper()
	return vespatest.NewTestServer(t, vespatest.WithSchema(vespatest.Schema{Name: "music", Fields: []vespatest.Field{
		{Name: "title", Type: "string", Indexed: true}, {Name: "year", Type: "int"},
	}}))
}

// doH is do with the response headers.
func doH(t *testing.T, hc *http.Client, method, url, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// A remove of a type no content cluster holds is dropped by routing
// (DocumentRouteSelectorPolicy.select: no child selected, so
// DocumentIgnoredReply), which DV1.handle answers 200 with
// X-Vespa-Ignored-Operation: a misspelt remove "succeeds". Before, 400.
func TestDocV1_removeUnknownTypeIsIgnored(t *testing.T) {
	s := musicServer(t)
	st, h, body := doH(t, s.Client(), "DELETE", s.URL()+"/document/v1/d/nosuch/docid/one", "")
	if st != 200 || h.Get("X-Vespa-Ignored-Operation") != "true" || body != `{"pathId":"/document/v1/d/nosuch/docid/one","id":"id:d:nosuch::one"}` {
		t.Errorf("remove of an unknown type: %d %q %s", st, h.Get("X-Vespa-Ignored-Operation"), body)
	}
	// A known type's remove carries no such header.
	if _, h, _ := doH(t, s.Client(), "DELETE", s.URL()+"/document/v1/d/music/docid/one", ""); h.Get("X-Vespa-Ignored-Operation") != "" {
		t.Errorf("a plain remove has X-Vespa-Ignored-Operation")
	}
	// A put is parsed against its type: still 400.
	if st, _, body := doH(t, s.Client(), "POST", s.URL()+"/document/v1/d/nosuch/docid/one", `{"fields":{}}`); st != 400 || !strings.Contains(body, "Document type nosuch does not exist") {
		t.Errorf("put of an unknown type: %d %s", st, body)
	}
}

// A get is routed whatever its type; its field set (the type's
// "[document]" unless fieldSet is given) is parsed on the content node
// (simplemessagehandler.cpp getFieldSet, fieldsetrepo.cpp), whose
// ILLEGAL_PARAMETERS DV1 answers 500 — when the bucket has a replica. A
// bucket never written has none, and the distributor answers not found:
// 404. Before, 400 for all of these.
func TestDocV1_getUnknownTypeOrFieldSet(t *testing.T) {
	s := musicServer(t)
	base := s.URL() + "/document/v1/d/"
	if st, _, body := doH(t, s.Client(), "GET", base+"nosuch/docid/one", ""); st != 404 || body != `{"pathId":"/document/v1/d/nosuch/docid/one","id":"id:d:nosuch::one"}` {
		t.Errorf("get of an unknown type, empty bucket: %d %s", st, body)
	}
	if st, _, body := doH(t, s.Client(), "GET", base+"music/docid/one?fieldSet=music:nosuch", ""); st != 404 {
		t.Errorf("get with an unknown field, empty bucket: %d %s", st, body)
	}
	// Fill the buckets of the documents asked for: "one" of music, and of
	// the unknown type the same key in a document the store can hold (the
	// bucket is the location's, n=7 here).
	for _, p := range []string{"music/docid/one", "music/number/7/a"} {
		if st, _, body := doH(t, s.Client(), "POST", base+p, `{"fields":{"title":"x","year":1}}`); st != 200 {
			t.Fatalf("put %s: %d %s", p, st, body)
		}
	}
	for _, c := range []struct{ path, msg string }{
		{"nosuch/number/7/b", "Failed parsing fieldset nosuch:[document] with : Unknown document type nosuch"},
		{"music/docid/one?fieldSet=music:nosuch", "Field nosuch in fieldset music:nosuch not found in document"},
		{"music/docid/one?fieldSet=nosuch:title", "Failed parsing fieldset nosuch:title with : Unknown document type nosuch"},
		{"music/docid/one?fieldSet=%5Bbogus%5D", "Failed parsing fieldset [bogus] with : The only special names (enclosed in '[]') allowed are id, all, none, docid, document; but not '[bogus]'."},
	} {
		st, _, body := doH(t, s.Client(), "GET", base+c.path, "")
		if st != 500 || !strings.Contains(body, `"id":"id:d:`) || !strings.Contains(body, "ReturnCode(ILLEGAL_PARAMETERS, "+c.msg) {
			t.Errorf("GET %s: %d %s, want 500 with %q", c.path, st, body, c.msg)
		}
	}
	// Valid field sets still work.
	if st, _, body := doH(t, s.Client(), "GET", base+"music/docid/one?fieldSet=music:title", ""); st != 200 || body != `{"pathId":"/document/v1/d/music/docid/one","id":"id:d:music::one","fields":{"title":"x"}}` {
		t.Errorf("fieldSet=music:title: %d %s", st, body)
	}
}

// A visit's selection goes to the content node unchecked; a type it names
// that the application lacks fails the visitor (visitorthread.cpp, "Failed
// to parse document select string": ILLEGAL_PARAMETERS), which DV1.visit
// answers 500 without a continuation — when the cluster has buckets; with
// none there is nothing to visit. Before, 200 and nothing.
func TestDocV1_visitUnknownType(t *testing.T) {
	s := musicServer(t)
	visit := s.URL() + "/document/v1/d/music/docid/?selection=nosuch"
	if st, _, body := doH(t, s.Client(), "GET", visit, ""); st != 200 || !strings.Contains(body, `"documentCount":0`) {
		t.Errorf("empty cluster: %d %s", st, body)
	}
	if st, _, _ := doH(t, s.Client(), "POST", s.URL()+"/document/v1/d/music/docid/one", `{"fields":{"year":1}}`); st != 200 {
		t.Fatal("put failed")
	}
	st, _, body := doH(t, s.Client(), "GET", visit, "")
	if st != 500 || strings.Contains(body, "continuation") ||
		!strings.Contains(body, "Failed to parse document select string '(nosuch) and (music) and (id.namespace=='d')': Document type 'nosuch' not found at column 2") {
		t.Errorf("visit naming an unknown type: %d %s", st, body)
	}
	// The same through the path, and for a delete-where.
	if st, _, body := doH(t, s.Client(), "GET", s.URL()+"/document/v1/d/nosuch/docid/", ""); st != 500 || !strings.Contains(body, "Document type 'nosuch' not found") {
		t.Errorf("visit of an unknown type: %d %s", st, body)
	}
	if st, _, body := doH(t, s.Client(), "DELETE", s.URL()+"/document/v1/d/nosuch/docid/?cluster=content&selection=true", ""); st != 500 || !strings.Contains(body, `"documentCount":0`) {
		t.Errorf("delete-where of an unknown type: %d %s", st, body)
	}
}

// A timeout below what dispatch takes is DV1.handleTimeout's 504
// "Timeout after <n>ms" without an id; a bad parameter is still answered
// first. Before, 200.
func TestDocV1_timeoutTooShort(t *testing.T) {
	s := musicServer(t)
	for _, c := range []struct{ method, path string }{
		{"GET", "/document/v1/d/music/docid/one?timeout=1ms"},
		{"POST", "/document/v1/d/music/docid/one?timeout=1ms"},
		{"DELETE", "/document/v1/d/music/docid/one?timeout=0.001"},
		{"GET", "/document/v1/d/music/docid/?timeout=1ms"},
	} {
		path, _, _ := strings.Cut(c.path, "?")
		st, _, body := doH(t, s.Client(), c.method, s.URL()+c.path, `{"fields":{}}`)
		if st != 504 || body != `{"pathId":"`+path+`","message":"Timeout after 1ms"}` {
			t.Errorf("%s %s: %d %s", c.method, c.path, st, body)
		}
	}
	if st, _, _ := doH(t, s.Client(), "GET", s.URL()+"/document/v1/d/music/docid/one?timeout=1ms&fieldSet=", ""); st != 400 {
		t.Errorf("a bad parameter with timeout=1ms: %d, want 400", st)
	}
	if st, _, _ := doH(t, s.Client(), "GET", s.URL()+"/document/v1/d/music/docid/one?timeout=5ms", ""); st != 404 {
		t.Errorf("timeout=5ms: %d, want 404 (not found)", st)
	}
}

// fromTimestamp and toTimestamp are unsigned (Long.parseUnsignedLong), and
// their order is checked whenever toTimestamp is given, 0 included
// (DV1.parseCommonParameters). Before, the other way round.
func TestDocV1_visitTimestamps(t *testing.T) {
	s := musicServer(t)
	if st, _, _ := doH(t, s.Client(), "POST", s.URL()+"/document/v1/d/music/docid/one", `{"fields":{"year":1}}`); st != 200 {
		t.Fatal("put failed")
	}
	base := s.URL() + "/document/v1/d/music/docid/?wantedDocumentCount=100&"
	for _, c := range []struct {
		q     string
		st, n int
	}{
		{"fromTimestamp=5&toTimestamp=0", 400, 0},
		{"fromTimestamp=18446744073709551615", 200, 0},
		{"fromTimestamp=0&toTimestamp=18446744073709551615", 200, 1},
		{"toTimestamp=0", 200, 1},
		{"fromTimestamp=1", 200, 1},
		{"fromTimestamp=-1", 400, 0},
	} {
		st, _, body := doH(t, s.Client(), "GET", base+c.q, "")
		if st != c.st || st == 200 && !strings.Contains(body, `"documentCount":`+string(rune('0'+c.n))) {
			t.Errorf("%s: %d %s, want %d with %d documents", c.q, st, body, c.st, c.n)
		}
		if c.q == "fromTimestamp=5&toTimestamp=0" && !strings.Contains(body, "toTimestamp must be greater than, or equal to, fromTimestamp") {
			t.Errorf("%s: %s", c.q, body)
		}
	}
}

// A streamed visit whose selection does not parse: Vespa's handler commits
// 200 before the visitor session parses the selection, and the response
// never ends (DV1.visitAndWrite; on the JDisc target not even the status
// line came in 30 s, see the differential test). The emulator sends nothing
// and cuts the connection at the request's timeout, so no client can take
// it for an answer; unstreamed it is a 400 at once. Before, a 400 at once
// for both.
func TestDocV1_streamedVisitBadSelection(t *testing.T) {
	s := musicServer(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/document/v1/d/music/docid/?stream=true&timeout=300ms&selection=music.year%3E%3E", nil)
	resp, err := s.Client().Do(req)
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("an answer: %d %q, want none", resp.StatusCode, b)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the emulator held past the request's timeout: %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("cut after %v, before the request's timeout", d)
	}
	if st, _, _ := doH(t, s.Client(), "GET", s.URL()+"/document/v1/d/music/docid/?selection=music.year%3E%3E", ""); st != 400 {
		t.Errorf("unstreamed: %d, want 400", st)
	}
}
