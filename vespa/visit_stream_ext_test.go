package vespa_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

func TestVisit_StreamYieldsTheCorpusOnceWithProgress(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	want := visitCorpus(t, srv, "ns", 3000)
	front, c := newRecordingFront(t, srv)
	v, err := c.Visitor(vespa.VisitRequest{Namespace: "ns", DocType: "music", Stream: true, WantedDocumentCount: 200, Slices: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	var midway []float64
	for d, err := range v.All(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		if got[d.ID]++; len(got)%500 == 0 && len(got) < len(want) {
			midway = append(midway, v.Stats().PercentFinished)
		}
	}
	checkExactlyOnce(t, got, want)
	// A page's percentFinished counts from when the page arrives, so the
	// last samples may read 100 already.
	for i, pc := range midway {
		if pc <= 0 || pc > 100 || i > 0 && pc < midway[i-1] || i == 0 && pc >= 100 {
			t.Errorf("percentFinished along the way %v: want it rising from above 0", midway)
			break
		}
	}
	if pc := v.Stats().PercentFinished; pc != 100 {
		t.Errorf("percentFinished at the end %v, want 100", pc)
	}
	front.mu.Lock()
	defer front.mu.Unlock()
	// The front records the JSON pages: each chain's first page, which is
	// asked for unstreamed (see TestVisit_StreamBadSelectionFailsAtOnce);
	// the JSON Lines pages after it were streamed.
	if len(front.pages) != 2 {
		t.Errorf("%d JSON pages, want one per chain (2)", len(front.pages))
	}
	for _, p := range front.pages {
		if p.query.Get("continuation") != "" || p.query.Get("stream") != "" || p.query.Get("wantedDocumentCount") != "200" {
			t.Fatalf("page query %v, want each chain's first page unstreamed with wantedDocumentCount=200", p.query)
		}
	}
}

func TestVisit_StreamThroughFaults(t *testing.T) {
	srv, c := newVisitServer(t, visitFastRetries)
	want := visitCorpus(t, srv, "ns", 2000)
	// A status fault on a streamed visit is Vespa's 200 with a message line
	// and a continuation: the page is fetched again. One chain, so that
	// each page meets at most one fault in a row.
	var script []vespatest.Fault
	for range 4 {
		script = append(script, vespatest.FaultServerError(), vespatest.Fault{}, vespatest.FaultDrop(), vespatest.Fault{}, vespatest.FaultOverload(), vespatest.Fault{})
	}
	srv.ScriptFaults(vespatest.OpVisit, script...)
	got := collect(t, c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Stream: true, WantedDocumentCount: 100, Slices: 1}))
	checkExactlyOnce(t, got, want)
	if st := srv.FaultStats(); st.ByStatus[500] != 4 || st.Dropped != 4 || st.ByStatus[429] != 4 {
		t.Errorf("faults %+v: want the 12 scripted", st)
	}
}

func TestVisit_StreamCutShortIsNotTheEnd(t *testing.T) {
	var requests atomic.Int64
	c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/jsonl; charset=UTF-8")
		// Two documents, and then the connection ends: no continuation line.
		_, _ = io.WriteString(w, `{"put":"id:ns:music::a","fields":{}}`+"\n"+`{"put":"id:ns:music::b","fields":{}}`+"\n")
	}), visitFastRetries)
	var docs int
	var last error
	for _, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Stream: true, Slices: 1}) {
		if err != nil {
			last = err
			continue
		}
		docs++
	}
	var ve *vespa.Error
	if !errors.As(last, &ve) || !strings.Contains(last.Error(), "continuation") {
		t.Fatalf("ended with %v, want an error about the missing continuation", last)
	}
	if docs != 0 {
		t.Errorf("%d documents from a page cut short", docs)
	}
}
