package vespa_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
)

// visitFixture is one case of ../shared/vespa-fixtures/docv1.json.
type visitFixture struct {
	Name    string `json:"name"`
	Request struct {
		Method   string            `json:"method"`
		Path     string            `json:"path"`
		Query    map[string]string `json:"query"`
		RawQuery string            `json:"raw_query"`
		Body     json.RawMessage   `json:"body"`
	} `json:"request"`
	Status       int             `json:"status"`
	ResponseBody json.RawMessage `json:"response_body"`
	ResponseRaw  string          `json:"response_body_raw"`
}

// body returns the exact bytes the server sent.
func (f *visitFixture) body() string {
	if f.ResponseRaw != "" {
		return f.ResponseRaw
	}
	var b bytes.Buffer
	if err := json.Compact(&b, f.ResponseBody); err != nil {
		panic(err)
	}
	return b.String()
}

// visitFixtures returns the docv1.json cases by name, or skips the test when
// the fixtures are absent.
func visitFixtures(t *testing.T) map[string]*visitFixture {
	t.Helper()
	b := testutil.ReadFixture(t, "docv1.json")
	var cases []*visitFixture
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	m := make(map[string]*visitFixture, len(cases))
	for _, c := range cases {
		m[c.Name] = c
	}
	return m
}

// seenRequest is a request a scriptServer received.
type seenRequest struct {
	Method, Path, RawQuery string
	Query                  url.Values
	Body                   string
}

// scriptServer answers requests with the given (status, body) pairs in
// order, and then with an empty final page.
type scriptServer struct {
	mu      sync.Mutex
	answers [][2]string // status text, body
	seen    []seenRequest
}

func newScriptServer(t *testing.T, answers ...[2]string) (*scriptServer, *vespa.Client) {
	t.Helper()
	s := &scriptServer{answers: answers}
	return s, newHandlerClient(t, s, visitFastRetries)
}

func (s *scriptServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, seenRequest{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.URL.Query(), string(body)})
	answer := [2]string{"200", `{"pathId":"/","documents":[],"documentCount":0}`}
	if len(s.answers) > 0 {
		answer, s.answers = s.answers[0], s.answers[1:]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	status := 200
	if answer[0] != "200" {
		status = map[string]int{"500": 500, "503": 503, "504": 504, "400": 400}[answer[0]]
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, answer[1])
}

func (s *scriptServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

func ok(f *visitFixture) [2]string { return [2]string{"200", f.body()} }

func TestVisitFixtures_Pages(t *testing.T) {
	// The fixtures script one chain: a visit of one slice in one bucket space
	// (the defaults are 8 slices, and both spaces at the root).
	fx := visitFixtures(t)
	t.Run("a documented page, then its continuation sent back", func(t *testing.T) {
		f := fx["doc-guide-visit-page-real-token"]
		s, c := newScriptServer(t, ok(f))
		var docs []*vespa.Document
		for d, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "namespace", DocType: "doc", Slices: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, d)
		}
		if len(docs) != 1 || docs[0].ID != "id:namespace:doc::id-1" || string(docs[0].Fields) != `{"title":"Document title 1"}` {
			t.Fatalf("documents %+v", docs)
		}
		reqs := s.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		if reqs[0].Path != f.Request.Path || reqs[0].Query.Has("continuation") {
			t.Errorf("first request %+v", reqs[0])
		}
		if got := reqs[1].Query.Get("continuation"); got != "AAAAEAAAAAAAAAM3AAAAAAAAAzYAAAAAAAEAAAAAAAFAAAAAAABswAAAAAAAAAAA" {
			t.Errorf("continuation sent back as %q", got)
		}
	})
	t.Run("padded tokens are escaped in the query", func(t *testing.T) {
		f := fx["visit-stream-slices"]
		s, c := newScriptServer(t, ok(f))
		got := collect(t, c.Visit(t.Context(), vespa.VisitRequest{
			Cluster: "content", Selection: "all the things", FieldSet: "[id]", WantedDocumentCount: 1025,
			Concurrency: 123, Slices: 4, SliceIDs: []int{1}, Timeout: 6 * time.Second,
			BucketSpace: vespa.BucketSpaceDefault,
		}))
		if len(got) != 2 || got["id:space:music:n=1:two"] != 1 {
			t.Errorf("documents %v", got)
		}
		reqs := s.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		for k, v := range f.Request.Query {
			switch k {
			case "stream", "bucketSpace": // not sent: govespa pages without streaming, in the default space
			case "timeout":
				if got := reqs[0].Query.Get(k); got != "6000ms" {
					t.Errorf("timeout = %q", got)
				}
			default:
				if got := reqs[0].Query.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		}
		if !strings.Contains(reqs[1].RawQuery, "&continuation=AAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAAAJAAAAAAAAAAgAAAAAAAAAAQAAAAAAAAAEAAAAAAAAAAA%3D%3D") {
			t.Errorf("raw query %s", reqs[1].RawQuery)
		}
		if strings.Contains(reqs[0].RawQuery, "+") {
			t.Errorf("a space sent as '+': %s", reqs[0].RawQuery)
		}
	})
	t.Run("an empty page with a continuation is not the end", func(t *testing.T) {
		empty := fx["visit-number-empty-page-with-continuation"]
		page := fx["cli-saved-visit-response"]
		s, c := newScriptServer(t, ok(empty), ok(empty), ok(page))
		got := collect(t, c.Visit(t.Context(), vespa.VisitRequest{Cluster: "fooCC", Slices: 1, BucketSpace: vespa.BucketSpaceDefault}))
		if len(got) != 2 || got["id:test:music::1921492307"] != 1 {
			t.Errorf("documents %v", got)
		}
		if n := len(s.requests()); n != 4 {
			t.Errorf("%d requests, want 4", n)
		}
	})
	t.Run("removes in a page are skipped", func(t *testing.T) {
		f := fx["visit-root-all-params-with-trace"]
		_, c := newScriptServer(t, ok(f))
		got := collect(t, c.Visit(t.Context(), vespa.VisitRequest{Cluster: "content", Slices: 1, BucketSpace: vespa.BucketSpaceDefault}))
		if len(got) != 3 || got["id:space:music:g=a:three"] != 1 || got["id:space:music::t-square-truth"] != 0 {
			t.Errorf("documents %v", got)
		}
	})
	t.Run("a failed page is retried, then yielded as an error", func(t *testing.T) {
		f := fx["visit-group-failure-500-no-continuation"]
		fail := [2]string{"500", f.body()}
		s, c := newScriptServer(t, fail, fail, fail)
		var errs []error
		for _, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "space", DocType: "music", Slices: 1}) {
			errs = append(errs, err)
		}
		var ve *vespa.Error
		if len(errs) != 1 || !errors.As(errs[0], &ve) || ve.Status != 500 || ve.Message != "error" {
			t.Fatalf("errors %v", errs)
		}
		if n := len(s.requests()); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
}

func TestVisitFixtures_MassOperations(t *testing.T) {
	fx := visitFixtures(t)
	t.Run("update-where follows its continuation and sums the counts", func(t *testing.T) {
		f := fx["visit-put-update-ignored-fields"]
		s, c := newScriptServer(t, ok(f), [2]string{"200", `{"pathId":"/document/v1/space/music/docid","documentCount":2}`})
		n, err := c.UpdateWhere(t.Context(), vespa.SelectionRequest{
			Namespace: "space", DocType: "music", Cluster: "content", Selection: "true", TimeChunk: 10 * time.Second, Slices: 1,
		}, json.RawMessage(`{"fields":{"artist":{"assign":"Lisa Ekdahl"}},"create":true}`))
		if err != nil || n != 3 {
			t.Fatalf("got %d, %v; want 3", n, err)
		}
		reqs := s.requests()
		if len(reqs) != 2 || reqs[0].Method != f.Request.Method || reqs[0].Path != f.Request.Path {
			t.Fatalf("requests %+v", reqs)
		}
		for _, k := range []string{"selection", "cluster"} {
			if reqs[0].Query.Get(k) != f.Request.Query[k] {
				t.Errorf("%s = %q", k, reqs[0].Query.Get(k))
			}
		}
		if reqs[0].Query.Get("timeChunk") != "10000ms" || reqs[1].Query.Get("continuation") == "" {
			t.Errorf("queries %q, %q", reqs[0].RawQuery, reqs[1].RawQuery)
		}
		if !strings.Contains(reqs[0].Body, `"assign":"Lisa Ekdahl"`) {
			t.Errorf("body %s", reqs[0].Body)
		}
	})
	t.Run("a failed delete-where is the call's error", func(t *testing.T) {
		f := fx["visit-delete-backend-error-500"]
		s, c := newScriptServer(t, [2]string{"500", f.body()})
		n, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{Namespace: "space", DocType: "music", Cluster: "content", Selection: "false", Slices: 1})
		var ve *vespa.Error
		if !errors.As(err, &ve) || ve.Status != 500 || ve.Message != "boom" {
			t.Fatalf("got %v", err)
		}
		if n != 1 {
			t.Errorf("count %d, want the 1 reported", n)
		}
		if reqs := s.requests(); len(reqs) != 1 || reqs[0].Method != http.MethodDelete {
			t.Errorf("requests %+v", reqs)
		}
	})
}

// TestVisitor_ResumeWhenPagesChange resumes against a server that, the
// second time, ends the first page elsewhere and orders documents
// differently: the token's document hashes still skip exactly the yielded ones.
func TestVisitor_ResumeWhenPagesChange(t *testing.T) {
	page := func(cont string, ids ...string) string {
		var b strings.Builder
		b.WriteString(`{"pathId":"/document/v1/ns/music/docid","documents":[`)
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"id":"id:ns:music::` + id + `","fields":{}}`)
		}
		b.WriteString(`],"documentCount":0`)
		if cont != "" {
			b.WriteString(`,"continuation":"` + cont + `"`)
		}
		return b.String() + "}"
	}
	// The pages by continuation, first and second time.
	var mu sync.Mutex
	pages := map[string]string{"": page("t1", "a", "b", "c", "d"), "t1": page("", "e", "f")}
	c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.WriteString(w, pages[r.URL.Query().Get("continuation")])
	}))
	v, err := c.Visitor(vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 1})
	if err != nil {
		t.Fatal(err)
	}
	var first []string
	for d, err := range v.All(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		if first = append(first, d.ID); len(first) == 3 {
			break
		}
	}
	mu.Lock()
	pages = map[string]string{"": page("t2", "d", "b"), "t2": page("", "a", "c", "e", "f")}
	mu.Unlock()
	var rest []string
	for d, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", ResumeToken: v.ResumeToken()}) {
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, strings.TrimPrefix(d.ID, "id:ns:music::"))
	}
	if want := []string{"d", "e", "f"}; !slices.Equal(rest, want) {
		t.Errorf("resumed visit yielded %v, want %v (first yielded %v)", rest, want, first)
	}
}
