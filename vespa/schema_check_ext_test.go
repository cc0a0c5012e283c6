package vespa_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/schema"
)

// checkedApp is the application of the WithSchema tests.
func checkedApp(t *testing.T) *schema.Application {
	t.Helper()
	app, err := schema.ParseDir(testutil.AppDir(t, map[string]string{"schemas/music.sd": `schema music {
    document music {
        field title type string { indexing: summary | index }
        field year type int { indexing: summary | attribute }
        field tags type array<string> { indexing: summary }
        field embedding type tensor<float>(x[3]) { indexing: attribute }
    }
}`}))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// pathLog records the method and path of every request a server receives.
type pathLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *pathLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, r.Method+" "+r.URL.Path)
}

func (l *pathLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// TestWithSchema_RefusesBeforeSending checks issue 31's sync client: under
// WithSchema, a put with a misspelt field or a value of the wrong type, an
// update its field does not take (built or raw, "fields" not first), a
// tensor with too many cells and a remove of an unknown document type fail
// with an *EncodeError matching vespa.ErrInvalidDocument and
// schema.ErrInvalidDocument, unwrapping to the *schema.CheckError of the
// field, naming the ID, the field and what was wanted; none of them reaches
// the server, and the operations that fit do.
func TestWithSchema_RefusesBeforeSending(t *testing.T) {
	var log pathLog
	srv := recordingVespa(t, log.add)
	c := newTestClient(t, srv.URL, vespa.WithSchema(checkedApp(t)))
	ctx := context.Background()
	none := vespa.OperationOptions{}
	id := vespa.MustParseDocumentID
	refused := []struct {
		name  string
		do    func() error
		id    string
		field string
		words []string
	}{
		{"misspelt field", func() error {
			_, err := c.Put(ctx, id("id:ns:music::b"), map[string]any{"title": "B", "yeer": 1991}, none)
			return err
		}, "id:ns:music::b", "yeer", []string{"want a field of music", "no such field"}},
		{"wrong type", func() error {
			_, err := c.Put(ctx, id("id:ns:music::c"), json.RawMessage(`{"year":"vespa: 1990x"}`), none)
			return err
		}, "id:ns:music::c", "year", []string{"want int", `"vespa: 1990x"`}},
		{"tensor shape", func() error {
			_, err := c.Put(ctx, id("id:ns:music::d"), json.RawMessage(`{"embedding":[1,2,3,4]}`), none)
			return err
		}, "id:ns:music::d", "embedding", []string{"tensor<float>(x[3])"}},
		{"built update", func() error {
			_, err := c.Update(ctx, id("id:ns:music::e"), vespa.NewUpdate().Increment("title", 1), none)
			return err
		}, "id:ns:music::e", "title", []string{"an update operation that string takes", `"increment"`}},
		{"raw update", func() error {
			body := json.RawMessage(`{"condition":"music.year > 0","fields":{"tags":{"add":["x"]},"year":{"add":[1]}}}`)
			_, err := c.Update(ctx, id("id:ns:music::f"), body, none)
			return err
		}, "id:ns:music::f", "year", []string{"an update operation that int takes", `"add"`}},
		{"remove of an unknown type", func() error {
			_, err := c.Remove(ctx, id("id:ns:album::g"), none)
			return err
		}, "id:ns:album::g", "", []string{`document type "album"`}},
	}
	for _, r := range refused {
		err := r.do()
		var ee *vespa.EncodeError
		var ce *schema.CheckError
		var ve *vespa.Error
		switch {
		case !errors.Is(err, vespa.ErrInvalidDocument) || !errors.Is(err, schema.ErrInvalidDocument):
			t.Errorf("%s: %v; want an error matching vespa.ErrInvalidDocument and schema.ErrInvalidDocument", r.name, err)
		case !errors.As(err, &ee) || !errors.As(err, &ce) || errors.As(err, &ve):
			t.Errorf("%s: %#v; want an *EncodeError wrapping a *schema.CheckError, no *vespa.Error", r.name, err)
		case ee.ID != r.id || ce.Field != r.field:
			t.Errorf("%s: ID %q field %q; want %q and %q", r.name, ee.ID, ce.Field, r.id, r.field)
		}
		if err == nil {
			continue
		}
		for _, w := range append([]string{r.id}, r.words...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", r.name, err, w)
			}
		}
	}
	if got := log.list(); len(got) != 0 {
		t.Fatalf("refused operations reached the server: %q", got)
	}

	// What fits is sent; a get is not checked.
	if _, err := c.Put(ctx, id("id:ns:music::a"), map[string]any{"title": "A", "year": 1990, "embedding": []float64{1, 2, 3}}, none); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(ctx, id("id:ns:music::a"), vespa.NewUpdate().Increment("year", 1).Add("tags", []string{"x"}), none); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Remove(ctx, id("id:ns:music::a"), none); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, id("id:ns:album::a"), none); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"POST /document/v1/ns/music/docid/a", "PUT /document/v1/ns/music/docid/a",
		"DELETE /document/v1/ns/music/docid/a", "GET /document/v1/ns/album/docid/a",
	}
	if got := log.list(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %q, want %q", got, want)
	}
}

// TestWithSchema_UpdateWhere: an update by selection that does not fit its
// document type is refused before any page is asked for.
func TestWithSchema_UpdateWhere(t *testing.T) {
	var log pathLog
	srv := recordingVespa(t, log.add)
	c := newTestClient(t, srv.URL, vespa.WithSchema(checkedApp(t)))
	_, err := c.UpdateWhere(context.Background(), vespa.SelectionRequest{
		Namespace: "ns", DocType: "music", Cluster: "c", Selection: "true",
	}, vespa.NewUpdate().Assign("titel", "x"))
	var ce *schema.CheckError
	if !errors.Is(err, vespa.ErrInvalidDocument) || !errors.As(err, &ce) || ce.Field != "titel" {
		t.Fatalf("UpdateWhere: %v; want the field titel refused", err)
	}
	if !strings.HasPrefix(err.Error(), "vespa: update-where: invalid document, nothing sent: ") {
		t.Errorf("%q", err)
	}
	if got := log.list(); len(got) != 0 {
		t.Fatalf("a refused update-where reached the server: %q", got)
	}
}

// TestWithSchema_Option: a nil application is an error, and Client.Schema
// gives back the one given (nil without the option).
func TestWithSchema_Option(t *testing.T) {
	if _, err := vespa.NewClient("http://127.0.0.1:1", vespa.WithSchema(nil)); err == nil || !strings.Contains(err.Error(), "WithSchema") {
		t.Errorf("WithSchema(nil): %v; want an error naming the option", err)
	}
	app := checkedApp(t)
	if c := newTestClient(t, "http://127.0.0.1:1", vespa.WithSchema(app)); c.Schema() != app {
		t.Error("Client.Schema is not the application given to WithSchema")
	}
	if c := newTestClient(t, "http://127.0.0.1:1"); c.Schema() != nil {
		t.Error("Client.Schema is set without WithSchema")
	}
	if s := vespa.WithSchema(app).String(); s != "WithSchema(*schema.Application)" {
		t.Errorf("String() = %q", s)
	}
}
