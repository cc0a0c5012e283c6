package feed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

// recorder collects outcomes.
type recorder struct {
	mu   sync.Mutex
	all  []feed.Outcome
	byID map[string][]feed.Outcome
}

func (r *recorder) record(_ context.Context, o feed.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, o)
	if r.byID == nil {
		r.byID = map[string][]feed.Outcome{}
	}
	k := o.IDString()
	r.byID[k] = append(r.byID[k], o)
}

func (r *recorder) outcomes() []feed.Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]feed.Outcome(nil), r.all...)
}

// checkDocumentOrder asserts that the outcomes of each document came in input
// (line) order.
func (r *recorder) checkDocumentOrder(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, os := range r.byID {
		for i := 1; i < len(os); i++ {
			if os[i].Operation.Line <= os[i-1].Operation.Line {
				t.Fatalf("%s: line %d reported after line %d", id, os[i].Operation.Line, os[i-1].Operation.Line)
			}
		}
	}
}

func newClient(t testing.TB, url string, opts ...vespa.Option) *vespa.Client {
	t.Helper()
	c, err := vespa.NewClient(url, append([]vespa.Option{vespa.WithHTTPVersion(vespa.HTTP2)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// feedLines returns a JSONL feed of n puts over docs documents, each put
// setting "n" to its line number, so that the last put of each document wins.
func feedLines(n, docs int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"put":"id:ns:music::d%d","fields":{"n":%d}}`+"\n", i%docs, i)
	}
	return b.String()
}

// checkFinalState asserts that each document holds the last put of feedLines.
func checkFinalState(t *testing.T, srv *vespatest.Server, n, docs int) {
	t.Helper()
	for d := range docs {
		last := d + ((n-1-d)/docs)*docs
		got, ok := srv.Document(fmt.Sprintf("id:ns:music::d%d", d))
		if !ok {
			t.Errorf("document d%d missing", d)
			continue
		}
		var v struct{ N int }
		if err := json.Unmarshal(got, &v); err != nil || v.N != last {
			t.Errorf("document d%d holds %s, want n=%d", d, got, last)
		}
	}
}

func TestFeeder_FeedsAFileToTheEmulator(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	var rec recorder
	f, err := feed.New(newClient(t, srv.URL()), feed.Config{Connections: 2, OnOutcome: rec.record})
	if err != nil {
		t.Fatal(err)
	}
	const n, docs = 500, 37
	if err := f.FeedReader(t.Context(), "f.jsonl", strings.NewReader(feedLines(n, docs))); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	checkFinalState(t, srv, n, docs)
	s := f.Stats()
	if s.Operations != n || s.Succeeded != n || s.Failed != 0 {
		t.Errorf("stats %+v", s)
	}
	if got := len(rec.outcomes()); got != n {
		t.Errorf("%d outcomes, want %d", got, n)
	}
	rec.checkDocumentOrder(t)
	if s.BytesSent == 0 || s.BytesReceived == 0 || s.Latency.Max == 0 || s.Latency.P50 > s.Latency.P99 {
		t.Errorf("stats %+v", s)
	}
}

func TestFeeder_PermanentFailuresAreReportedWithTheirLines(t *testing.T) {
	srv := vespatest.NewTestServer(t, vespatest.WithSchema(vespatest.Schema{Name: "music", Fields: []vespatest.Field{{Name: "n", Type: "int"}}}))
	var rec recorder
	f, err := feed.New(newClient(t, srv.URL()), feed.Config{OnOutcome: rec.record})
	if err != nil {
		t.Fatal(err)
	}
	in := `{"put":"id:ns:music::a","fields":{"n":1}}
{"put":"id:ns:music::b","fields":{"n":"not a number"}}
{"put":"id:ns:music::c","fields":{"n":3}}
{"put":"id:ns:music::d","fields":{"nope":4}}
{"put":"id:ns:music::e" "fields":{}}
{"remove":"id:ns:music::a"}
`
	if err := f.FeedReader(t.Context(), "in", strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	failed := map[int]feed.Outcome{}
	for _, o := range rec.outcomes() {
		if !o.OK() {
			failed[o.Operation.Line] = o
		}
	}
	if len(failed) != 3 {
		t.Fatalf("failed lines %v, want 2, 4 and 5", failed)
	}
	for _, line := range []int{2, 4} {
		o := failed[line]
		if o.Status != 400 || o.Message == "" || o.Attempts != 1 || !errors.Is(o.Err, vespa.ErrBadRequest) {
			t.Errorf("line %d: %+v", line, o)
		}
	}
	var pe *feed.ParseError
	if o := failed[5]; !errors.As(o.Err, &pe) || pe.Line != 5 || o.IDString() != "" {
		t.Errorf("line 5: %+v", o)
	}
	s := f.Stats()
	if s.Operations != 6 || s.Failed != 3 || s.FailuresByStatus[400] != 2 || s.FailuresByStatus[0] != 1 {
		t.Errorf("stats %+v", s)
	}
	if _, ok := srv.Document("id:ns:music::c"); !ok {
		t.Error("c missing")
	}
}

func TestFeeder_EnqueueAfterCloseFails(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	f, err := feed.New(newClient(t, srv.URL()), feed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	err = f.Remove(t.Context(), vespa.MustParseDocumentID("id:ns:music::a"))
	if !errors.Is(err, feed.ErrClosed) {
		t.Errorf("Remove after Close: %v", err)
	}
	if err := f.Close(t.Context()); !errors.Is(err, feed.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
}

func TestNew_RejectsContradictions(t *testing.T) {
	c := newClient(t, "http://127.0.0.1:1")
	for _, cfg := range []feed.Config{
		{MinInflight: 10, MaxInflight: 5},
		{MaxInflight: 10, MaxPending: 5},
		{Compression: 7},
	} {
		if _, err := feed.New(c, cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	if _, err := feed.New(nil, feed.Config{}); err == nil {
		t.Error("New(nil) succeeded")
	}
}

// A sink that answers every request at once, for the cancellation test:
// requests block until released.
func TestFeeder_CancellationAccountsForEveryOperation(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","pathId":"/"}`)
	}))
	defer sink.Close()
	defer once.Do(func() { close(release) })
	var rec recorder
	f, err := feed.New(newClient(t, sink.URL, vespa.WithHTTPVersion(vespa.HTTP1)), feed.Config{Connections: 2, MinInflight: 4, MaxInflight: 8, OnOutcome: rec.record})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	const n = 12
	for i := range n {
		if err := f.Put(ctx, vespa.MustParseDocumentID(fmt.Sprintf("id:ns:music::d%d", i%5)), json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomesOf(t, &rec, n) {
		if !o.Cancelled() {
			t.Errorf("outcome %+v is not a cancellation", o)
		}
	}
	if s := f.Stats(); s.Operations != n || s.Cancelled != n || s.Pending != 0 {
		t.Errorf("stats %+v", s)
	}
	_ = net.ErrClosed
}
