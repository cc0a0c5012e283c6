package integration

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
)

// feedFile is a JSONL feed file written for the test, and what feeding it
// must do.
type feedFile struct {
	path          string
	ops           int // operations that parse
	badLine       int // the line of the malformed operation
	conflictLine  int // the line of the update whose condition does not hold
	wantSucceeded int
	wantLeft      int // documents in the namespace afterwards
}

// Sizes of the feed file's parts.
const (
	filePuts    = 100
	fileUpdates = 10
	fileRemoves = 10
)

// writeFeedFile writes the feed file into dir: puts of file-0..99, updates
// of file-0..9, an upsert of file-100, a malformed line, a conditional update
// that fails with 412, and removes of file-90..99.
func (s *suite) writeFeedFile(t *testing.T, dir string) feedFile {
	t.Helper()
	var b strings.Builder
	line := 0
	write := func(v any) {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
		line++
	}
	id := func(i int) string { return musicID(s.fileNamespace(), fmt.Sprintf("file-%d", i)).String() }
	for i := range filePuts {
		write(map[string]any{"put": id(i), "fields": s.docs.fields(i)})
	}
	for i := range fileUpdates {
		write(map[string]any{"update": id(i), "fields": map[string]any{"popularity": map[string]any{"assign": 500 + i}}})
	}
	write(map[string]any{"update": id(filePuts), "create": true, "fields": map[string]any{
		"title": map[string]any{"assign": "made by the feed file"},
		"year":  map[string]any{"assign": 1999},
	}})
	ff := feedFile{path: filepath.Join(dir, "feed.jsonl")}
	b.WriteString(`{"put": "` + id(999) + `", "fields": {"title": }}` + "\n")
	line++
	ff.badLine = line
	write(map[string]any{"update": id(1), "condition": "music.popularity == 12345",
		"fields": map[string]any{"year": map[string]any{"assign": 1900}}})
	ff.conflictLine = line
	for i := filePuts - fileRemoves; i < filePuts; i++ {
		write(map[string]any{"remove": id(i)})
	}
	if err := os.WriteFile(ff.path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ff.ops = line - 1
	ff.wantSucceeded = filePuts + fileUpdates + 1 + fileRemoves
	ff.wantLeft = filePuts - fileRemoves + 1
	return ff
}

// testFeedFile writes a JSONL feed file, reads it with feed.Reader, feeds it
// with Feeder.FeedReader and checks the outcomes and the documents.
func (s *suite) testFeedFile(t *testing.T) {
	name := s.tg.Name()
	ff := s.writeFeedFile(t, t.TempDir())

	t.Run("the reader finds every operation and the bad line", func(t *testing.T) {
		f, err := os.Open(ff.path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ops, bad := 0, 0
		for op, err := range feed.NewReader(f, feed.ReaderConfig{Source: "feed.jsonl"}).All() {
			var pe *feed.ParseError
			switch {
			case errors.As(err, &pe):
				bad++
				if pe.Line != ff.badLine || pe.Source != "feed.jsonl" {
					t.Errorf("parse error at %s:%d, want feed.jsonl:%d: %v", pe.Source, pe.Line, ff.badLine, pe)
				}
			case err != nil:
				t.Fatalf("reading %s: %v", ff.path, err)
			default:
				ops++
				if op.Source != "feed.jsonl" || op.Line < 1 {
					t.Errorf("operation %s: source %q line %d", op.ID, op.Source, op.Line)
				}
			}
		}
		if ops != ff.ops || bad != 1 {
			t.Errorf("reader: %d operations and %d bad lines, want %d and 1", ops, bad, ff.ops)
		}
	})

	f, err := os.Open(ff.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var failures []feed.Outcome
	rec := func(o feed.Outcome) {
		if !o.OK() {
			failures = append(failures, o)
		}
	}
	fd, err := feed.New(s.client, feed.Config{OnOutcome: lockedOutcomes(rec)})
	if err != nil {
		t.Fatalf("[%s] feed.New: %v", name, err)
	}
	ferr := fd.FeedReader(s.ctx, "feed.jsonl", io.Reader(f))
	if cerr := fd.Close(s.ctx); cerr != nil {
		t.Fatalf("[%s] feeder Close: %v", name, cerr)
	}
	if ferr != nil {
		t.Fatalf("[%s] FeedReader: %v", name, ferr)
	}
	st := fd.Stats()
	if st.Succeeded != int64(ff.wantSucceeded) || st.Failed != 2 {
		t.Errorf("[%s] feed file: %d succeeded and %d failed, want %d and 2", name, st.Succeeded, st.Failed, ff.wantSucceeded)
	}
	if st.FailuresByStatus[http.StatusPreconditionFailed] != 1 || st.FailuresByStatus[0] != 1 {
		t.Errorf("[%s] feed file: failures by status %v, want one 412 and one without a response", name, st.FailuresByStatus)
	}
	for _, o := range failures {
		var pe *feed.ParseError
		switch {
		case errors.As(o.Err, &pe):
			if pe.Line != ff.badLine {
				t.Errorf("[%s] parse error on line %d, want %d", name, pe.Line, ff.badLine)
			}
		case o.Status == http.StatusPreconditionFailed:
			if o.Operation.Line != ff.conflictLine || !errors.Is(o.Err, vespa.ErrConditionNotMet) {
				t.Errorf("[%s] 412 on line %d (%v), want line %d matching ErrConditionNotMet", name, o.Operation.Line, o.Err, ff.conflictLine)
			}
		default:
			t.Errorf("[%s] unexpected failure on line %d: status %d: %v", name, o.Operation.Line, o.Status, o.Err)
		}
	}

	s.checkFeedFileDocuments(t, ff)
}

// checkFeedFileDocuments checks what the feed file left in its namespace.
func (s *suite) checkFeedFileDocuments(t *testing.T, ff feedFile) {
	name := s.tg.Name()
	id := func(i int) vespa.DocumentID { return musicID(s.fileNamespace(), fmt.Sprintf("file-%d", i)) }
	if got := getSong(t, s, id(0)); got.Popularity != 500 {
		t.Errorf("[%s] file-0: popularity %d, want 500 from the update", name, got.Popularity)
	}
	if got := getSong(t, s, id(1)); got.Year != s.docs.song(1).Year || got.Popularity != 501 {
		t.Errorf("[%s] file-1: year %d popularity %d, want %d (the failed conditional update changed nothing) and 501",
			name, got.Year, got.Popularity, s.docs.song(1).Year)
	}
	if got := getSong(t, s, id(filePuts)); got.Title != "made by the feed file" || got.Year != 1999 {
		t.Errorf("[%s] file-%d = %+v, want the upsert's title and year", name, filePuts, got)
	}
	_, err := s.client.Get(s.ctx, id(filePuts-1), vespa.OperationOptions{})
	wantStatus(t, name, "get of a removed document", err, http.StatusNotFound, vespa.ErrNotFound)

	n := 0
	for doc, err := range s.client.Visit(s.ctx, vespa.VisitRequest{
		Namespace: s.fileNamespace(), DocType: "music", Cluster: s.tg.Cluster(), FieldSet: "[id]",
	}) {
		if err != nil {
			t.Fatalf("[%s] visit of %s: %v", name, s.fileNamespace(), err)
		}
		if !strings.HasPrefix(doc.ID, "id:"+s.fileNamespace()+":music::file-") {
			t.Errorf("[%s] visit of %s yielded %s", name, s.fileNamespace(), doc.ID)
		}
		n++
	}
	if n != ff.wantLeft {
		t.Errorf("[%s] %d documents in %s after the feed file, want %d", name, n, s.fileNamespace(), ff.wantLeft)
	}
}
