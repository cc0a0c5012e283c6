package feed_test

import (
	"context"
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
