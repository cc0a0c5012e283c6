package feedrig_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/govespa/govespa/internal/feedrig"
	"github.com/govespa/govespa/internal/testutil"
)

func TestFields_sizes(t *testing.T) {
	for name, c := range map[string]struct {
		fields   []byte
		min, max int
	}{
		"small": {feedrig.SmallFields(), 100, 200},
		"large": {feedrig.LargeFields(), 3000, 5000},
	} {
		var v map[string]any
		if err := json.Unmarshal(c.fields, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := len(c.fields); n < c.min || n > c.max {
			t.Errorf("%s fields: %d bytes, want %d to %d", name, n, c.min, c.max)
		}
	}
	var v struct{ Embedding struct{ Values []float64 } }
	if err := json.Unmarshal(feedrig.LargeFields(), &v); err != nil || len(v.Embedding.Values) != 384 {
		t.Errorf("large fields: %d values, %v; want 384", len(v.Embedding.Values), err)
	}
}

func TestWriteFeed_limits(t *testing.T) {
	small := func(int64) []byte { return feedrig.SmallFields() }
	line := int64(len(feedrig.AppendPut(nil, 0, feedrig.SmallFields())))
	for _, c := range []struct {
		docs, size int64
		want       int64
	}{
		{docs: 5, want: 5},
		{size: 3*line + 1, want: 4},
		{size: 3 * line, want: 3},
		{docs: 2, size: 100 * line, want: 2},
		{docs: 100, size: 2 * line, want: 2},
		{want: 0},
	} {
		path := filepath.Join(t.TempDir(), "feed.jsonl")
		written, n, err := feedrig.WriteFeed(path, c.docs, c.size, small)
		if err != nil {
			t.Fatal(err)
		}
		data := testutil.ReadFile(t, path)
		if n != c.want || written != int64(len(data)) || int64(bytes.Count(data, []byte("\n"))) != n {
			t.Errorf("docs %d size %d: wrote %d documents, %d bytes; file %d bytes, %d lines; want %d documents",
				c.docs, c.size, n, written, len(data), bytes.Count(data, []byte("\n")), c.want)
		}
	}
}

// Each line is a put of the next document, with the fields asked for it.
func TestWriteFeed_lines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "feed.jsonl")
	fields := func(i int64) []byte { return fmt.Appendf(nil, `{"year":%d}`, 1990+i) }
	if _, _, err := feedrig.WriteFeed(path, 3, 0, fields); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fh.Close() }()
	sc := bufio.NewScanner(fh)
	var i int
	for ; sc.Scan(); i++ {
		var op struct {
			Put    string
			Fields struct{ Year int }
		}
		if err := json.Unmarshal(sc.Bytes(), &op); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if want := fmt.Sprintf("id:ns:music::d%d", i); op.Put != want || op.Fields.Year != 1990+i {
			t.Errorf("line %d: put %q year %d, want %q %d", i, op.Put, op.Fields.Year, want, 1990+i)
		}
	}
	if i != 3 {
		t.Errorf("%d lines, want 3", i)
	}
}

func TestWriteFeed_badPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-dir", "feed.jsonl")
	if _, _, err := feedrig.WriteFeed(path, 1, 0, func(int64) []byte { return feedrig.SmallFields() }); err == nil {
		t.Error("no error for a file in a missing directory")
	}
}
