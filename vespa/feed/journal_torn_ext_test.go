package feed_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestJournal_TornLastLineDoesNotSwallowTheNextRecord checks issue 27 item
// 10: after a crash left the journal's last line torn (a record cut short)
// or zero-filled (a file system that extended the file before writing it),
// the next run's first record starts on a line of its own, so a third run
// skips every operation the first two fed. Before, the first record of the
// second run joined the torn line and was lost: the third run fed it again.
func TestJournal_TornLastLineDoesNotSwallowTheNextRecord(t *testing.T) {
	for _, tc := range []struct{ name, tail string }{
		{"torn record", `17 00ab34`},
		{"zero-filled", strings.Repeat("\x00", 300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := vespatest.NewTestServer(t)
			path := filepath.Join(t.TempDir(), "journal")
			all := feedLines(40, 40)
			first := all[:nthLine(all, 20)]
			if s := feedThroughJournal(t, srv, path, "in.jsonl", first); s.Succeeded != 20 {
				t.Fatalf("first run: %+v", s)
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(tc.tail); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if s := feedThroughJournal(t, srv, path, "in.jsonl", all); s.Skipped != 20 || s.Succeeded != 20 {
				t.Fatalf("second run: %d skipped, %d fed; want 20 and 20", s.Skipped, s.Succeeded)
			}
			if s := feedThroughJournal(t, srv, path, "in.jsonl", all); s.Skipped != 40 || s.Succeeded != 0 {
				t.Errorf("third run: %d skipped, %d fed; want 40 and 0 (a record of the second run was lost)", s.Skipped, s.Succeeded)
			}
		})
	}
}

// nthLine returns the offset just after the n-th line of s.
func nthLine(s string, n int) int {
	off := 0
	for range n {
		off += strings.IndexByte(s[off:], '\n') + 1
	}
	return off
}

// TestJournal_SecondOpenIsRefused checks issue 27 item 10: a journal file
// that a Journal holds is refused to a second one (ErrJournalInUse, naming
// the file), so two feeds never write one journal; once the first is closed
// the file opens again, with its records.
func TestJournal_SecondOpenIsRefused(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	path := filepath.Join(t.TempDir(), "journal")
	if s := feedThroughJournal(t, srv, path, "in.jsonl", feedLines(10, 10)); s.Succeeded != 10 {
		t.Fatalf("first feed: %+v", s)
	}
	j, err := feed.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	j2, err := feed.OpenJournal(path)
	if err == nil {
		_ = j2.Close()
		t.Fatal("a second OpenJournal of a held journal succeeded")
	}
	if !errors.Is(err, feed.ErrJournalInUse) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q: want feed.ErrJournalInUse naming %s", err, path)
	}
	if !j.Acknowledged("in.jsonl", 0) {
		t.Error("the first journal lost its records")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if s := feedThroughJournal(t, srv, path, "in.jsonl", feedLines(10, 10)); s.Skipped != 10 {
		t.Errorf("after the first closed: %d skipped, want 10", s.Skipped)
	}
}
