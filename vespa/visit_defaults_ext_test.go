package vespa_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// pageRecord is one visit page as a recording front saw it.
type pageRecord struct {
	query url.Values
	count int  // documentCount
	more  bool // a continuation came back
}

// recordingFront serves srv's handler behind a loopback server that keeps
// the query and the documentCount of every visit page.
type recordingFront struct {
	mu    sync.Mutex
	pages []pageRecord
}

func newRecordingFront(t *testing.T, srv *vespatest.Server) (*recordingFront, *vespa.Client) {
	t.Helper()
	f := &recordingFront{}
	c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, r)
		var page struct {
			DocumentCount int    `json:"documentCount"`
			Continuation  string `json:"continuation"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err == nil && r.Method == http.MethodGet {
			f.mu.Lock()
			f.pages = append(f.pages, pageRecord{r.URL.Query(), page.DocumentCount, page.Continuation != ""})
			f.mu.Unlock()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	return f, c
}

func TestVisit_DefaultsPageAt1000(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	const n = 20000
	want := visitCorpus(t, srv, "ns", n)
	front, c := newRecordingFront(t, srv)
	checkExactlyOnce(t, collect(t, c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music"})), want)

	front.mu.Lock()
	defer front.mu.Unlock()
	slicesSeen := map[string]bool{}
	for _, p := range front.pages {
		if got := p.query.Get("wantedDocumentCount"); got != "1000" {
			t.Fatalf("wantedDocumentCount=%q, want 1000 by default", got)
		}
		if got := p.query.Get("slices"); got != fmt.Sprint(vespa.DefaultVisitParallelism) {
			t.Fatalf("slices=%q, want one per goroutine (%d)", got, vespa.DefaultVisitParallelism)
		}
		slicesSeen[p.query.Get("sliceId")] = true
		// A page that is not its slice's last ends at the first bucket
		// boundary at or past 1000 documents (buckets of this corpus hold
		// a handful each).
		if p.more && (p.count < 1000 || p.count > 1100) {
			t.Errorf("a page of %d documents with a continuation, want about 1000", p.count)
		}
	}
	if len(slicesSeen) != vespa.DefaultVisitParallelism {
		t.Errorf("slice IDs %v, want all %d", slicesSeen, vespa.DefaultVisitParallelism)
	}
	// 20,000 documents in 8 slices of about 2,500: three pages each.
	if got, max := len(front.pages), vespa.DefaultVisitParallelism*4; got > max {
		t.Errorf("%d pages, want at most %d", got, max)
	}
}

func TestVisit_PageSizeStaysAdjustable(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	want := visitCorpus(t, srv, "ns", 300)
	front, c := newRecordingFront(t, srv)
	checkExactlyOnce(t, collect(t, c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", WantedDocumentCount: 50, Slices: 2})), want)
	front.mu.Lock()
	defer front.mu.Unlock()
	for _, p := range front.pages {
		if p.query.Get("wantedDocumentCount") != "50" || p.query.Get("slices") != "2" {
			t.Fatalf("page query %v, want wantedDocumentCount=50 and slices=2", p.query)
		}
	}
	if len(front.pages) < 6 {
		t.Errorf("%d pages for 300 documents at 50 a page", len(front.pages))
	}
}

// newSpacesServer starts an emulator whose content cluster "music" has the
// type music in the default bucket space and artist in the global one.
func newSpacesServer(t *testing.T) *vespatest.Server {
	t.Helper()
	dir := testutil.AppDir(t, testutil.BucketSpacesApp())
	srv := vespatest.NewTestServer(t, vespatest.WithApplicationDir(dir))
	for i := range 30 {
		id, fields := fmt.Sprintf("id:ns:music::m%02d", i), `{"title":"t"}`
		if i%3 == 0 {
			id, fields = fmt.Sprintf("id:ns:artist::a%02d", i), `{"name":"n"}`
		}
		if err := srv.PutDocument(id, json.RawMessage(fields)); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

func TestVisit_RootCoversGlobalDocuments(t *testing.T) {
	srv := newSpacesServer(t)
	c := newTestClient(t, srv.URL())
	count := func(got map[string]int) (music, artist int) {
		for id, n := range got {
			if n != 1 {
				t.Errorf("%s yielded %d times", id, n)
			}
			var d vespa.Document
			d.ID = id
			if did, err := d.DocumentID(); err == nil && did.DocType == "artist" {
				artist++
			} else {
				music++
			}
		}
		return music, artist
	}
	for _, tc := range []struct {
		space         string
		music, artist int
	}{{"", 20, 10}, {vespa.BucketSpaceDefault, 20, 0}, {vespa.BucketSpaceGlobal, 0, 10}} {
		t.Run("bucket space "+fmt.Sprintf("%q", tc.space), func(t *testing.T) {
			m, a := count(collect(t, c.Visit(t.Context(), vespa.VisitRequest{Cluster: "music", BucketSpace: tc.space})))
			if m != tc.music || a != tc.artist {
				t.Errorf("visited %d music and %d artist documents, want %d and %d", m, a, tc.music, tc.artist)
			}
		})
	}
	t.Run("a type without a namespace at the root finds a global type", func(t *testing.T) {
		_, a := count(collect(t, c.Visit(t.Context(), vespa.VisitRequest{Cluster: "music", DocType: "artist"})))
		if a != 10 {
			t.Errorf("visited %d artist documents, want 10", a)
		}
	})
	t.Run("a root visit resumes across both spaces", func(t *testing.T) {
		v, err := c.Visitor(vespa.VisitRequest{Cluster: "music", WantedDocumentCount: 2, Slices: 2})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for d, err := range v.All(t.Context()) {
			if err != nil {
				t.Fatal(err)
			}
			if got[d.ID]++; len(got) == 12 {
				break
			}
		}
		for id, n := range collect(t, c.Visit(t.Context(), vespa.VisitRequest{Cluster: "music", WantedDocumentCount: 2, ResumeToken: v.ResumeToken()})) {
			got[id] += n
		}
		if m, a := count(got); m != 20 || a != 10 {
			t.Errorf("visited %d music and %d artist documents in two runs, want 20 and 10", m, a)
		}
	})
	t.Run("BucketSpace is refused with a type in the path", func(t *testing.T) {
		if _, err := c.Visitor(vespa.VisitRequest{Namespace: "ns", DocType: "music", BucketSpace: vespa.BucketSpaceGlobal}); err == nil {
			t.Error("no error")
		}
		if _, err := c.Visitor(vespa.VisitRequest{Cluster: "music", BucketSpace: "other"}); err == nil {
			t.Error("no error for an unknown space")
		}
	})
}

func TestRemoveWhere_RootCoversGlobalDocuments(t *testing.T) {
	t.Run("both spaces by default", func(t *testing.T) {
		srv := newSpacesServer(t)
		c := newTestClient(t, srv.URL())
		n, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{Cluster: "music", Selection: "true"})
		if err != nil || n != 30 {
			t.Fatalf("removed %d (%v), want 30", n, err)
		}
		if left := srv.DocumentCount(); left != 0 {
			t.Errorf("%d documents left", left)
		}
	})
	t.Run("one space when asked", func(t *testing.T) {
		srv := newSpacesServer(t)
		c := newTestClient(t, srv.URL())
		n, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{Cluster: "music", Selection: "true", BucketSpace: vespa.BucketSpaceGlobal})
		if err != nil || n != 10 {
			t.Fatalf("removed %d (%v), want the 10 artists", n, err)
		}
		if _, ok := srv.Document("id:ns:music::m01"); !ok {
			t.Error("a music document (default space) was removed")
		}
	})
}
