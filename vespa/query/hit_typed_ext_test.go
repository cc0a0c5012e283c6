package query_test

import (
	"math"
	"testing"

	"github.com/govespa/govespa/vespa/query"
)

type song struct {
	Title string `json:"title"`
	Year  int    `json:"year"`
}

func TestHits_KeepMetadataAndMatchFeatures(t *testing.T) {
	r, err := query.DecodeResult([]byte(`{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":3},"children":[
		{"id":"id:ns:music::a","relevance":0.75,"source":"music","fields":{"title":"A","year":2015,
			"matchfeatures":{"bm25(title)":1.5,"closeness(field,e)":"Infinity","t":{"type":"tensor(x[2])","values":[1,2]}}}},
		{"id":"group-of-hits","relevance":1.0,"children":[
			{"id":"id:ns:music::b","relevance":"NaN","source":"music","fields":{"title":"B","year":2016}}]},
		{"id":"id:ns:music::c","relevance":0.25,"source":"books"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	hits, err := query.Hits[song](r)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 {
		t.Fatalf("%d hits", len(hits))
	}
	a, b, c := hits[0], hits[1], hits[2]
	if a.ID != "id:ns:music::a" || a.Relevance != 0.75 || a.Source != "music" || a.Fields != (song{"A", 2015}) {
		t.Errorf("hit a %+v", a)
	}
	if f, ok := a.MatchFeatures.Float("bm25(title)"); !ok || f != 1.5 {
		t.Errorf("bm25 %v %v", f, ok)
	}
	if f, ok := a.MatchFeatures.Float("closeness(field,e)"); !ok || !math.IsInf(f, 1) {
		t.Errorf("closeness %v %v", f, ok)
	}
	if _, ok := a.MatchFeatures.Float("t"); ok {
		t.Error("a tensor read as a number")
	}
	if string(a.MatchFeatures["t"]) != `{"type":"tensor(x[2])","values":[1,2]}` {
		t.Errorf("tensor feature %s", a.MatchFeatures["t"])
	}
	if b.ID != "id:ns:music::b" || !math.IsNaN(float64(b.Relevance)) || b.Fields.Title != "B" || b.MatchFeatures != nil {
		t.Errorf("hit b %+v", b)
	}
	if c.Source != "books" || c.Fields != (song{}) {
		t.Errorf("hit c %+v", c)
	}
	if _, err := query.Hits[int](r); err == nil {
		t.Error("fields decoded into an int")
	}
	if h, err := query.Hits[song](nil); h != nil || err != nil {
		t.Errorf("nil result: %v %v", h, err)
	}
}

func TestGroupHits_FromHitListsAndGroups(t *testing.T) {
	// The shape of each(output(summary())) in Vespa's grouping
	// documentation: a group holds a hit list labelled after the summary.
	r, err := query.DecodeResult([]byte(`{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":2},"children":[
		{"id":"group:root:0","relevance":1.0,"children":[{"id":"grouplist:artist","relevance":1.0,"label":"artist","children":[
			{"id":"group:string:Bob","relevance":1.0,"value":"Bob","fields":{"count()":2},"children":[
				{"id":"hitlist:hits","relevance":1.0,"label":"hits","children":[
					{"id":"id:ns:music::x","relevance":0.5,"source":"music","fields":{"title":"X","year":1999}},
					{"id":"id:ns:music::y","relevance":0.4,"source":"music","fields":{"title":"Y","year":2001}}]}]}]}]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	group := &r.Groups[0].List("artist").Children[0]
	for _, node := range []*query.Hit{group, group.List("hits")} {
		hits, err := query.GroupHits[song](node)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 || hits[0].ID != "id:ns:music::x" || hits[0].Relevance != 0.5 || hits[1].Fields.Year != 2001 {
			t.Errorf("%s: %+v", node.ID, hits)
		}
	}
	if hits, _ := query.GroupHits[song](r.Groups[0].List("artist")); len(hits) != 0 {
		t.Errorf("a group list has hits of its own: %+v", hits)
	}
}
