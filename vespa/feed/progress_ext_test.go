package feed_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

// Config.Progress is called while the feed runs, one call at a time, with
// a pace and an ETA from ExpectedOperations, and Close makes a last call
// marked Final after every outcome.
func TestFeeder_ProgressReported(t *testing.T) {
	srv := vespatest.NewServer(vespatest.WithFaults(vespatest.FaultRule{Op: vespatest.OpPut, Rate: 1, Fault: vespatest.FaultLatency(2 * time.Millisecond)}))
	defer srv.Close()
	c, err := vespa.NewClient(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mu sync.Mutex
	var calls []feed.Progress
	inCall := false
	const n = 300
	f, err := feed.New(c, feed.Config{
		MaxInflight: 4, MinInflight: 4, ProgressInterval: 5 * time.Millisecond, ExpectedOperations: n,
		Progress: func(p feed.Progress) {
			mu.Lock()
			if inCall {
				t.Error("two Progress calls at once")
			}
			inCall = true
			calls = append(calls, p)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			inCall = false
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := f.Put(t.Context(), vespa.MustParseDocumentID(fmt.Sprintf("id:ns:music::%d", i)), map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) < 2 {
		t.Fatalf("%d Progress calls, want some during the feed and a final one", len(calls))
	}
	last := calls[len(calls)-1]
	if !last.Final || last.Stats.Succeeded != n || last.ETA != 0 || last.OperationsPerSecond <= 0 {
		t.Errorf("last call %+v, want Final with %d successes, a pace and no ETA", last, n)
	}
	sawETA := false
	for _, p := range calls[:len(calls)-1] {
		if p.Final {
			t.Errorf("a call before the last is Final: %+v", p)
		}
		sawETA = sawETA || p.ETA > 0
	}
	if !sawETA {
		t.Error("no call during the feed estimated the time left")
	}
}
