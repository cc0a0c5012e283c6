package search

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func yql(where string) string { return "select * from sources * where " + where }

func TestHandler_Matching(t *testing.T) {
	c := musicCorpus()
	cases := []struct {
		name, where string
		want        []string // sorted IDs
	}{
		{"true matches every document", "true", []string{"id:ns:book::x", "id:ns:music::a", "id:ns:music::b", "id:ns:music::c"}},
		{"false matches nothing", "false", nil},
		{"indexed contains is a case-insensitive token match", `title contains "DREAMS"`, []string{"id:ns:book::x", "id:ns:music::a", "id:ns:music::b"}},
		{"indexed contains does not match a part of a token", `title contains "drea"`, nil},
		{"prefix annotation matches a token prefix", `title contains ({prefix:true}"drea")`, []string{"id:ns:book::x", "id:ns:music::a", "id:ns:music::b"}},
		{"attribute contains matches the whole value, uncased", `genre contains "pop"`, []string{"id:ns:music::a"}},
		{"attribute contains does not match a token of the value", `genre contains "rock"`, nil},
		{"array contains matches any element", `tags contains "pop"`, []string{"id:ns:music::b"}},
		{"weighted set contains matches a key", `labels contains "warner"`, []string{"id:ns:music::a"}},
		{"phrase needs consecutive tokens", `title contains phrase("head", "full")`, []string{"id:ns:music::a"}},
		{"phrase in the wrong order does not match", `title contains phrase("full", "head")`, nil},
		{"a multi-word term is a phrase", `title contains "head over"`, []string{"id:ns:music::c"}},
		{"sameElement on a map", `meta contains sameElement(key contains "skips", value > 10)`, []string{"id:ns:music::b"}},
		{"sameElement needs one element to satisfy all", `meta contains sameElement(key contains "plays", value > 10)`, nil},
		{"map key path", `meta.key contains "skips"`, []string{"id:ns:music::b"}},
		{"equality", "year = 2015", []string{"id:ns:music::a"}},
		{"less than", "year < 2001", []string{"id:ns:music::c"}},
		{"less or equal", "year <= 2001", []string{"id:ns:music::b", "id:ns:music::c"}},
		{"greater than", "year > 2001", []string{"id:ns:music::a"}},
		{"greater or equal", "year >= 2001", []string{"id:ns:music::a", "id:ns:music::b"}},
		{"reversed comparison", "2001 < year", []string{"id:ns:music::a"}},
		{"range is inclusive", "range(year, 1985, 2001)", []string{"id:ns:music::b", "id:ns:music::c"}},
		{"open range", `{bounds:"open"}range(year, 1985, 2015)`, []string{"id:ns:music::b"}},
		{"range to infinity", "range(year, 2002, Infinity)", []string{"id:ns:music::a"}},
		{"bool equality", "live = true", []string{"id:ns:music::a"}},
		{"string equality", `genre = "jazz"`, []string{"id:ns:music::c"}},
		{"in", "year in (1985, 2015)", []string{"id:ns:music::a", "id:ns:music::c"}},
		{"and", `title contains "dreams" and year > 2010`, []string{"id:ns:music::a"}},
		{"or", `year = 1985 or year = 2015`, []string{"id:ns:music::a", "id:ns:music::c"}},
		{"not", `title contains "dreams" and !(year > 2010)`, []string{"id:ns:book::x", "id:ns:music::b"}},
		{"weakAnd matches any of its terms", `{targetHits:10}weakAnd(title contains "heels", title contains "full")`, []string{"id:ns:music::a", "id:ns:music::c"}},
		{"rank matches as its first argument", `rank(year = 2015, title contains "heels")`, []string{"id:ns:music::a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := get(t, c, "yql", yql(tc.where), "hits", "400")
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			got := r.ids()
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("where %s matched %v, want %v", tc.where, got, tc.want)
			}
			if r.Root.Fields.TotalCount != len(tc.want) {
				t.Errorf("totalCount %d, want %d", r.Root.Fields.TotalCount, len(tc.want))
			}
		})
	}
}

func TestHandler_Sources(t *testing.T) {
	c := musicCorpus()
	r := get(t, c, "yql", `select * from book where title contains "dreams"`)
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:book::x"}) {
		t.Errorf("from book matched %v", got)
	}
	r = get(t, c, "yql", `select * from sources music, book where title contains "book"`)
	if r.Root.Fields.TotalCount != 1 || r.Root.Children[0].Source != "book" {
		t.Errorf("sources music, book: %s", r.body)
	}
	r = get(t, c, "yql", yql(`title contains "dreams"`), "restrict", "book")
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:book::x"}) {
		t.Errorf("restrict=book matched %v", got)
	}
	unknown := []string{"yql", `select * from nosuch where true`}
	get(t, c, unknown...).wantError(t, unknown, 400, 4, "Could not resolve source ref 'nosuch'.")
	lenient := &memCorpus{docs: c.docs}
	r = get(t, lenient, "yql", `select * from music where true`)
	if r.status != 200 || r.Root.Fields.TotalCount != 3 {
		t.Errorf("lenient from music: %d %s", r.status, r.body)
	}
}

func TestHandler_RelevanceAndOrder(t *testing.T) {
	c := musicCorpus()
	r := get(t, c, "yql", `select * from music where title contains "dreams"`)
	// b has "dreams" twice (tf 2: 2/3), a once (1/2).
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:music::b", "id:ns:music::a"}) {
		t.Fatalf("order %v", got)
	}
	if r.Root.Children[0].Relevance != 2.0/3 || r.Root.Children[1].Relevance != 0.5 {
		t.Errorf("relevance %v, %v", r.Root.Children[0].Relevance, r.Root.Children[1].Relevance)
	}
	r = get(t, c, "yql", `select * from music where true order by year asc`)
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:music::c", "id:ns:music::b", "id:ns:music::a"}) {
		t.Errorf("order by year asc: %v", got)
	}
	r = get(t, c, "yql", `select * from music where true order by genre desc, year`)
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:music::b", "id:ns:music::a", "id:ns:music::c"}) { // byte order: "pop rock" > "Pop" > "Jazz"
		t.Errorf("order by genre desc: %v", got)
	}
	r = get(t, c, "yql", `select * from music where true`, "sorting", "-year")
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:music::a", "id:ns:music::b", "id:ns:music::c"}) {
		t.Errorf("sorting=-year: %v", got)
	}
}

func TestHandler_Paging(t *testing.T) {
	c := musicCorpus()
	all := `select * from music where true order by year`
	for _, tc := range []struct {
		kv   []string
		want []string
	}{
		{[]string{"yql", all, "hits", "1"}, []string{"id:ns:music::c"}},
		{[]string{"yql", all, "hits", "1", "offset", "1"}, []string{"id:ns:music::b"}},
		{[]string{"yql", all, "count", "2", "start", "1"}, []string{"id:ns:music::b", "id:ns:music::a"}},
		{[]string{"yql", all, "offset", "5"}, nil},
		{[]string{"yql", all + " limit 2 offset 1"}, []string{"id:ns:music::b"}},
		{[]string{"yql", all + " limit 2", "hits", "1"}, []string{"id:ns:music::c", "id:ns:music::b"}},
		{[]string{"yql", all, "hits", "0"}, nil},
	} {
		r := get(t, c, tc.kv...)
		if got := r.ids(); r.status != 200 || !slices.Equal(got, tc.want) || r.Root.Fields.TotalCount != 3 {
			t.Errorf("%v: %d %v total %d, want %v", tc.kv, r.status, got, r.Root.Fields.TotalCount, tc.want)
		}
	}
}

func TestHandler_UserQuery(t *testing.T) {
	c := musicCorpus()
	for _, tc := range []struct {
		kv   []string
		want []string
	}{
		{[]string{"yql", yql("userQuery()"), "query", "heels full"}, []string{"id:ns:music::a", "id:ns:music::c"}},
		{[]string{"yql", yql("userQuery()"), "query", "head +full"}, []string{"id:ns:music::a"}},
		{[]string{"yql", yql("userQuery()"), "query", "head -full"}, []string{"id:ns:music::c"}},
		{[]string{"yql", yql("userQuery()"), "query", "head full", "type", "all"}, []string{"id:ns:music::a"}},
		{[]string{"yql", yql("userQuery()"), "query", `"head full"`}, []string{"id:ns:music::a"}},
		{[]string{"yql", yql("userQuery()"), "query", "artist:coldplay"}, []string{"id:ns:music::a"}},
		{[]string{"yql", yql("userQuery()"), "query", "year:>2000 head"}, []string{"id:ns:music::a", "id:ns:music::b", "id:ns:music::c"}},
		{[]string{"query", "heels"}, []string{"id:ns:music::c"}},
		{[]string{"yql", yql("userInput(@q)"), "q", "band"}, []string{"id:ns:music::b"}},
		{[]string{"yql", yql(`{defaultIndex:"title"}userInput(@q)`), "q", "band"}, nil},
		{[]string{"yql", yql(`{grammar:"all"}userInput(@q)`), "q", "dreams band"}, []string{"id:ns:music::b"}},
		{[]string{"yql", yql(`userInput("heels")`)}, []string{"id:ns:music::c"}},
		{[]string{"yql", yql(`{allowEmpty:true}userInput(@q)`), "q", ""}, nil},
		// userInput under each operator: it is resolved at any depth.
		{[]string{"yql", yql("year = 1985 or userInput(@q)"), "q", "band"}, []string{"id:ns:music::b", "id:ns:music::c"}},
		{[]string{"yql", yql("year > 1985 and !userInput(@q)"), "q", "band"}, []string{"id:ns:music::a"}},
		{[]string{"yql", yql("{targetHits:10}weakAnd(year = 2015, userInput(@q))"), "q", "band"}, []string{"id:ns:music::a", "id:ns:music::b"}},
		{[]string{"yql", yql("rank(userInput(@q), year = 2015)"), "q", "band"}, []string{"id:ns:music::b"}},
		{[]string{"yql", yql("year > 0 and (year < 2001 or rank(userInput(@q)))"), "q", "band"}, []string{"id:ns:music::b", "id:ns:music::c"}},
	} {
		r := get(t, c, tc.kv...)
		got := r.ids()
		slices.Sort(got)
		if r.status != 200 || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %d %v, want %v: %s", tc.kv, r.status, got, tc.want, r.body)
		}
	}
	for _, tc := range []struct {
		kv   []string
		code int
		msg  string
	}{
		{[]string{"yql", yql("userQuery()")}, 3, "No query"},                                                // userQuery without query
		{[]string{"yql", yql("userInput(@q)")}, 4, "Could not create query from YQL: Input 'q' is not set"}, // userInput without its parameter
		{nil, 3, "No query"}, // no yql, no query
	} {
		r := get(t, c, tc.kv...)
		r.wantError(t, tc.kv, 400, tc.code, tc.msg)
		if len(r.Root.Errors) == 1 && r.Root.Errors[0].Message != tc.msg { // each message is the whole text
			t.Errorf("%q: message %q, want exactly %q", tc.kv, r.Root.Errors[0].Message, tc.msg)
		}
	}
}

func TestHandler_NearestNeighbor(t *testing.T) {
	c := musicCorpus()
	nn := func(field string, k int) string {
		return yql(fmt.Sprintf("{targetHits:%d}nearestNeighbor(%s, q)", k, field))
	}
	r := get(t, c, "yql", nn("emb", 2), "input.query(q)", "[0,0]")
	// distances: a 1, b 1, c 5 -> the two nearest, closeness 1/(1+1)
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:music::a", "id:ns:music::b"}) || r.Root.Children[0].Relevance != 0.5 {
		t.Errorf("euclidean: %s", r.body)
	}
	r = get(t, c, "yql", nn("emb", 3), "ranking.features.query(q)", "{{x:0}:3.0,{x:1}:4.0}")
	if r.Root.Children[0].ID != "id:ns:music::c" || r.Root.Children[0].Relevance != 1 {
		t.Errorf("euclidean exact hit: %s", r.body)
	}
	r = get(t, c, "yql", nn("ang", 3), "input.query(q)", "[1,0]")
	if got := r.Root.Children[1]; got.ID != "id:ns:music::c" || math.Abs(got.Relevance-1/(1+math.Pi/4)) > 1e-12 {
		t.Errorf("angular: %s", r.body)
	}
	r = get(t, c, "yql", nn("dot", 3), "input.query(q)", "[1,1]")
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:music::a", "id:ns:music::b", "id:ns:music::c"}) ||
		r.Root.Children[0].Relevance != 3 || r.Root.Children[2].Relevance != 0 {
		t.Errorf("dotproduct: %s", r.body)
	}
	r = get(t, c, "yql", yql(`{targetHits:1}nearestNeighbor(emb, q) and year < 2010`), "input.query(q)", "[0,0]")
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:music::b"}) {
		t.Errorf("pre-filtered nearestNeighbor: %v", got)
	}
	r = post(t, c, "", `{"yql":"select * from music where {targetHits:1}nearestNeighbor(emb, q)","input":{"query(q)":[3,4]}}`)
	if got := r.ids(); !slices.Equal(got, []string{"id:ns:music::c"}) {
		t.Errorf("POST input: %s", r.body)
	}
	for _, tc := range []struct {
		kv    []string
		code  int
		msg   string
		exact bool // msg is the whole message, not only a part of it
	}{
		{[]string{"yql", nn("emb", 1)}, 3, "} requires a tensor rank feature named 'query(q)' but this is not present", false},
		{[]string{"yql", nn("emb", 1), "input.query(q)", "[1,2,3]"}, 3, "} field type tensor<float>(x[2]) does not match query type tensor(x[3])", false},
		{[]string{"yql", nn("year", 1), "input.query(q)", "[1,2]"}, 3, "} field is not a tensor", false},
		{[]string{"yql", nn("emb", 0), "input.query(q)", "[1,2]"}, 3, "} has invalid targetHits 0: Must be >= 1", false},
		{[]string{"yql", yql(`emb contains "x"`)}, 4, "Cannot search 'emb': It is a tensor field", true},
	} {
		r := get(t, c, tc.kv...)
		r.wantError(t, tc.kv, 400, tc.code, tc.msg)
		if tc.exact && len(r.Root.Errors) == 1 && r.Root.Errors[0].Message != tc.msg {
			t.Errorf("%q: message %q, want exactly %q", tc.kv, r.Root.Errors[0].Message, tc.msg)
		}
	}
}

func TestHandler_ParameterErrors(t *testing.T) {
	c := musicCorpus()
	for _, tc := range []errorCase{
		{[]string{"query", "a", "hits", "401"}, 400, 3, "401 hits requested, configured limit: 400."},
		{[]string{"query", "a", "offset", "1001"}, 400, 3, "Offset of 1001 requested, configured limit: 1000."},
		{[]string{"query", "a", "offset", "-20"}, 400, 3, "offset"},
		{[]string{"query", "a", "hits", "many"}, 400, 3, "Could not set 'hits': 'many' is not a valid integer"},
		{[]string{"yql", yql("true") + " limit 500"}, 400, 4, "Requested 500 hits returned, but max hits allowed is 400."},
		{[]string{"yql", yql("true") + " limit 1 offset 2000"}, 400, 4, "Requested offset 2000, but the max offset allowed is 1000."},
		{[]string{"query", "a", "maxHits", "42"}, 500, 5, "maxHits must be specified in a query profile."},
		{[]string{"query", "a", "timeout", "soon"}, 400, 3, "Could not set 'timeout': Error parsing 'soon': Invalid number 'soon'"},
		{[]string{"yql", "select * from sources * where true", "timeout", "1ms"}, 504, 12, "No time left after waiting for 1ms to execute query"},
		{[]string{"yql", yql("true") + " timeout 2"}, 504, 12, "No time left after waiting for 2ms"},
		{[]string{"yql", "selectz * from foo where bar > 1453501295"}, 400, 4, "Could not create query from YQL: query:L1:0 mismatched input 'selectz'"},
		{[]string{"yql", yql("true | all(group(time.year(year)) each(output(count())))")}, 501, 501, "does not implement the grouping function time"},
		{[]string{"yql", yql("true | all(group(nosuch) each(output(count())))")}, 400, 17, "references attribute 'nosuch' which is not available in cluster 'book'."},
		{[]string{"yql", yql("true | all(group(year) each(output(count()))")}, 400, 4, "mismatched input"},
		{[]string{"query", "a", "format", "xml"}, 501, 501, "does not implement presentation.format=xml"},
	} {
		r := get(t, c, tc.kv...)
		r.wantError(t, tc.kv, tc.status, tc.code, tc.msg)
		if r.Root.Coverage != nil || r.Root.Children != nil {
			t.Errorf("%q: an error before dispatch has no coverage or hits: %s", tc.kv, r.body)
		}
	}
}

func TestHandler_POST(t *testing.T) {
	c := musicCorpus()
	r := post(t, c, "", `{"yql":"select * from music where userQuery()","query":"dreams","ranking":{"profile":"default","matchPhase":{"maxHits":10}},"hits":1,"presentation":{"summary":"short","timing":true},"trace":{"level":1}}`)
	if r.status != 200 || len(r.Root.Children) != 1 || r.Root.Fields.TotalCount != 2 {
		t.Errorf("POST: %d %s", r.status, r.body)
	}
	if !strings.HasPrefix(r.body, `{"trace":{"children":[`) || !strings.Contains(r.body, `"timing":{"querytime":`) {
		t.Errorf("trace and timing come before root: %s", r.body)
	}
	r = post(t, c, "hits=2", `{"yql":"select * from music where true","hits":1}`)
	if len(r.Root.Children) != 2 {
		t.Errorf("URL parameters override the body: %s", r.body)
	}
	post(t, c, "", `Not a valid JSON-string`).wantError(t, []string{"POST", "Not a valid JSON-string"}, 400, 3, "")
	r = post(t, c, "", `{"yql":"selectz * from foo where bar > 1453501295"}`)
	if r.status != 400 {
		t.Errorf("bad YQL: %d %s", r.status, r.body)
	}
	r = post(t, c, "", `{"select":{"where":{"contains":["title","x"]}}}`)
	if r.status != 501 || !strings.Contains(r.body, "JSON query language") {
		t.Errorf("select.where: %d %s", r.status, r.body)
	}
}

func TestHandler_HitRendering(t *testing.T) {
	c := musicCorpus()
	r := get(t, c, "yql", `select * from music where year = 2015`)
	want := `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":1},` +
		`"coverage":{"coverage":100,"documents":4,"full":true,"nodes":1,"results":1,"resultsFull":1},` +
		`"children":[{"id":"id:ns:music::a","relevance":0.0,"source":"music","fields":{"sddocname":"music",` +
		`"documentid":"id:ns:music::a","artist":"Coldplay","title":"A Head Full of Dreams","genre":"Pop","year":2015,` +
		`"tags":["rock","live"],"labels":{"warner":1},"meta":{"plays":10},"live":true,` +
		`"emb":{"type":"tensor<float>(x[2])","values":[1.0,0.0]},"ang":{"type":"tensor<float>(x[2])","values":[1.0,0.0]},` +
		`"dot":{"type":"tensor<float>(x[2])","values":[1.0,2.0]}}}]}}`
	if r.body != want {
		t.Errorf("body\n got %s\nwant %s", r.body, want)
	}
	r = get(t, c, "yql", `select title, year from music where year = 2015`)
	if f := r.Root.Children[0].Fields; len(f) != 2 || f["title"] == nil || f["year"] == nil {
		t.Errorf("select title, year: %s", r.body)
	}
	r = get(t, c, "yql", yql("false"))
	if r.body != `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":0},"coverage":{"coverage":100,"documents":4,"full":true,"nodes":1,"results":1,"resultsFull":1}}}` {
		t.Errorf("empty result: %s", r.body)
	}
}

func TestHTTPStatus(t *testing.T) {
	for _, tc := range []struct {
		codes   []int
		hasHits bool
		want    int
	}{
		{nil, false, 200},
		{[]int{8}, true, 200},
		{[]int{8}, false, 500},
		{[]int{0}, false, 503},
		{[]int{10}, false, 503},
		{[]int{12}, false, 504},
		{[]int{3}, false, 400},
		{[]int{4}, false, 400},
		{[]int{1}, false, 500},
		{[]int{406}, false, 406},
		{[]int{8, 14}, true, 401},
		{[]int{19}, false, 507},
	} {
		var errs []resultError
		for _, c := range tc.codes {
			errs = append(errs, resultError{code: c})
		}
		if got := httpStatus(errs, tc.hasHits); got != tc.want {
			t.Errorf("httpStatus(%v, %v) = %d, want %d", tc.codes, tc.hasHits, got, tc.want)
		}
	}
}

func TestJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{1, "1.0"}, {0, "0.0"}, {0.5, "0.5"}, {0.16343879032006284, "0.16343879032006284"}, {-2, "-2.0"},
		{1e-4, "1.0E-4"}, {1.5e7, "1.5E7"}, {123456.75, "123456.75"}, {3.402823669209385e+38, "3.402823669209385E38"},
	} {
		if got := javaDouble(tc.in); got != tc.want {
			t.Errorf("javaDouble(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// Mistakes in a query's sources, answered as Vespa's search container does
// (container-search at 1f79d33dd014): a field no schema has
// (YqlParser.getIndex), sorting by a field that is not an attribute
// (ValidateSortingSearcher), an unknown searchChain (SearchHandler), an
// unknown restrict (FederationSearcher.pruneTargetsWithoutDocumentTypes:
// no target, no error) and an unknown source beside a real one
// (FederationSearcher.missingSearchChainsErrorMessage: the hits and a code
// 4 error). Before, the first three were answered 200 and the last two 400.
func TestHandler_ordinaryMistakes(t *testing.T) {
	c := songCorpus()
	for _, tc := range []errorCase{
		{[]string{"yql", `select * from music where nosuch contains "x"`}, 400, 4, "Could not create query from YQL: Field 'nosuch' does not exist."},
		{[]string{"yql", `select * from music where true and (popularity > 1 or nosuch = 3)`}, 400, 4, "Field 'nosuch' does not exist."},
		// documentid is a summary field without index info (config-model SummaryClass,
		// IndexInfo); Vespa's YqlParser in the JDisc harness refuses it so.
		{[]string{"yql", `select * from music where documentid contains "id:ns:music::a"`}, 400, 4, "Could not create query from YQL: Field 'documentid' does not exist."},
		{[]string{"yql", `select * from music where true order by title`}, 400, 4, "Cluster 'music' has no sortable attribute named 'title'"},
		{[]string{"yql", `select * from music where true`, "sorting", "-nosuch"}, 400, 4, "Cluster 'music' has no sortable attribute named 'nosuch'"},
		{[]string{"yql", `select * from music where true`, "searchChain", "nosuch"}, 400, 4, "No search chain named 'nosuch' was found"},
		{[]string{"yql", `select * from sources * where true`, "sources", "nosuch"}, 400, 4, "Could not resolve source ref 'nosuch'. Valid source refs are book, music."},
	} {
		get(t, c, tc.kv...).wantError(t, tc.kv, tc.status, tc.code, tc.msg)
	}
	// Sorting by an attribute and by relevance is fine.
	for _, o := range []string{"order by popularity desc", "order by popularity, relevance"} {
		if r := get(t, c, "yql", `select * from music where true `+o); r.status != 200 {
			t.Errorf("%s: %d %s", o, r.status, r.body)
		}
	}
	r := get(t, c, "yql", `select * from sources * where true`, "restrict", "nosuch")
	if r.status != 200 || r.body != `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":0}}}` {
		t.Errorf("restrict=nosuch: %d %s", r.status, r.body)
	}
	r = get(t, c, "yql", `select * from sources * where true`, "sources", "nosuch,music")
	if r.status != 200 || len(r.Root.Children) == 0 || len(r.Root.Errors) != 1 || r.Root.Errors[0].Code != 4 ||
		r.Root.Errors[0].Message != "Could not resolve source ref 'nosuch'. Valid source refs are book, music." {
		t.Errorf("sources=nosuch,music: %d %s", r.status, r.body)
	}
	for _, id := range r.ids() {
		if !strings.HasPrefix(id, "id:ns:music:") {
			t.Errorf("sources=nosuch,music returned %s", id)
		}
	}
}

// errorCase is a request's parameters and the status, error code and
// message the handler answers them with.
type errorCase struct {
	kv     []string
	status int
	code   int
	msg    string
}
