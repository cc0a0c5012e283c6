package feed_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

// taggedContext is a caller's context type whose type is comparable but
// whose values are not: == on two of them panics when tags holds a slice.
type taggedContext struct {
	context.Context
	tags any
}

// Any caller context is safe: operations enqueued with struct-valued
// contexts holding slices all succeed. Before, the feeder compared them with
// == after a type-only check and panicked on a feeder goroutine, killing the
// program (issue 27, item 7).
func TestFeeder_IncomparableContextsAreSafe(t *testing.T) {
	srv := vespatest.NewServer()
	defer srv.Close()
	f, err := feed.New(newClient(t, srv.URL()), feed.Config{Connections: 1, MinInflight: 1, MaxInflight: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		ctx := taggedContext{Context: t.Context(), tags: []string{fmt.Sprint(i)}}
		if err := f.Put(ctx, vespa.MustParseDocumentID(fmt.Sprintf("id:ns:music::%d", i)), map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := f.Stats(); st.Succeeded != 50 {
		t.Errorf("%d of 50 succeeded", st.Succeeded)
	}
}
