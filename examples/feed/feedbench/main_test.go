package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/feed"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "64MiB": 64 << 20, "3KiB": 3 << 10, "2GB": 2e9, "100": 100} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1MiB", "0", "x"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) gave no error", in)
		}
	}
}

// The generated feed is a valid feed file of the size and documents asked.
func TestWriteFeed(t *testing.T) {
	for _, docs := range []string{"small", "large", "mixed"} {
		path := filepath.Join(t.TempDir(), "feed.jsonl")
		n, count, err := writeFeed(path, 64<<10, docs)
		if err != nil {
			t.Fatal(err)
		}
		data := testutil.ReadFile(t, path)
		if int64(len(data)) != n || n < 64<<10 || int64(bytes.Count(data, []byte("\n"))) != count {
			t.Fatalf("%s: %d bytes, %d documents reported; file has %d bytes, %d lines", docs, n, count, len(data), bytes.Count(data, []byte("\n")))
		}
		var read, small, large int64
		for op, err := range feed.NewReader(bytes.NewReader(data), feed.ReaderConfig{}).All() {
			if err != nil {
				t.Fatalf("%s: %v", docs, err)
			}
			read++
			if len(op.Fields) > 1000 {
				large++
			} else {
				small++
			}
		}
		if read != count {
			t.Errorf("%s: read %d operations, want %d", docs, read, count)
		}
		switch {
		case docs == "small" && large != 0, docs == "large" && small != 0, docs == "mixed" && (small == 0 || large == 0):
			t.Errorf("%s: %d small and %d large documents", docs, small, large)
		}
	}
}

func TestRun_HelpExitsZeroAndBadFlagTwo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if got := run(t.Context(), []string{"-h"}, &stdout, &stderr); got != 0 || !strings.Contains(stderr.String(), "-size") {
		t.Fatalf("-h: exit %d, usage %q; want 0 and the flags", got, stderr.String())
	}
	if got := run(t.Context(), []string{"-no-such-flag"}, &stdout, &stderr); got != 2 {
		t.Fatalf("bad flag: exit %d, want 2", got)
	}
}
