package feed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/vespatest"
)

// concurrency wraps a handler, counting the requests it serves at once. It
// answers 503 to the first attempt of every 10th document, and samples,
// during each request, how many were in flight and how many documents were
// waiting to be sent again after their 503.
type concurrency struct {
	h       http.Handler
	now     atomic.Int64
	mu      sync.Mutex
	seen    map[string]bool // documents answered 503, not sent again yet
	samples [][2]int64      // {in flight, waiting}
}

func (c *concurrency) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.now.Add(1)
	defer c.now.Add(-1)
	doc := r.URL.Path
	c.mu.Lock()
	_, again := c.seen[doc]
	fail := !again && strings.HasSuffix(doc, "0") && r.Method == http.MethodPost
	if fail {
		c.seen[doc] = true
	} else if again {
		delete(c.seen, doc)
	}
	c.mu.Unlock()
	// Every request takes 10 ms; the sample is taken in the middle, when the
	// requests that started at the same (fake) instant are all in flight.
	time.Sleep(5 * time.Millisecond)
	c.mu.Lock()
	c.samples = append(c.samples, [2]int64{c.now.Load(), int64(len(c.seen))})
	c.mu.Unlock()
	time.Sleep(5 * time.Millisecond)
	if fail {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	c.h.ServeHTTP(w, r)
}

func TestFeeder_WindowStaysFullWhileOperationsWait(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	synctest.Test(t, func(t *testing.T) {
		const limit, n = 8, 800
		h := &concurrency{h: srv.Handler(), seen: map[string]bool{}}
		// Waits of a full second make any slot held by a waiting operation
		// show in the samples.
		slow := retries.Feed.WithWait(retries.WaitExponential(time.Second, time.Second, time.Second))
		f := newHandlerFeeder(t, h, feed.Config{Connections: 1, MinInflight: limit, MaxInflight: limit, MaxPending: 10 * limit,
			Retries: []retries.Policy{slow}})
		if err := f.FeedReader(t.Context(), "window", strings.NewReader(feedLines(n, n))); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if s := f.Stats(); s.Succeeded != n || s.Retries["503"] != n/10 {
			t.Fatalf("stats %+v", s)
		}
		// While operations wait and there is other work (all but the end
		// of the feed), every sample sees the full window.
		var waitingSamples, full int
		h.mu.Lock()
		samples := h.samples[:len(h.samples)*3/4]
		h.mu.Unlock()
		for _, s := range samples {
			if s[1] > 0 {
				waitingSamples++
				if s[0] == limit {
					full++
				}
			}
		}
		t.Logf("%d of %d requests made while operations waited saw the full window", full, waitingSamples)
		if waitingSamples < 100 || full < waitingSamples*99/100 {
			t.Fatalf("of %d requests made while operations waited, %d saw %d in flight", waitingSamples, full, limit)
		}
	})
}

// newHandlerFeeder returns a feeder whose connections are served in memory
// by h.
func newHandlerFeeder(t *testing.T, h http.Handler, cfg feed.Config) *feed.Feeder {
	t.Helper()
	c, err := vespa.NewClient("http://127.0.0.1:9")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f, err := feed.New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	feed.SetTransportForTest(f, testutil.HandlerTransport{Handler: h})
	return f
}

func TestFeeder_LongUnavailableBurstsEndInSuccess(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	synctest.Test(t, func(t *testing.T) {
		burst := slices.Repeat([]vespatest.Fault{vespatest.FaultUnavailable()}, 7)
		srv.ScriptFaults(vespatest.OpPut, append(burst, vespatest.FaultDrop(), vespatest.FaultTimeout())...)
		var rec recorder
		f := newMemFeeder(t, srv, feed.Config{OperationTimeout: time.Minute, OnOutcome: rec.record})
		start := time.Now()
		if err := f.Put(t.Context(), vespa.MustParseDocumentID("id:ns:music::burst"), map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		got := rec.outcomes()
		if len(got) != 1 || !got[0].OK() || got[0].Attempts != 10 {
			t.Fatalf("outcomes %+v, want one success after 10 attempts", got)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("took %v", d)
		}
		if s := f.Stats(); s.Retries["503"] != 7 || s.Retries["transport"] != 1 || s.Retries["504"] != 1 {
			t.Errorf("retries %v", s.Retries)
		}
	})
	if _, ok := srv.Document("id:ns:music::burst"); !ok {
		t.Error("the document is not stored")
	}
}

func TestFeeder_EarlierPoliciesAreSelectable(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	synctest.Test(t, func(t *testing.T) {
		srv.ScriptFaults(vespatest.OpPut, slices.Repeat([]vespatest.Fault{vespatest.FaultUnavailable()}, 3)...)
		var rec recorder
		f := newMemFeeder(t, srv, feed.Config{Retries: []retries.Policy{retries.DocV1, retries.Throttle}, OnOutcome: rec.record})
		if err := f.Put(t.Context(), vespa.MustParseDocumentID("id:ns:music::old"), map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		got := rec.outcomes()
		if len(got) != 1 || got[0].Status != 503 || got[0].Attempts != 3 || !errors.Is(got[0].Err, vespa.ErrUnavailable) {
			t.Fatalf("outcomes %+v, want DocV1's failure after 3 attempts", got)
		}
	})
}

func TestFeeder_SameDocumentOrderUnderRetries(t *testing.T) {
	srv := faultServer(t, 11,
		vespatest.FaultRule{Op: vespatest.OpPut, Rate: 0.2, Fault: vespatest.FaultUnavailable()},
		vespatest.FaultRule{Op: vespatest.OpPut, Rate: 0.1, Fault: vespatest.FaultOverload()},
		vespatest.FaultRule{Op: vespatest.OpPut, Rate: 0.05, Fault: vespatest.FaultDrop()})
	const n, docs = 500, 7
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		f := newMemFeeder(t, srv, feed.Config{Connections: 2, OnOutcome: rec.record})
		feedAndClose(t, f, "order", feedLines(n, docs))
		lines := map[int]int{}
		for _, o := range rec.outcomes() {
			lines[o.Operation.Line]++
			if !o.OK() {
				t.Errorf("line %d: %v", o.Operation.Line, o.Err)
			}
		}
		for i := 1; i <= n; i++ {
			if lines[i] != 1 {
				t.Errorf("line %d has %d outcomes", i, lines[i])
			}
		}
		rec.checkDocumentOrder(t)
		if s := f.Stats(); s.Retries["503"] == 0 || s.Retries["429"] == 0 || s.Retries["transport"] == 0 {
			t.Errorf("retries %v", s.Retries)
		}
	})
	checkFinalState(t, srv, n, docs)
}

func TestFeeder_NonIdempotentUpdateIsNotSentAgain(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	if err := srv.PutDocument("id:ns:music::u", []byte(`{"n":1,"s":"a"}`)); err != nil {
		t.Fatal(err)
	}
	id := vespa.MustParseDocumentID("id:ns:music::u")
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		f := newMemFeeder(t, srv, feed.Config{OnOutcome: rec.record})
		// Each of these is cut off once, after the request was sent.
		srv.ScriptFaults(vespatest.OpUpdate, vespatest.FaultDrop())
		if err := f.Update(t.Context(), id, vespa.NewUpdate().Increment("n", 1)); err != nil {
			t.Fatal(err)
		}
		if err := f.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		srv.ScriptFaults(vespatest.OpUpdate, vespatest.FaultDrop())
		if err := f.Update(t.Context(), id, vespa.NewUpdate().Assign("s", "b")); err != nil {
			t.Fatal(err)
		}
		if err := f.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		srv.ScriptFaults(vespatest.OpUpdate, vespatest.FaultTimeout())
		if err := f.Update(t.Context(), id, []byte(`{"n":{"increment":5}}`)); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		got := rec.outcomes()
		if len(got) != 3 {
			t.Fatalf("outcomes %+v", got)
		}
		if o := got[0]; !errors.Is(o.Err, feed.ErrNotResent) || o.Attempts != 1 || !strings.Contains(o.Err.Error(), "connection failed") {
			t.Errorf("increment after a drop: %+v", o)
		}
		if o := got[1]; !o.OK() || o.Attempts != 2 {
			t.Errorf("assign after a drop: %+v, want sent again", o)
		}
		if o := got[2]; !errors.Is(o.Err, feed.ErrNotResent) || o.Status != 504 || o.Attempts != 1 {
			t.Errorf("increment after a 504: %+v", o)
		}
	})
	doc, _ := srv.Document("id:ns:music::u")
	if string(doc) != `{"n":1,"s":"b"}` {
		t.Errorf("document %s", doc)
	}
}

func TestFeeder_MayResendDecides(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		f := newMemFeeder(t, srv, feed.Config{OnOutcome: rec.record,
			MayResend: func(op *feed.Operation) bool { return op.Kind != vespa.OpPut }})
		srv.ScriptFaults(vespatest.OpPut, vespatest.FaultDrop())
		if err := f.Put(t.Context(), vespa.MustParseDocumentID("id:ns:music::p"), map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := rec.outcomes(); len(got) != 1 || !errors.Is(got[0].Err, feed.ErrNotResent) {
			t.Fatalf("outcomes %+v", got)
		}
	})
}

func TestDefaultMayResend(t *testing.T) {
	id := vespa.MustParseDocumentID("id:ns:music::x")
	for fields, want := range map[string]bool{
		`{"s":{"assign":"x"}}`:                                true,
		`{"s":{"assign":"x"},"w":{"remove":{"k":0}}}`:         true,
		`{"a":{"match":{"element":0,"assign":3}}}`:            true,
		`{"t":{"modify":{"operation":"replace","cells":[]}}}`: true,
		`{"n":{"increment":1}}`:                               false,
		`{"n":{"assign":1,"multiply":2}}`:                     false,
		`{"a":{"add":[1]}}`:                                   false,
		`{"a":{"match":{"element":0,"increment":3}}}`:         false,
		`{"t":{"modify":{"operation":"add","cells":[]}}}`:     false,
		`{"n":{"divide":2}}`:                                  false,
		`not json`:                                            false,
	} {
		op := feed.Operation{Kind: vespa.OpUpdate, ID: id, Fields: []byte(fields)}
		if got := feed.DefaultMayResend(&op); got != want {
			t.Errorf("%s: %v, want %v", fields, got, want)
		}
	}
	for _, k := range []vespa.OperationKind{vespa.OpPut, vespa.OpRemove} {
		if !feed.DefaultMayResend(&feed.Operation{Kind: k, ID: id}) {
			t.Errorf("%v is not sent again", k)
		}
	}
}

func TestFeeder_OnOutcomeMayEnqueueAtMaxPending(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	synctest.Test(t, func(t *testing.T) {
		var f *feed.Feeder
		var followUps, failures atomic.Int64
		f = newMemFeeder(t, srv, feed.Config{Connections: 1, MinInflight: 2, MaxInflight: 2, MaxPending: 2,
			OnOutcome: func(ctx context.Context, o feed.Outcome) {
				if o.Operation.Meta == "follow-up" {
					followUps.Add(1)
					return
				}
				op := feed.Operation{Kind: vespa.OpRemove, ID: o.Operation.ID, Meta: "follow-up"}
				if err := f.Enqueue(ctx, op); err != nil {
					failures.Add(1)
				}
			}})
		const n = 100
		for i := range n {
			if err := f.Put(t.Context(), vespa.MustParseDocumentID(fmt.Sprintf("id:ns:music::r%d", i)), map[string]int{"n": i}); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if followUps.Load() != n || failures.Load() != 0 {
			t.Fatalf("%d follow-ups done, %d refused; want %d and 0", followUps.Load(), failures.Load(), n)
		}
	})
	if c := srv.DocumentCount(); c != 0 {
		t.Errorf("%d documents left, want every put removed", c)
	}
}

func TestFeeder_EachOperationHasItsOwnCompletion(t *testing.T) {
	srv := faultServer(t, 5, vespatest.FaultRule{Rate: 0.2, Fault: vespatest.FaultOverload()})
	synctest.Test(t, func(t *testing.T) {
		f := newMemFeeder(t, srv, feed.Config{})
		const n = 200
		var mu sync.Mutex
		done := map[int]int{}
		for i := range n {
			op := feed.Operation{Kind: vespa.OpRemove, ID: vespa.MustParseDocumentID(fmt.Sprintf("id:ns:music::c%d", i%17)),
				Meta: i, Done: func(_ context.Context, o feed.Outcome) {
					mu.Lock()
					defer mu.Unlock()
					if o.OK() && o.Operation.Meta == i {
						done[i]++
					}
				}}
			if err := f.Enqueue(t.Context(), op); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if done[i] != 1 {
				t.Errorf("operation %d completed %d times", i, done[i])
			}
		}
	})
}

func TestFeeder_TypedInputReachesTheEmulatorAsTheClientSendsIt(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	c := newClient(t, srv.URL())
	f, err := feed.New(c, feed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	type song struct {
		Title string   `json:"title"`
		Year  int      `json:"year"`
		Tags  []string `json:"tags,omitempty"`
	}
	v := song{Title: "Viva la Vida", Year: 2008, Tags: []string{"pop"}}
	ctx := t.Context()
	fid, sid := vespa.MustParseDocumentID("id:ns:music::feeder"), vespa.MustParseDocumentID("id:ns:music::sync")
	if err := f.Put(ctx, fid, v); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, sid, v, vespa.OperationOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	upd := func() *vespa.Update { return vespa.NewUpdate().Assign("title", "Yellow").Increment("year", 1) }
	if err := f.Update(ctx, fid, upd()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(ctx, sid, upd(), vespa.OperationOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Update(ctx, fid, map[string]any{"tags": map[string]any{"assign": []string{"rock"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(ctx, sid, map[string]any{"fields": map[string]any{"tags": map[string]any{"assign": []string{"rock"}}}}, vespa.OperationOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Succeeded != 3 {
		t.Fatalf("stats %+v", s)
	}
	got, _ := srv.Document(fid.String())
	want, _ := srv.Document(sid.String())
	if string(got) != string(want) || !strings.Contains(string(got), `"Yellow"`) || !strings.Contains(string(got), "2009") {
		t.Fatalf("feeder's document %s, sync client's %s", got, want)
	}
}

func TestFeeder_InvalidOperationsFailAtEnqueue(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	f, err := feed.New(newClient(t, srv.URL()), feed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	good := vespa.MustParseDocumentID("id:ns:music::ok")
	for name, enqueue := range map[string]func() error{
		"an empty ID": func() error { return f.Put(ctx, vespa.DocumentID{}, map[string]int{"n": 1}) },
		"an ID with n and g": func() error {
			return f.Remove(ctx, vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: "x", HasNumber: true, Group: "g"})
		},
		"a '..' part": func() error {
			return f.Remove(ctx, vespa.DocumentID{Namespace: "ns", DocType: "..", UserSpecific: "x"})
		},
		"fields not an object":  func() error { return f.Put(ctx, good, []byte(`[1,2]`)) },
		"fields not JSON":       func() error { return f.Put(ctx, good, []byte(`{"n":`)) },
		"a value not an object": func() error { return f.Put(ctx, good, 42) },
		"raw fields not JSON": func() error {
			return f.Enqueue(ctx, feed.Operation{Kind: vespa.OpUpdate, ID: good, Fields: []byte(`{"n"}`)})
		},
		"an empty update": func() error { return f.Update(ctx, good, vespa.NewUpdate()) },
		"a broken update": func() error { return f.Update(ctx, good, vespa.NewUpdate().Increment("n", "x")) },
		"an unknown kind": func() error { return f.Enqueue(ctx, feed.Operation{Kind: vespa.OpGet, ID: good}) },
	} {
		if err := enqueue(); !errors.Is(err, feed.ErrInvalidOperation) {
			t.Errorf("%s: %v, want ErrInvalidOperation", name, err)
		}
	}
	// An operation read from a feed file names its line, whatever is wrong.
	bad := vespa.DocumentID{Namespace: "ns", DocType: "..", UserSpecific: "x"}
	for name, op := range map[string]feed.Operation{
		"an invalid ID":   {Kind: vespa.OpRemove, ID: bad, Source: "in.jsonl", Line: 7},
		"fields not JSON": {Kind: vespa.OpPut, ID: good, Fields: []byte(`{"n":`), Source: "in.jsonl", Line: 7},
	} {
		err := f.Enqueue(ctx, op)
		if !errors.Is(err, feed.ErrInvalidOperation) || !strings.Contains(fmt.Sprint(err), "in.jsonl line 7") {
			t.Errorf("%s: %v, want ErrInvalidOperation naming in.jsonl line 7", name, err)
		}
	}
	var idErr *vespa.DocumentIDError
	if err := f.Enqueue(ctx, feed.Operation{Kind: vespa.OpRemove, ID: bad, Line: 1}); !errors.As(err, &idErr) {
		t.Errorf("invalid ID: %v, want a *vespa.DocumentIDError inside", err)
	}
	if err := f.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Requests != 0 || s.Operations != 0 {
		t.Errorf("stats %+v: something was sent", s)
	}
}

func TestFeeder_InputErrorsDoNotEndTheFeed(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	var rec recorder
	f, err := feed.New(newClient(t, srv.URL()), feed.Config{OnOutcome: rec.record})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("the disk is on fire")
	ops := func(yield func(feed.Operation, error) bool) {
		_ = yield(feed.Operation{Kind: vespa.OpRemove, ID: vespa.MustParseDocumentID("id:ns:music::a")}, nil) &&
			yield(feed.Operation{}, boom) &&
			yield(feed.Operation{Kind: vespa.OpRemove, ID: vespa.DocumentID{}}, nil) &&
			yield(feed.Operation{Kind: vespa.OpRemove, ID: vespa.MustParseDocumentID("id:ns:music::b")}, nil)
	}
	if err := f.Feed(t.Context(), ops); !errors.Is(err, boom) {
		t.Fatalf("Feed: %v, want the input's error", err)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := f.Stats()
	if s.Succeeded != 2 || s.Failed != 2 || len(rec.outcomes()) != 4 {
		t.Fatalf("stats %+v, %d outcomes", s, len(rec.outcomes()))
	}
}
