package feed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// A journal that cannot write must say so through Err, Flush and the
// feeder's Close, not lose its records silently.
func TestJournal_WriteErrorSurfaces(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	client, err := vespa.NewClient(srv.URL(), vespa.WithHTTPVersion(vespa.HTTP2))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	j, err := OpenJournal(filepath.Join(t.TempDir(), "journal"))
	if err != nil {
		t.Fatal(err)
	}
	// The file goes away under the journal: every write now fails.
	if err := j.f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := New(client, Config{Connections: 1, MinInflight: 4, MaxInflight: 4, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for i := range 2 * journalFlushEvery {
		fmt.Fprintf(&in, `{"put":"id:ns:music::d%d","fields":{"n":%d}}`+"\n", i, i)
	}
	if err := f.FeedReader(t.Context(), "in.jsonl", strings.NewReader(in.String())); err != nil {
		t.Fatal(err)
	}
	err = f.Close(context.Background())
	if !errors.Is(err, os.ErrClosed) {
		t.Errorf("feeder Close = %v, want the journal's write error", err)
	}
	if s := f.Stats(); s.Succeeded != 2*journalFlushEvery {
		t.Errorf("%d succeeded, want %d: the journal's failure is not the operations'", s.Succeeded, 2*journalFlushEvery)
	}
	if !errors.Is(j.Err(), os.ErrClosed) {
		t.Errorf("journal Err = %v, want the write error", j.Err())
	}
	if !errors.Is(j.Flush(), os.ErrClosed) {
		t.Errorf("journal Flush = %v, want the write error", j.Flush())
	}
	if err := j.Close(); err == nil {
		t.Error("journal Close = nil after write errors")
	}
}
