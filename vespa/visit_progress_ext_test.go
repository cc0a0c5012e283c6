package vespa_test

import (
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
)

// Checkpoint is called after each page, with a token that holds no
// document of a page in progress: its size does not grow with the
// documents yielded (a token taken mid-page does), and resuming from it
// yields exactly the documents not yet yielded.
func TestVisitor_CheckpointTokensAreSmallAndExact(t *testing.T) {
	srv, c := newVisitServer(t)
	want := visitCorpus(t, srv, "ns", 1200)
	type checkpoint struct {
		token string
		docs  int64
	}
	var cps []checkpoint
	got := map[string]int{}
	midPage := ""
	v, err := c.Visitor(vespa.VisitRequest{
		Namespace: "ns", DocType: "music", Slices: 4, WantedDocumentCount: 200,
		Checkpoint: func(token string, st vespa.VisitStats) {
			if int64(len(got)) != st.Documents {
				t.Errorf("Checkpoint: stats say %d documents, the loop has seen %d", st.Documents, len(got))
			}
			cps = append(cps, checkpoint{token, st.Documents})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for d, err := range v.All(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		got[d.ID]++
		if len(got) == 300 {
			midPage = v.ResumeToken()
		}
	}
	checkExactlyOnce(t, got, want)
	if len(cps) < 4 {
		t.Fatalf("%d checkpoints for a visit of at least 6 pages", len(cps))
	}
	longest := 0
	for _, cp := range cps {
		longest = max(longest, len(cp.token))
	}
	// 100 documents of a page yielded mid-page cost about 11 characters
	// each; a checkpoint's token holds none.
	if len(midPage) < longest+500 {
		t.Errorf("mid-page token %d bytes, longest checkpoint token %d: want the checkpoint's far smaller", len(midPage), longest)
	}
	t.Logf("checkpoint tokens at most %d bytes over 4 slices; the token 100 documents into a page: %d bytes", longest, len(midPage))

	// Resuming from a checkpoint in the middle yields exactly the rest.
	cp := cps[len(cps)/2]
	rest := collect(t, c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 4, WantedDocumentCount: 200, ResumeToken: cp.token}))
	if int64(len(rest))+cp.docs != int64(len(want)) {
		t.Errorf("resumed from the checkpoint after %d documents: %d more, want %d", cp.docs, len(rest), int64(len(want))-cp.docs)
	}
	for id, n := range rest {
		if n != 1 {
			t.Errorf("%s yielded %d times after the resume", id, n)
		}
	}
}

// Progress is called at the interval and once at the end, with counters that
// only grow and a last call that says the visit is done.
func TestVisitor_ProgressReported(t *testing.T) {
	srv, c := newVisitServer(t)
	visitCorpus(t, srv, "ns", 300)
	var calls []vespa.VisitProgress
	n := 0
	for _, err := range c.Visit(t.Context(), vespa.VisitRequest{
		Namespace: "ns", DocType: "music", Slices: 2, WantedDocumentCount: 10,
		ProgressInterval: time.Millisecond,
		Progress:         func(p vespa.VisitProgress) { calls = append(calls, p) },
	}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n%50 == 0 {
			time.Sleep(3 * time.Millisecond) // let the ticker fire between pages
		}
	}
	if len(calls) < 2 {
		t.Fatalf("%d progress calls, want several and a last one", len(calls))
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Stats.Documents < calls[i-1].Stats.Documents || calls[i].Elapsed < calls[i-1].Elapsed {
			t.Errorf("call %d went back: %+v after %+v", i, calls[i], calls[i-1])
		}
	}
	last := calls[len(calls)-1]
	if !last.Done || last.Stats.Documents != 300 || last.DocumentsPerSecond <= 0 {
		t.Errorf("last progress %+v, want Done with 300 documents and a rate", last)
	}
}
