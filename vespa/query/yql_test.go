package query

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/query/grouping"
)

// builderGolden is one statement of the golden table.
type builderGolden struct {
	name string
	b    Builder
	want string
}

func builderGoldens() []builderGolden {
	return []builderGolden{
		{"everything by default", Select(), `select * from sources * where true`},
		{"fields and one source", Select("title", "artist").From("music").Where(Contains("title", "head")),
			`select title, artist from music where title contains "head"`},
		{"several sources", Select().From("music", "books"), `select * from sources music, books where true`},
		{"a source named sources", Select().From("sources"), `select * from sources sources where true`},
		{"and or precedence", Select().Where(And(Contains("a", "x"), Or(Greater("year", 2000), Less("year", 1990)), Not(Equal("b", true)))),
			`select * from sources * where a contains "x" and (year > 2000 or year < 1990) and !(b = true)`},
		{"comparisons", Select().Where(And(LessOrEqual("a", 1.5), GreaterOrEqual("b", int64(1)<<40), Equal("c", -3))),
			`select * from sources * where a <= 1.5 and b >= 1099511627776L and c = -3`},
		{"float without fraction", Select().Where(Equal("f", 2.0)), `select * from sources * where f = 2.0`},
		{"range open ended", Select().Where(Range("year", 2000, math.Inf(1))), `select * from sources * where range(year, 2000, Infinity)`},
		{"range annotated", Select().Where(Range("price", math.Inf(-1), 10.5).With("hitLimit", 100).With("descending", true)),
			`select * from sources * where ({hitLimit: 100, descending: true}range(price, -Infinity, 10.5))`},
		{"phrase near onear", Select().Where(Or(Phrase("t", "a", "b"), Near("t", "c", "d").With("distance", 3), ONear("t", "e"))),
			`select * from sources * where t contains phrase("a", "b") or t contains ({distance: 3}near("c", "d")) or t contains onear("e")`},
		{"annotated term", Select().Where(Contains("title", "Heads").With("stem", false)),
			`select * from sources * where title contains ({stem: false}"Heads")`},
		{"matches", Select().Where(Matches("artist", "^Cold.*")), `select * from sources * where artist matches "^Cold.*"`},
		{"in strings", Select().Where(In("genre", "pop", "rock")), `select * from sources * where genre in ("pop", "rock")`},
		{"in ints", Select().Where(In("id", 1, int64(5000000000))), `select * from sources * where id in (1, 5000000000L)`},
		{"in param", Select().Where(In("id", Param("ids"))), `select * from sources * where id in (@ids)`},
		{"userQuery and userInput", Select().Where(And(UserQuery(), UserInput(Param("q")).With("defaultIndex", "title").With("grammar", "weakAnd"))),
			`select * from sources * where userQuery() and ({defaultIndex: "title", grammar: "weakAnd"}userInput(@q))`},
		{"userInput literal", Select().Where(UserInput("a \"b\"")), `select * from sources * where userInput("a \"b\"")`},
		{"weakAnd rank", Select().Where(Rank(WeakAnd(Contains("t", "a"), Contains("t", "b")).With("targetHits", 100), Contains("u", "c"))),
			`select * from sources * where rank(({targetHits: 100}weakAnd(t contains "a", t contains "b")), u contains "c")`},
		{"nearestNeighbor", Select("id").From("doc").Where(NearestNeighbor("embedding", "q", 10).With("approximate", false).With("hnsw.exploreAdditionalHits", 100).With("label", "nn")),
			`select id from doc where ({targetHits: 10, approximate: false, hnsw.exploreAdditionalHits: 100, label: "nn"}nearestNeighbor(embedding, q))`},
		{"sameElement", Select().Where(SameElement("persons", Contains("name", "Bob"), Greater("age", 20))),
			`select * from sources * where persons contains sameElement(name contains "Bob", age > 20)`},
		{"dotted names", Select("my_map.key").Where(Contains("my_map.value", "v")), `select my_map.key from sources * where my_map.value contains "v"`},
		{"true false", Select().Where(Or(True(), False())), `select * from sources * where true or false`},
		{"empty and or", Select().Where(And(Or(), And())), `select * from sources * where false and true`},
		{"single child", Select().Where(And(Or(Contains("a", "b")))), `select * from sources * where a contains "b"`},
		{"one-child and keeps its or inside", Select().Where(And(Contains("artist", "tenant42"), And(Or(Contains("title", "rock"), Contains("title", "pop"))))),
			`select * from sources * where artist contains "tenant42" and (title contains "rock" or title contains "pop")`},
		{"deep one-child chains", Select().Where(Or(And(And(Contains("a", "1"), Contains("b", "2"))), Or(Or(Or(Contains("c", "3"))), Contains("d", "4")))),
			`select * from sources * where (a contains "1" and b contains "2") or (c contains "3" or d contains "4")`},
		{"not of a one-child or", Select().Where(And(True(), Not(Or(And(Contains("a", "1"), Contains("b", "2")))))),
			`select * from sources * where true and !(a contains "1" and b contains "2")`},
		{"in with params among values", Select().Where(In("field", 42, int64(22), -7, Param("foonumeric"))),
			`select * from sources * where field in (42, 22, -7, @foonumeric)`},
		{"keyword_as_ident names", Select("select", "limit", "order", "count").Where(Contains("sources", "x")),
			`select select, limit, order, count from sources * where sources contains "x"`},
		{"order limit offset timeout", Select().OrderBy(Desc("year"), Asc("title")).Limit(20).Offset(10).Timeout(1500 * time.Microsecond),
			`select * from sources * where true order by year desc, title asc limit 20 offset 10 timeout 2`},
		{"limit zero", Select().Limit(0), `select * from sources * where true limit 0`},
		{"grouping", Select().Limit(0).Grouping("all(group(customer) each(output(sum(price))))"),
			`select * from sources * where true limit 0 | all(group(customer) each(output(sum(price))))`},
		{"grouping labelled each", Select().Limit(0).Grouping("each(output(summary())) as(hits)"),
			`select * from sources * where true limit 0 | each(output(summary())) as(hits)`},
		{"grouping with where", Select().Limit(0).Grouping("all(group(a) each(output(count()))) where(true)"),
			`select * from sources * where true limit 0 | all(group(a) each(output(count()))) where(true)`},
		{"annotation map and list", Select().Where(Contains("t", "x").With("m", map[string]any{"b": 1, "a": []any{"x", 2.5}})),
			`select * from sources * where t contains ({m: {"a": ["x", 2.5], "b": 1}}"x")`},
		{"zero condition", Select().Where(Condition{}), `select * from sources * where true`},
		{"unicode kept", Select().Where(Contains("t", "blåbær 東京 🎸")), `select * from sources * where t contains "blåbær 東京 🎸"`},
		{"escapes", Select().Where(Contains("t", "a\"b\\c\nd\te\x00f\x7fg\u2028h'")),
			`select * from sources * where t contains "a\"b\\c\nd\te\u0000f\u007fg\u2028h'"`},
	}
}

func TestBuilder_Golden(t *testing.T) {
	for _, tc := range builderGoldens() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.b.YQL()
			if err != nil {
				t.Fatalf("YQL: %v", err)
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if _, err := lexYQL(got); err != nil {
				t.Errorf("lex %s: %v", got, err)
			}
		})
	}
}

func TestBuilder_Errors(t *testing.T) {
	cases := []struct {
		name string
		b    Builder
		want string
	}{
		{"field with space", Select().Where(Contains("a b", "x")), "character ' '"},
		{"field with quote", Select("a\"").Where(True()), "character"},
		{"keyword field", Select().Where(Contains("and", "x")), "keyword"},
		{"keyword field any case", Select().Where(In("NOT", 1)), "keyword"},
		{"empty field", Select().Where(Equal("", 1)), "empty"},
		{"field starting with digit", Select().OrderBy(Asc("1a")), "character"},
		{"bad source", Select().From("a;b"), "character"},
		{"invalid utf8", Select().Where(Contains("t", "a\xffb")), "UTF-8"},
		{"nan", Select().Where(Equal("f", math.NaN())), "not finite"},
		{"inf outside range", Select().Where(Less("f", math.Inf(1))), "not finite"},
		{"uint64 too big", Select().Where(Equal("f", uint64(math.MaxUint64))), "signed 64-bit"},
		{"unsupported type", Select().Where(Equal("f", struct{}{})), "unsupported value type"},
		{"nil value", Select().Where(Equal("f", nil)), "nil value"},
		{"predicate attribute without a value", Select().Where(Predicate("p", map[string][]string{"a": {"x"}, "b": nil}, nil)), `predicate attribute "b" has no value`},
		{"predicate key not UTF-8", Select().Where(Predicate("p", nil, map[string]int64{"a\xffb": 1})), "UTF-8"},
		{"weight beyond 32 bits", Select().Where(WeightedSet("f", map[string]int{"a": 1 << 40})), "weight 1099511627776 does not fit in 32 bits"},
		{"annotation map key not UTF-8", Select().Where(Contains("t", "x").With("m", map[string]any{"a\xff": 1})), "UTF-8"},
		{"string range", Select().Where(Range("f", "a", "b")), "must be numbers"},
		{"mixed in", Select().Where(In("f", "a", 1)), "mixes"},
		{"float in", Select().Where(In("f", 1.5)), "strings or integers"},
		{"empty in", Select().Where(In("f")), "at least one value"},
		{"colon in a field (dropped from the grammar in 2021)", Select().Where(Contains("a:b", "x")), "character ':'"},
		{"colon in a param", Select().Where(Equal("f", Param("a:b"))), "character ':'"},
		{"dotted param", Select().Where(Equal("f", Param("a.b"))), "character '.'"},
		{"param range bound", Select().Where(Range("f", Param("lo"), 10)), "parameter @lo"},
		{"all is a grouping token", Select().Where(Less("all", 5)), "keyword"},
		{"each is a grouping token", Select().OrderBy(Asc("each")), "keyword"},
		{"bad param", Select().Where(UserInput(Param("a b"))), "character"},
		{"userInput int", Select().Where(UserInput(3)), "string or a Param"},
		{"empty phrase", Select().Where(Phrase("t")), "at least one word"},
		{"empty weakAnd", Select().Where(WeakAnd()), "at least 1"},
		{"nn targetHits", Select().Where(NearestNeighbor("e", "q", 0)), "targetHits"},
		{"nn tensor name", Select().Where(NearestNeighbor("e", "q)", 1)), "query tensor"},
		{"annotation on and", Select().Where(And(True(), False()).With("a", 1)), "not supported"},
		{"annotation bad key", Select().Where(Contains("t", "x").With("a}", 1)), "annotation key"},
		{"annotation bad value", Select().Where(Contains("t", "x").With("a", []int{1})), "unsupported"},
		{"negative limit", Select().Limit(-1), "negative limit"},
		{"negative offset", Select().Offset(-1), "negative offset"},
		{"negative timeout", Select().Timeout(-time.Second), "negative timeout"},
		{"grouping prefix", Select().Grouping("group(a)"), "must start"},
		{"grouping unbalanced", Select().Grouping("all(group(a)"), "unbalanced"},
		{"grouping trailing", Select().Grouping("all(group(a)) where true"), "after its closing"},
		{"grouping never closed", Select().Grouping("all(a"), "unbalanced"},
		{"grouping label never closed", Select().Grouping("each(a) as(b"), "unbalanced"},
		{"grouping text after label", Select().Grouping("each(a) as(b) or true"), "after its closing"},
		{"grouping from GroupingOf", Select().GroupingOf(grouping.All(grouping.Max(0))), "at least 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.b.YQL()
			if err == nil {
				t.Fatalf("YQL = %q, want an error", got)
			}
			if !errors.Is(err, ErrInvalidYQL) {
				t.Errorf("error %v is not ErrInvalidYQL", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestBuilder_Immutable(t *testing.T) {
	base := Select("a").From("s").Grouping("all(group(a) each(output(count())))")
	one := base.Where(Contains("a", "1")).OrderBy(Asc("a"))
	two := base.Where(Contains("a", "2")).Grouping("all(group(b) each(output(count())))")
	for _, tc := range []struct {
		b    Builder
		want string
	}{
		{base, `select a from s where true | all(group(a) each(output(count())))`},
		{one, `select a from s where a contains "1" order by a asc | all(group(a) each(output(count())))`},
		{two, `select a from s where a contains "2" | all(group(a) each(output(count()))) | all(group(b) each(output(count())))`},
	} {
		got, err := tc.b.YQL()
		if err != nil || got != tc.want {
			t.Errorf("got %q, %v; want %q", got, err, tc.want)
		}
	}
	c := Contains("t", "x")
	c1 := c.With("a", 1)
	_ = c1.With("b", 2)
	_ = c1.With("c", 3)
	got, _ := Select().Where(c1).YQL()
	if want := `select * from sources * where t contains ({a: 1}"x")`; got != want {
		t.Errorf("With changed its receiver: %q", got)
	}
}
