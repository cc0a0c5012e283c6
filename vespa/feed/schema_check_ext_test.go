package feed_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/schema"
	"github.com/govespa/govespa/vespa/vespatest"
)

// appOf writes an application package whose one schema is sd, and
// parses it as a user would.
func appOf(tb testing.TB, sd string) *schema.Application {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "schemas")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "music.sd"), []byte(sd), 0o644); err != nil {
		tb.Fatal(err)
	}
	app, err := schema.ParseDir(filepath.Dir(dir))
	if err != nil {
		tb.Fatal(err)
	}
	return app
}

// musicApp is an application with a music schema.
func musicApp(tb testing.TB) *schema.Application {
	return appOf(tb, `schema music {
    document music {
        field title type string { indexing: summary | index }
        field year type int { indexing: summary | attribute }
        field n type int { indexing: summary | attribute }
        field tags type array<string> { indexing: summary }
    }
}
`)
}

// TestFeeder_SchemaRefusesWhatDoesNotFit checks issue 31's pre-send check:
// with Config.Schema, a put with a misspelt field, an update the field's
// type does not take and an operation on an unknown document type fail
// before any request, each naming its line, document ID and field, and
// every other operation is fed.
func TestFeeder_SchemaRefusesWhatDoesNotFit(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	input := strings.Join([]string{
		`{"put":"id:ns:music::a","fields":{"title":"A","year":1990}}`,
		`{"put":"id:ns:music::b","fields":{"title":"B","yeer":1991}}`,
		`{"update":"id:ns:music::a","fields":{"title":{"increment":1}}}`,
		`{"put":"id:ns:album::c","fields":{"title":"C"}}`,
		`{"update":"id:ns:music::a","fields":{"tags":{"add":["x"]}}}`,
		`{"remove":"id:ns:music::z"}`,
	}, "\n") + "\n"
	f, outcomes := recordingFeeder(t, newClient(t, srv.URL()), feed.Config{Schema: musicApp(t)})
	if err := f.FeedReader(t.Context(), "in.jsonl", strings.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := map[int][]string{ // line -> what the error names
		2: {"in.jsonl line 2", "id:ns:music::b", `field "yeer"`, "a field of music"},
		3: {"in.jsonl line 3", "id:ns:music::a", `field "title"`, "an update operation that string takes", `"increment"`},
		4: {"in.jsonl line 4", "id:ns:album::c", `document type "album"`},
	}
	got := outcomes()
	if len(got) != 6 {
		t.Fatalf("%d outcomes, want 6", len(got))
	}
	for _, o := range got {
		words, bad := want[o.Operation.Line]
		switch {
		case !bad && !o.OK():
			t.Errorf("line %d failed: %v", o.Operation.Line, o.Err)
		case bad && (!errors.Is(o.Err, feed.ErrInvalidOperation) || !errors.Is(o.Err, schema.ErrInvalidDocument) || o.Attempts != 0):
			t.Errorf("line %d: %v after %d attempts; want refused before any request", o.Operation.Line, o.Err, o.Attempts)
		case bad:
			for _, w := range words {
				if !strings.Contains(o.Err.Error(), w) {
					t.Errorf("line %d: %q does not say %q", o.Operation.Line, o.Err, w)
				}
			}
		}
	}
	if s := f.Stats(); s.Requests != 3 {
		t.Errorf("%d requests, want 3 (the operations that fit)", s.Requests)
	}
}

// TestFeeder_SchemaOfTheClient checks the one rule of Config.Schema's nil:
// a feeder on a client made with vespa.WithSchema checks with the client's
// application, and a Config.Schema of its own takes its place.
func TestFeeder_SchemaOfTheClient(t *testing.T) {
	input := `{"put":"id:ns:music::a","fields":{"title":"A"}}` + "\n" +
		`{"put":"id:ns:music::b","fields":{"title":"B","yeer":1991}}` + "\n"
	// yeerApp has the field the music app does not.
	yeerApp := appOf(t, `schema music { document music {
        field title type string { indexing: summary }
        field yeer type int { indexing: summary } } }`)
	for _, tc := range []struct {
		name    string
		own     *schema.Application
		refused bool
	}{{"client's", nil, true}, {"feeder's own", yeerApp, false}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := vespatest.NewTestServer(t)
			c := newClient(t, srv.URL(), vespa.WithSchema(musicApp(t)))
			f, outcomes := recordingFeeder(t, c, feed.Config{Schema: tc.own})
			if err := f.FeedReader(t.Context(), "in.jsonl", strings.NewReader(input)); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
			for _, o := range outcomes() {
				refused := errors.Is(o.Err, schema.ErrInvalidDocument) && o.Attempts == 0
				if want := tc.refused && o.Operation.Line == 2; refused != want || (!want && !o.OK()) {
					t.Errorf("line %d: %v after %d attempts; refused %v, want %v", o.Operation.Line, o.Err, o.Attempts, refused, want)
				}
			}
			if want := map[bool]int64{true: 1, false: 2}[tc.refused]; f.Stats().Requests != want {
				t.Errorf("%d requests, want %d", f.Stats().Requests, want)
			}
		})
	}
}

// TestFeeder_SchemaStopAtFirstBadLine: with StopAtFirstBadLine, a schema
// refusal stops the feed as a malformed line does: Feed returns it (naming
// the line and the field) and nothing after it is fed.
func TestFeeder_SchemaStopAtFirstBadLine(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	input := `{"put":"id:ns:music::a","fields":{"title":"A"}}` + "\n" +
		`{"put":"id:ns:music::b","fields":{"yeer":1991}}` + "\n" +
		`{"put":"id:ns:music::c","fields":{"title":"C"}}` + "\n"
	f, outcomes := recordingFeeder(t, newClient(t, srv.URL()), feed.Config{Schema: musicApp(t), StopAtFirstBadLine: true})
	err := f.FeedReader(t.Context(), "in.jsonl", strings.NewReader(input))
	if !errors.Is(err, feed.ErrInvalidOperation) || !errors.Is(err, schema.ErrInvalidDocument) ||
		!strings.Contains(err.Error(), "in.jsonl line 2") || !strings.Contains(err.Error(), `field "yeer"`) {
		t.Fatalf("FeedReader: %v; want the refusal of line 2", err)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := outcomes(); len(got) != 1 || got[0].Operation.Line != 1 || !got[0].OK() {
		t.Errorf("outcomes %+v; want line 1 fed, and nothing after line 2", got)
	}
}
