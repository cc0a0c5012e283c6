package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// songSchema mirrors the integration suite's music.sd: a bm25 profile, a closeness profile, and
// an embedding outside the default summary.
var songSchema = Schema{Name: "music",
	Fields: []Field{
		{Name: "title", Type: "string", Indexed: true},
		{Name: "popularity", Type: "int"},
		{Name: "embedding", Type: "tensor<float>(x[2])", Indexed: true, DistanceMetric: "euclidean", Indexing: "attribute | index"},
	},
	RankProfiles: []RankProfile{
		{Name: "bm25", FirstPhase: "bm25(title)"},
		{Name: "closeness", FirstPhase: "closeness(field, embedding)", Inputs: map[string]string{"query(q)": ""}},
		{Name: "hybrid", Inherits: []string{"bm25"}, FirstPhase: "bm25(title) + query(w) * pop + 2 * closeness(field,embedding)",
			Functions: map[string]string{"pop": "attribute(popularity) / 100"}, Inputs: map[string]string{"query(w)": "0.5"}},
		{Name: "child", Inherits: []string{"bm25"}},
		{Name: "native", FirstPhase: "nativeRank(title) - nativeRank"},
		{Name: "fancy", FirstPhase: "fieldMatch(title).completeness"},
		{Name: "twophase", FirstPhase: "bm25(title)", SecondPhase: "sum(attribute(popularity))"},
		{Name: "orphan", Inherits: []string{"nowhere"}},
	},
}

func songCorpus() *memCorpus {
	book := Schema{Name: "book", Fields: []Field{{Name: "title", Type: "string", Indexed: true}}, RankProfiles: []RankProfile{}}
	return &memCorpus{schemas: []Schema{songSchema, book},
		docs: []Document{
			doc("id:ns:music::a", `{"title":"dreams of dreams","popularity":50,"embedding":[1,0]}`),
			doc("id:ns:music::b", `{"title":"a head full of dreams and more words here","popularity":10,"embedding":[0,1]}`),
			doc("id:ns:music::c", `{"title":"head over heels","popularity":90,"embedding":[3,4]}`),
			doc("id:ns:book::x", `{"title":"dreams"}`),
		}}
}

func hitRelevance(t *testing.T, r *response) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, c := range r.Root.Children {
		out[c.ID] = c.Relevance
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// wantRelevances checks that r is a 200 whose hits are want's documents, each
// with its relevance.
func wantRelevances(t *testing.T, r *response, want map[string]float64) {
	t.Helper()
	got := hitRelevance(t, r)
	if r.status != 200 || len(got) != len(want) {
		t.Fatalf("%d %s, want the hits %v", r.status, r.body, want)
	}
	for id, w := range want {
		if g, ok := got[id]; !ok || !near(g, w) {
			t.Errorf("%s: relevance %v (a hit: %v), want %v", id, g, ok, w)
		}
	}
}

func TestRanking_closenessProfileScoresClosenessOnly(t *testing.T) {
	r := get(t, songCorpus(), "yql", `select * from music where {targetHits:2}nearestNeighbor(embedding, q) or title contains "heels"`,
		"input.query(q)", "[1,0]", "ranking", "closeness")
	// a is at distance 0, b at sqrt 2; c only matches the text term: closeness 0.
	wantRelevances(t, r, map[string]float64{"id:ns:music::a": 1, "id:ns:music::b": 1 / (1 + math.Sqrt2), "id:ns:music::c": 0})
	def := hitRelevance(t, get(t, songCorpus(), "yql", `select * from music where {targetHits:2}nearestNeighbor(embedding, q) or title contains "heels"`,
		"input.query(q)", "[1,0]"))
	if near(def["id:ns:music::c"], 0) {
		t.Errorf("the default profile should give the text match a relevance: %v", def)
	}
}

// bm25 computes the expected score of one term in a document.
func bm25(tf, dl, avgdl, n, df float64) float64 {
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	return idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/avgdl))
}

func TestRanking_bm25(t *testing.T) {
	r := get(t, songCorpus(), "yql", `select * from music where title contains "dreams"`, "ranking.profile", "bm25")
	avg := (3.0 + 9 + 3) / 3
	want := map[string]float64{"id:ns:music::a": bm25(2, 3, avg, 3, 2), "id:ns:music::b": bm25(1, 9, avg, 3, 2)}
	wantRelevances(t, r, want)
	if ids := r.ids(); ids[0] != "id:ns:music::a" {
		t.Errorf("order %v", ids)
	}
	// Inherited first phase; a negated term does not rank.
	r2 := get(t, songCorpus(), "yql", `select * from music where title contains "dreams" and !(title contains "heels")`, "ranking", "child")
	if got2 := hitRelevance(t, r2); !near(got2["id:ns:music::a"], want["id:ns:music::a"]) {
		t.Errorf("inherited bm25: %v, want %v", got2, want)
	}
}

func TestRanking_expressionsWithFunctionsInputsAndAttributes(t *testing.T) {
	yql := `select * from music where title contains "heels" or {targetHits:1}nearestNeighbor(embedding, q)`
	r := get(t, songCorpus(), "yql", yql, "input.query(q)", "[3,4]", "ranking", "hybrid")
	c := hitRelevance(t, r)["id:ns:music::c"]
	// bm25 over a single-document match + the input default 0.5 x 90/100 + 2 x closeness 1.
	want := bm25(1, 3, 5, 3, 1) + 0.5*0.9 + 2
	if !near(c, want) {
		t.Errorf("hybrid: %v, want %v (%s)", c, want, r.body)
	}
	r = get(t, songCorpus(), "yql", yql, "input.query(q)", "[3,4]", "ranking", "hybrid", "input.query(w)", "2")
	if c := hitRelevance(t, r)["id:ns:music::c"]; !near(c, bm25(1, 3, 5, 3, 1)+2*0.9+2) {
		t.Errorf("hybrid with query(w)=2: %v", c)
	}
	r = get(t, songCorpus(), "yql", `select * from music where title contains "dreams"`, "ranking", "native")
	if a := hitRelevance(t, r)["id:ns:music::a"]; !near(a, 0) {
		t.Errorf("nativeRank(title) - nativeRank on a title-only query: %v", a)
	}
	r = get(t, songCorpus(), "yql", `select * from music where title contains "dreams"`, "ranking", "unranked")
	if a := hitRelevance(t, r)["id:ns:music::a"]; r.status != 200 || a != 0 {
		t.Errorf("unranked: %d %s", r.status, r.body)
	}
}

func TestRanking_undefinedAndUnsupportedProfiles(t *testing.T) {
	for _, tc := range []struct {
		kv     []string
		status int
		code   int
		msg    string
	}{
		{[]string{"yql", `select * from music where true`, "ranking", "nope"}, 400, 4,
			"schema 'music' does not contain requested rank profile 'nope'"},
		{[]string{"yql", `select * from sources * where true`, "ranking.profile", "nope"}, 400, 4,
			"schema 'book' does not contain requested rank profile 'nope'"},
		{[]string{"yql", `select * from sources music, book where true`, "ranking", "bm25"}, 400, 4,
			"schema 'book' does not contain requested rank profile 'bm25'"},
		{[]string{"yql", `select * from book where true`, "ranking", "bm25"}, 400, 4,
			"schema 'book' does not contain requested rank profile 'bm25'"},
		{[]string{"yql", `select * from music where true`, "ranking", "fancy"}, 501, 501,
			"does not implement the rank expression 'fieldMatch(title).completeness'"},
		{[]string{"yql", `select * from music where true`, "ranking", "twophase"}, 501, 501,
			"does not implement the second-phase of rank profile 'twophase'"},
		{[]string{"yql", `select * from music where true`, "ranking", "orphan"}, 501, 501,
			"does not implement inheriting rank profile 'nowhere'"},
	} {
		get(t, songCorpus(), tc.kv...).wantError(t, tc.kv, tc.status, tc.code, tc.msg)
	}
	// Searching both types without naming them: the type lacking the profile ranks by default.
	r := get(t, songCorpus(), "yql", `select * from sources * where title contains "dreams"`, "ranking", "bm25")
	if got := hitRelevance(t, r); r.status != 200 || len(got) != 3 || got["id:ns:book::x"] == 0 {
		t.Errorf("profile in one of two types: %d %s", r.status, r.body)
	}
	// A schema whose profiles are not modelled (nil) accepts any name.
	unmodelled := &memCorpus{schemas: []Schema{{Name: "music", Fields: songSchema.Fields}}, docs: songCorpus().docs[:3]}
	if r := get(t, unmodelled, "yql", `select * from music where title contains "dreams"`, "ranking", "bm25"); r.status != 200 || len(r.Root.Children) != 2 {
		t.Errorf("profiles not modelled: %d %s", r.status, r.body)
	}
	// Lenient mode has no profiles to check.
	lenient := &memCorpus{docs: songCorpus().docs}
	if r := get(t, lenient, "yql", `select * from sources * where true`, "ranking", "anything"); r.status != 200 {
		t.Errorf("lenient mode: %d %s", r.status, r.body)
	}
}

func TestParseRankExpression_refusesWhatItCannotEvaluate(t *testing.T) {
	for _, expr := range []string{"", "bm25(title) +", "if(attribute(x) > 1, 1, 0)", "sum(query(q) * attribute(e))",
		"closeness(label, nns)", "bm25(a, b)", "foo", "1 +* 2", "(1", "attribute(f).count", "f", "recurse"} {
		_, err := parseRankExpression(expr, map[string]string{"f": "g(1)", "recurse": "recurse"})
		var ni *notImplementedError
		if !errors.As(err, &ni) {
			t.Errorf("%q: %v, want a notImplementedError", expr, err)
		}
	}
	for expr, want := range map[string]float64{
		"-(1 + 2) * 3 / 2 - 1e1 + .5": -(1+2)*3.0/2 - 10 + 0.5,
		"2.5E-1 * 4 + 1e+1":           11,
	} {
		e, err := parseRankExpression(expr, nil)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if v := e.eval(&rankContext{}); !near(v, want) {
			t.Errorf("%q = %v, want %v", expr, v, want)
		}
	}
}

func TestRender_onlySummaryFields(t *testing.T) {
	r := get(t, songCorpus(), "yql", `select * from music where true`)
	for _, c := range r.Root.Children {
		if _, ok := c.Fields["embedding"]; ok {
			t.Errorf("embedding is not a summary field: %v", c.Fields)
		}
		if c.Fields["title"] == nil || c.Fields["sddocname"] != "music" || c.Fields["documentid"] != c.ID {
			t.Errorf("summary fields missing: %v", c.Fields)
		}
	}
	r = get(t, songCorpus(), "yql", `select title, embedding from music where true`)
	if f := r.Root.Children[0].Fields; len(f) != 1 || f["title"] == nil {
		t.Errorf("select list: %v", f)
	}
	lenient := &memCorpus{docs: songCorpus().docs}
	r = get(t, lenient, "yql", `select * from sources * where true`, "hits", "1", "sorting", "-popularity")
	if _, ok := r.Root.Children[0].Fields["embedding"]; !ok {
		t.Errorf("lenient mode renders every field: %v", r.Root.Children[0].Fields)
	}
}

func TestNearestNeighbor_vectorCacheFollowsUpdatesAndRemovals(t *testing.T) {
	c := &memCorpus{schemas: []Schema{songSchema}}
	for i := range 5 {
		c.docs = append(c.docs, doc(fmt.Sprintf("id:ns:music::%d", i), fmt.Sprintf(`{"embedding":{"type":"tensor<float>(x[2])","values":[%d,0]}}`, i)))
	}
	h := NewHandler(c).(*handler)
	query := func() []string {
		q := url.Values{"yql": {`select * from music where {targetHits:1}nearestNeighbor(embedding, q)`}, "input.query(q)": {"[0,0]"}}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/search/?"+q.Encode(), nil))
		body, _ := io.ReadAll(w.Body)
		var res response
		if err := json.Unmarshal(body, &res); err != nil || w.Code != 200 {
			t.Fatalf("%d %s", w.Code, body)
		}
		return res.ids()
	}
	if ids := query(); len(ids) != 1 || ids[0] != "id:ns:music::0" {
		t.Fatalf("nearest %v", ids)
	}
	c.docs[0] = doc("id:ns:music::0", `{"embedding":[9,9]}`) // a new version of the document
	if ids := query(); len(ids) != 1 || ids[0] != "id:ns:music::1" {
		t.Errorf("after the update, nearest %v", ids)
	}
	c.docs = c.docs[:3]
	query()
	if n := len(h.vectors.byField["embedding"]); n != 3 {
		t.Errorf("%d cached vectors after removals, want 3", n)
	}
}

// A profile's summary- and match-features are computed for each hit and
// rendered in its fields as Vespa renders them: matchfeatures (set when the
// hit is matched, ProtobufSerialization's MatchFeatureData) and
// summaryfeatures with vespa.summaryFeatures.cached added (the summary's
// feature data), both objects of feature name to value. A feature the
// emulator cannot compute makes the profile unusable (501). Before, the
// features were dropped silently.
func TestRanking_summaryAndMatchFeatures(t *testing.T) {
	music := songSchema
	music.RankProfiles = append(append([]RankProfile(nil), songSchema.RankProfiles...),
		RankProfile{Name: "feat", FirstPhase: "bm25(title) + attribute(popularity)",
			SummaryFeatures: []string{"bm25(title)", "attribute(popularity)"},
			MatchFeatures:   []string{"attribute(popularity)", "firstPhase"}},
		RankProfile{Name: "featchild", Inherits: []string{"feat"}},
		RankProfile{Name: "badfeat", FirstPhase: "bm25(title)", MatchFeatures: []string{"fieldMatch(title)"}})
	c := songCorpus()
	c.schemas[0] = music
	r := get(t, c, "yql", `select * from music where title contains "heels"`, "ranking", "feat")
	if r.status != 200 || len(r.Root.Children) != 1 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	for _, want := range []string{
		`"fields":{"matchfeatures":{"attribute(popularity)":90.0,"firstPhase":`,
		`"summaryfeatures":{"attribute(popularity)":90.0,"bm25(title)":`,
		`,"vespa.summaryFeatures.cached":0.0}}`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("missing %s in %s", want, r.body)
		}
	}
	if r := get(t, c, "yql", `select * from music where title contains "heels"`, "ranking", "featchild"); !strings.Contains(r.body, `"matchfeatures":{"attribute(popularity)":90.0`) {
		t.Errorf("inherited features: %s", r.body)
	}
	get(t, c, "yql", `select * from music where true`, "ranking", "badfeat").wantError(t, nil, 501, 501, "match-features fieldMatch(title) of rank profile 'badfeat'")
	// A profile without features renders none.
	if r := get(t, c, "yql", `select * from music where true`, "ranking", "bm25"); strings.Contains(r.body, "features") {
		t.Errorf("bm25 profile rendered features: %s", r.body)
	}
}
