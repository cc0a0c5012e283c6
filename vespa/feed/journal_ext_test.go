package feed_test

import (
	"context"
	"os"
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

// feedThroughJournal feeds input under source with a fresh feeder on the
// journal at path, and returns its stats.
func feedThroughJournal(t *testing.T, srv *vespatest.Server, path, source, input string) feed.Stats {
	t.Helper()
	j, err := feed.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := j.Close(); err != nil {
			t.Error(err)
		}
	}()
	f, err := feed.New(newClient(t, srv.URL()), feed.Config{Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.FeedReader(t.Context(), source, strings.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.JournalMismatches != j.Mismatches() {
		t.Errorf("stats count %d mismatches, the journal %d", s.JournalMismatches, j.Mismatches())
	}
	return f.Stats()
}

func TestJournal_AnotherInputUnderTheSameNameIsFedNotSkipped(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	path := filepath.Join(t.TempDir(), "journal")
	// Two different feeds of the same shape, both read as "-" (stdin).
	first := feedLines(50, 50)
	second := strings.ReplaceAll(first, "music::d", "music::e")
	if s := feedThroughJournal(t, srv, path, "-", first); s.Succeeded != 50 || s.Skipped != 0 {
		t.Fatalf("first feed: %+v", s)
	}
	s := feedThroughJournal(t, srv, path, "-", second)
	if s.Succeeded != 50 || s.Skipped != 0 || s.JournalMismatches != 50 {
		t.Fatalf("second feed: %d fed, %d skipped, %d mismatches; want 50, 0, 50", s.Succeeded, s.Skipped, s.JournalMismatches)
	}
	if srv.DocumentCount() != 100 {
		t.Fatalf("%d documents, want both feeds' 100", srv.DocumentCount())
	}
	// The same second feed again: now the journal holds it.
	if s := feedThroughJournal(t, srv, path, "-", second); s.Skipped != 50 || s.Requests != 0 || s.JournalMismatches != 0 {
		t.Fatalf("third feed: %+v", s)
	}
}

func TestJournal_AChangedFileIsFedWhereItChanged(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	path := filepath.Join(t.TempDir(), "journal")
	input := feedLines(20, 20)
	if s := feedThroughJournal(t, srv, path, "in.jsonl", input); s.Succeeded != 20 {
		t.Fatalf("first feed: %+v", s)
	}
	// Regenerated: the same offsets, line 7 with another value.
	changed := strings.Replace(input, `"n":6}`, `"n":9}`, 1)
	s := feedThroughJournal(t, srv, path, "in.jsonl", changed)
	if s.Skipped != 19 || s.Succeeded != 1 || s.JournalMismatches != 1 {
		t.Fatalf("changed feed: %d skipped, %d fed, %d mismatches; want 19, 1, 1", s.Skipped, s.Succeeded, s.JournalMismatches)
	}
	if doc, _ := srv.Document("id:ns:music::d6"); string(doc) != `{"n":9}` {
		t.Fatalf("changed document holds %s", doc)
	}
}

func TestJournal_RecordsWithoutAHashAreNotTrusted(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	path := filepath.Join(t.TempDir(), "journal")
	// The first journal format: offset and source only.
	if err := os.WriteFile(path, []byte("0 \"in.jsonl\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := feedThroughJournal(t, srv, path, "in.jsonl", feedLines(3, 3))
	if s.Skipped != 0 || s.Succeeded != 3 || s.JournalMismatches != 1 {
		t.Fatalf("%+v", s)
	}
}

func TestJournal_UnnamedInputIsNeverJournalled(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	path := filepath.Join(t.TempDir(), "journal")
	feedThroughJournal(t, srv, path, "", feedLines(5, 5))
	if s := feedThroughJournal(t, srv, path, "", feedLines(5, 5)); s.Skipped != 0 || s.Succeeded != 5 {
		t.Fatalf("%+v", s)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) != 0 {
		t.Fatalf("journal holds %q (%v)", b, err)
	}
}
