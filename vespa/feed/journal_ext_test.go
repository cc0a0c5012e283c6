package feed_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

func TestJournal_ResumeSkipsWhatWasAcknowledged(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	path := filepath.Join(t.TempDir(), "journal")
	const n, docs = 400, 29
	input := feedLines(n, docs)

	// First run: interrupted after 150 acknowledgements.
	j, err := feed.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var acked1 recorder
	var okCount atomic.Int64
	f, err := feed.New(newClient(t, srv.URL()), feed.Config{Connections: 2, MinInflight: 4, MaxInflight: 8, Journal: j,
		OnOutcome: func(ctx context.Context, o feed.Outcome) {
			if o.OK() {
				acked1.record(ctx, o)
				if okCount.Add(1) == 150 {
					cancel()
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	_ = f.FeedReader(ctx, "in.jsonl", strings.NewReader(input))
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	first := acked1.outcomes()
	if len(first) < 150 || len(first) >= n {
		t.Fatalf("first run acknowledged %d", len(first))
	}

	// Second run with the same journal and input.
	j, err = feed.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var rec recorder
	f, err = feed.New(newClient(t, srv.URL()), feed.Config{Journal: j, OnOutcome: rec.record})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.FeedReader(t.Context(), "in.jsonl", strings.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	skipped := map[int]bool{}
	for _, o := range rec.outcomes() {
		if !o.OK() {
			t.Errorf("line %d failed: %v", o.Operation.Line, o.Err)
		}
		if o.Skipped {
			skipped[o.Operation.Line] = true
		}
	}
	for _, o := range first {
		if !skipped[o.Operation.Line] {
			t.Errorf("line %d was acknowledged in the first run and fed again", o.Operation.Line)
		}
	}
	s := f.Stats()
	if s.Skipped != int64(len(first)) || s.Succeeded != int64(n-len(first)) || s.Requests != s.Succeeded {
		t.Errorf("second run: %d skipped, %d fed (%d requests); first run acknowledged %d", s.Skipped, s.Succeeded, s.Requests, len(first))
	}
	checkFinalState(t, srv, n, docs)
}
