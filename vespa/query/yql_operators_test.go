package query

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// yqlParserTests is Vespa's own YQL parser test,
// container-search/src/test/java/com/yahoo/search/yql/YqlParserTestCase.java
// at vespa-engine/vespa 1f79d33dd014 (the version of the CLI the
// integration tests use); the method and line are given per case.
const yqlParserTests = "YqlParserTestCase"

// sameTokens compares two statements token by token with the lexer of
// yql_lexer_test.go, so that spacing and quote style do not matter but every
// name, literal, bracket and operator does.
func sameTokens(t *testing.T, got, want string) {
	t.Helper()
	g, err := lexYQL(got)
	if err != nil {
		t.Fatalf("lex %s: %v", got, err)
	}
	w, err := lexYQL(strings.TrimSuffix(strings.TrimSpace(want), ";"))
	if err != nil {
		t.Fatalf("lex %s: %v", want, err)
	}
	if shape(g) != shape(w) || len(g) != len(w) {
		t.Errorf("tokens differ\n got  %s\n want %s", got, want)
		return
	}
	for i := range g {
		if g[i] != w[i] {
			t.Errorf("token %d: %+v, want %+v\n got  %s\n want %s", i, g[i], w[i], got, want)
			return
		}
	}
}

// operatorGolden is one operator statement and Vespa's text for it.
type operatorGolden struct {
	source string
	b      Builder
	vespa  string // Vespa's text, token for token
}

func operatorGoldens() []operatorGolden {
	return []operatorGolden{
		{yqlParserTests + ".testDotProduct (line 919)",
			Select("foo").From("bar").Where(DotProduct("description", map[string]int{"a": 1, "b": 2})),
			`select foo from bar where dotProduct(description, {"a":1, "b":2})`},
		{yqlParserTests + ".testWeightedSet (line 907)",
			Select("foo").From("bar").Where(WeightedSet("description", map[string]int{"a": 1, "b": 2})),
			`select foo from bar where weightedSet(description, {"a":1, "b":2})`},
		{yqlParserTests + ".testWand (line 878)",
			Select("foo").From("bar").Where(Wand("description", map[string]int{"a": 1, "b": 2})),
			`select foo from bar where wand(description, {"a":1, "b":2});`},
		// Parenthesised: the builder wraps every annotated expression, so
		// that the annotation cannot take in a following "or".
		{yqlParserTests + ".testWand (line 880), parenthesised",
			Select("foo").From("bar").Where(Wand("description", map[string]int{"a": 1, "b": 2}).
				With("scoreThreshold", 13.3).With("targetHits", 7).With("thresholdBoostFactor", 2.3)),
			`select foo from bar where ({scoreThreshold : 13.3, targetHits: 7, thresholdBoostFactor: 2.3} wand(description, {"a":1, "b":2}))`},
		{yqlParserTests + ".testNumericWand (line 898)",
			Select("foo").From("bar").Where(Wand("description", map[int64]int{11: 1, 37: 2})),
			`select foo from bar where wand(description, [[11,1], [37,2]])`},
		{yqlParserTests + ".testGeoLocation (line 927)",
			Select("foo").From("bar").Where(GeoLocation("workplace", 63.418417, 10.433033, "0.5 deg")),
			`select foo from bar where geoLocation(workplace, 63.418417, 10.433033, "0.5 deg")`},
		{yqlParserTests + ".testFuzzy (line 602)",
			Select("foo").From("bar").Where(Fuzzy("baz", "a b")),
			`select foo from bar where baz contains fuzzy("a b")`},
		{yqlParserTests + ".testFuzzyAnnotations (line 616)",
			Select("foo").From("bar").Where(Fuzzy("baz", "a b").With("maxEditDistance", 3).With("prefixLength", 10).With("prefix", true)),
			`select foo from bar where baz contains ({maxEditDistance: 3, prefixLength: 10, prefix: true}fuzzy("a b"))`},
		{yqlParserTests + ".testEquiv (line 1107)",
			Select("foo").From("bar").Where(Equiv("fieldName", "A", "B")),
			`select foo from bar where fieldName contains equiv("A","B")`},
		{yqlParserTests + " (line 789)",
			Select().Where(Equiv("title", "saint", "angel").With("id", 2)),
			`select * from sources * where title contains ({id: 2}equiv('saint','angel'))`},
		{yqlParserTests + ".testUri... (line 1496)",
			Select().Where(URI("urlfield.hostname", "google.com")),
			`select * from sources * where urlfield.hostname contains uri("google.com")`},
		{yqlParserTests + " (line 1527)",
			Select().Where(URI("urlfield.hostname", "google.com").With("endAnchor", false)),
			`select * from sources * where urlfield.hostname contains ({endAnchor: false }uri("google.com"))`},
		{yqlParserTests + ".testPredicate (line 1038)",
			Select("foo").From("bar").Where(Predicate("predicate_field",
				map[string][]string{"gender": {"male"}, "hobby": {"music", "hiking"}}, map[string]int64{"age": 23})),
			`select foo from bar where predicate(predicate_field, {"gender":"male", "hobby":["music", "hiking"]}, {"age":23})`},
		{yqlParserTests + ".testPredicate (line 1041)",
			Select("foo").From("bar").Where(Predicate("predicate_field", nil, nil)),
			`select foo from bar where predicate(predicate_field, 0, void)`},
		{yqlParserTests + ".testIn (line 1568)",
			Select().Where(In("field", 42, int64(22)<<32, -7, Param("foonumeric"))),
			`select * from sources * where field in (42, 94489280512L, -7, @foonumeric)`},
		{yqlParserTests + ".testIn (line 1572)",
			Select().Where(In("string", "a", "b", Param("foostring"))),
			`select * from sources * where string in ('a','b', @foostring)`},
		{yqlParserTests + ".testIn (line 1576), parenthesised",
			Select().Where(InStrings("string", "a", "b").With("ranked", false)),
			`select * from sources * where ({ranked:false}string in ('a','b'))`},
		{"typed InInts", Select().Where(InInts("id", 1, 5000000000)), `select * from sources * where id in (1, 5000000000L)`},
		// The query language reference (docs.vespa.ai/en/reference/querying/yql.html#nonempty).
		{"query-language reference, nonEmpty",
			Select().Where(NonEmpty(Contains("bar", "a"))),
			`select * from sources * where nonEmpty(bar contains "a")`},
	}
}

func TestOperators_GoldenFromVespa(t *testing.T) {
	for _, tc := range operatorGoldens() {
		t.Run(tc.source, func(t *testing.T) {
			got, err := tc.b.YQL()
			if err != nil {
				t.Fatal(err)
			}
			sameTokens(t, got, tc.vespa)
		})
	}
}

func TestOperators_Errors(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Condition
		want string
	}{
		{"empty weighted set", WeightedSet("f", map[string]int{}), "at least one token"},
		{"weight beyond 32 bits", DotProduct("f", map[string]int{"a": 1 << 40}), "32 bits"},
		{"bad field", Wand("a b", map[string]int{"x": 1}), "character"},
		{"invalid utf8 token", WeightedSet("f", map[string]int{"\xff": 1}), "UTF-8"},
		{"latitude out of range", GeoLocation("p", 91, 0, "1 km"), "latitude"},
		{"the equator at the meridian is a point", GeoLocation("p", 0, 0, "1 km"), ""},
		{"nan latitude", GeoLocation("p", math.NaN(), 0, "1 km"), "latitude"},
		{"one-term equiv", Equiv("f", "a"), "at least two"},
		{"empty predicate attribute", Predicate("p", map[string][]string{"a": nil}, nil), "no value"},
		{"annotation on nonEmpty", NonEmpty(True()).With("a", 1), "not supported"},
		{"bad field inside nonEmpty", NonEmpty(Contains("a b", "x")), "character"},
		{"bad field inside not", Not(Contains("a b", "x")), "character"},
		{"bad field in range", Range("a b", 1, 2), "character"},
		{"bad field in geoLocation", GeoLocation("a b", 0, 0, "1 km"), "character"},
		{"bad radius in geoLocation", GeoLocation("p", 0, 0, "1 km\xff"), "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Select().Where(tc.c).YQL()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidYQL) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrInvalidYQL mentioning %q", err, tc.want)
			}
		})
	}
}
