package feed_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
)

// recordingFeeder returns a feeder of c with cfg that records every
// outcome, and a function returning those recorded so far.
func recordingFeeder(t *testing.T, c *vespa.Client, cfg feed.Config) (*feed.Feeder, func() []feed.Outcome) {
	t.Helper()
	var mu sync.Mutex
	var outcomes []feed.Outcome
	cfg.OnOutcome = func(_ context.Context, o feed.Outcome) {
		mu.Lock()
		outcomes = append(outcomes, o)
		mu.Unlock()
	}
	f, err := feed.New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f, func() []feed.Outcome {
		mu.Lock()
		defer mu.Unlock()
		return append([]feed.Outcome(nil), outcomes...)
	}
}

// putAll feeds n puts (id:ns:music::0 ...) through f, closes it, and fails
// the test unless every one succeeded.
func putAll(t *testing.T, f *feed.Feeder, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		if err := f.Put(ctx, vespa.MustParseDocumentID(fmt.Sprintf("id:ns:music::%d", i)), []byte(`{"fields":{"year":1}}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Succeeded != int64(n) {
		t.Fatalf("succeeded %d of %d: %+v", s.Succeeded, n, s)
	}
}
