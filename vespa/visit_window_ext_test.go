package vespa_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
)

// TestVisit_TimestampWindowAndRemovesResume writes a corpus, marks a point
// in time, then changes part of it (new documents, updates, removals), and
// visits the window after the mark with removes in two runs, the second
// resuming the first: together they yield each change exactly once, and
// nothing older.
func TestVisit_TimestampWindowAndRemovesResume(t *testing.T) {
	srv, c := newVisitServer(t)
	old := visitCorpus(t, srv, "ns", 200)
	time.Sleep(2 * time.Millisecond) // the emulator's clock is wall time in µs
	mark := time.Now()
	time.Sleep(2 * time.Millisecond)

	changed := map[string]bool{} // ID -> removed
	for i := range 40 {
		id := fmt.Sprintf("id:ns:music::new-%02d", i)
		if err := srv.PutDocument(id, []byte(`{"title":"new"}`)); err != nil {
			t.Fatal(err)
		}
		changed[id] = false
	}
	for i := 0; i < 200; i += 10 {
		id := vespa.MustParseDocumentID(fmt.Sprintf("id:ns:music::doc-%04d", i))
		if i%20 == 0 {
			if _, err := c.Remove(t.Context(), id, vespa.OperationOptions{}); err != nil {
				t.Fatal(err)
			}
			changed[id.String()] = true
			continue
		}
		if _, err := c.Update(t.Context(), id, vespa.NewUpdate().Assign("title", "changed"), vespa.OperationOptions{}); err != nil {
			t.Fatal(err)
		}
		changed[id.String()] = false
	}
	time.Sleep(2 * time.Millisecond)
	end := time.Now()
	if err := srv.PutDocument("id:ns:music::after-the-window", []byte(`{"title":"late"}`)); err != nil {
		t.Fatal(err)
	}

	req := vespa.VisitRequest{Namespace: "ns", DocType: "music", FromTimestamp: mark, ToTimestamp: end, IncludeRemoves: true, WantedDocumentCount: 5}
	v, err := c.Visitor(req)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	check := func(d *vespa.Document) {
		t.Helper()
		got[d.ID]++
		removed, ok := changed[d.ID]
		switch {
		case !ok:
			t.Errorf("%s is outside the window", d.ID)
		case removed != d.Removed:
			t.Errorf("%s: Removed=%v, want %v", d.ID, d.Removed, removed)
		case d.Removed && d.Fields != nil:
			t.Errorf("%s: a removed document with fields %s", d.ID, d.Fields)
		}
	}
	for d, err := range v.All(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		if check(d); len(got) == len(changed)/2 {
			break
		}
	}
	req.ResumeToken = v.ResumeToken()
	for d, err := range c.Visit(t.Context(), req) {
		if err != nil {
			t.Fatal(err)
		}
		check(d)
	}
	for id := range changed {
		if got[id] != 1 {
			t.Errorf("%s yielded %d times, want once", id, got[id])
		}
	}
	if len(old) == 0 {
		t.Fatal("no corpus")
	}

	t.Run("the token covers the window and the removes", func(t *testing.T) {
		for name, other := range map[string]vespa.VisitRequest{
			"another start":   {FromTimestamp: mark.Add(time.Millisecond), ToTimestamp: end, IncludeRemoves: true},
			"another end":     {FromTimestamp: mark, ToTimestamp: end.Add(time.Millisecond), IncludeRemoves: true},
			"without removes": {FromTimestamp: mark, ToTimestamp: end},
		} {
			other.Namespace, other.DocType, other.WantedDocumentCount, other.ResumeToken = "ns", "music", 5, req.ResumeToken
			if _, err := c.Visitor(other); !errors.Is(err, vespa.ErrInvalidResumeToken) {
				t.Errorf("%s: got %v, want ErrInvalidResumeToken", name, err)
			}
		}
	})
	t.Run("without removes, only what exists", func(t *testing.T) {
		for d, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", FromTimestamp: mark, ToTimestamp: end}) {
			if err != nil {
				t.Fatal(err)
			}
			if d.Removed || changed[d.ID] {
				t.Errorf("%s: a removed document without IncludeRemoves", d.ID)
			}
		}
	})
	t.Run("a window that ends before it starts", func(t *testing.T) {
		if _, err := c.Visitor(vespa.VisitRequest{Namespace: "ns", DocType: "music", FromTimestamp: end, ToTimestamp: mark}); err == nil {
			t.Error("no error")
		}
	})
}

func TestDocument_MarshalJSONOfARemove(t *testing.T) {
	b, err := (&vespa.Document{ID: "id:ns:music::a", Removed: true}).MarshalJSON()
	if err != nil || string(b) != `{"remove":"id:ns:music::a"}` {
		t.Errorf("got %s, %v", b, err)
	}
}

func TestVisitInto_DecodesFields(t *testing.T) {
	srv, c := newVisitServer(t)
	visitCorpus(t, srv, "ns", 50)
	type music struct {
		Title string `json:"title"`
		N     int    `json:"n"`
	}
	seen := 0
	for d, err := range vespa.VisitInto[music](t.Context(), c, vespa.VisitRequest{Namespace: "ns", DocType: "music", FieldSet: "[all]"}) {
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("id:ns:music::doc-%04d", d.Fields.N); d.ID != want || d.Fields.Title != fmt.Sprintf("t%d", d.Fields.N) {
			t.Errorf("%s decoded as %+v", d.ID, d.Fields)
		}
		seen++
	}
	if seen != 50 {
		t.Errorf("%d documents, want 50", seen)
	}
	t.Run("fields that do not decode end the sequence with an error naming the document", func(t *testing.T) {
		var errs []error
		for _, err := range vespa.VisitInto[[]int](t.Context(), c, vespa.VisitRequest{Namespace: "ns", DocType: "music"}) {
			errs = append(errs, err)
		}
		if len(errs) != 1 || errs[0] == nil {
			t.Fatalf("got %v, want one error", errs)
		}
	})
}
