package query_test

import (
	"reflect"
	"testing"

	"github.com/govespa/govespa/vespa/query"
)

// The typed references a generated package declares for testdata/app's
// music schema, and more.
var (
	year       = query.IntegerFieldOf[int32]("year")
	score      = query.NumericField[float32]("score")
	title      = query.StringField("title")
	live       = query.BoolField("live")
	genres     = query.WeightedSetField[string]("genres")
	ids        = query.WeightedSetField[int64]("ids")
	ids32      = query.WeightedSetField[int32]("ids") // a weightedset<int>, as cmd/vespagen declares it
	embedding  = query.TensorField("embedding")
	location   = query.PositionField("location")
	target     = query.PredicateField("target")
	homepage   = query.URIField("homepage")
	badName    = query.StringField("no spaces")
	badIntName = query.IntegerFieldOf[int64]("1year")
)

// TestTypedFields_RenderAsTheirFunctions checks that each typed reference
// renders as the function it stands for, with the field's name.
func TestTypedFields_RenderAsTheirFunctions(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want query.Condition
	}{
		{"int lt", year.Lt(1990), query.Less("year", 1990)},
		{"int le", year.Le(1990), query.LessOrEqual("year", 1990)},
		{"int gt", year.Gt(1990), query.Greater("year", 1990)},
		{"int ge", year.Ge(1990), query.GreaterOrEqual("year", 1990)},
		{"int eq", year.Eq(1990), query.Equal("year", 1990)},
		{"int range", year.Range(1980, 1989), query.Range("year", 1980, 1989)},
		{"int in", year.In(1990, 1991), query.InInts("year", 1990, 1991)},
		{"float range", score.Range(0.5, 1.5), query.Range("score", 0.5, 1.5)},
		{"float lt", score.Lt(0.25), query.Less("score", 0.25)},
		{"string contains", title.Contains("love"), query.Contains("title", "love")},
		{"string phrase", title.Phrase("a", "b"), query.Phrase("title", "a", "b")},
		{"string near", title.Near("a", "b"), query.Near("title", "a", "b")},
		{"string onear", title.ONear("a", "b"), query.ONear("title", "a", "b")},
		{"string equiv", title.Equiv("a", "b"), query.Equiv("title", "a", "b")},
		{"string matches", title.Matches("^a"), query.Matches("title", "^a")},
		{"string fuzzy", title.Fuzzy("luv"), query.Fuzzy("title", "luv")},
		{"string in", title.In("a", "b"), query.InStrings("title", "a", "b")},
		{"bool", live.Is(true), query.Equal("live", true)},
		{"string set contains", genres.Contains("rock"), query.Contains("genres", "rock")},
		{"int set contains", ids.Contains(7), query.Equal("ids", int64(7))},
		{"set weightedSet", genres.WeightedSet(map[string]int{"a": 1}), query.WeightedSet("genres", map[string]int{"a": 1})},
		{"set dotProduct", ids.DotProduct(map[int64]int{3: 2}), query.DotProduct("ids", map[int64]int{3: 2})},
		{"int32 set dotProduct", ids32.DotProduct(map[int32]int{3: 2, -1: 4}), query.DotProduct("ids", map[int64]int{-1: 4, 3: 2})},
		{"int32 set wand", ids32.Wand(map[int32]int{7: 1}), query.Wand("ids", map[int]int{7: 1})},
		{"int32 set contains", ids32.Contains(7), query.Equal("ids", 7)},
		{"set wand", genres.Wand(map[string]int{"a": 1}), query.Wand("genres", map[string]int{"a": 1})},
		{"tensor", embedding.NearestNeighbor("q", 10), query.NearestNeighbor("embedding", "q", 10)},
		{"position", location.Within(37.4, -122, "10 km"), query.GeoLocation("location", 37.4, -122, "10 km")},
		{"predicate", target.Satisfied(map[string][]string{"g": {"m"}}, nil), query.Predicate("target", map[string][]string{"g": {"m"}}, nil)},
		{"uri", homepage.Matches("http://a.b/"), query.URI("homepage", "http://a.b/")},
		{"uri token", homepage.Contains("a"), query.Contains("homepage", "a")},
	} {
		got, err := query.Select().From("music").Where(c.got).YQL()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want, err := query.Select().From("music").Where(c.want).YQL()
		if err != nil || got != want {
			t.Errorf("%s: got %s, want %s (%v)", c.name, got, want, err)
		}
	}
	got, err := query.Select(title.Name(), year.Name()).From("music").
		Where(query.And(title.Contains("love"), year.Lt(1990))).OrderBy(year.Desc(), title.Asc()).YQL()
	if want := `select title, year from music where title contains "love" and year < 1990 order by year desc, title asc`; err != nil || got != want {
		t.Errorf("got %s (%v), want %s", got, err, want)
	}
}

// TestTypedFields_BadNameIsAnError checks that a name Vespa's grammar
// refuses fails the statement, as with the untyped functions.
func TestTypedFields_BadNameIsAnError(t *testing.T) {
	for _, c := range []query.Condition{badName.Contains("x"), badIntName.In(1)} {
		if yql, err := query.Select().Where(c).YQL(); err == nil {
			t.Errorf("bad field name rendered as %s", yql)
		}
	}
}

// TestTypedFields_OfferOnlyTheirOperators checks, by the method sets, that a
// string field has no comparison and a float field no in, as Vespa refuses
// them (so music.Title.Lt does not compile).
func TestTypedFields_OfferOnlyTheirOperators(t *testing.T) {
	for _, c := range []struct {
		typ    reflect.Type
		method string
		want   bool
	}{
		{reflect.TypeFor[query.StringField](), "Lt", false},
		{reflect.TypeFor[query.StringField](), "Eq", false},
		{reflect.TypeFor[query.StringField](), "Contains", true},
		{reflect.TypeFor[query.NumericField[float32]](), "In", false},
		{reflect.TypeFor[query.NumericField[float32]](), "Contains", false},
		{reflect.TypeFor[query.IntegerField[int32]](), "In", true},
		{reflect.TypeFor[query.IntegerField[int32]](), "Lt", true},
		{reflect.TypeFor[query.TensorField](), "Contains", false},
		{reflect.TypeFor[query.BoolField](), "Lt", false},
	} {
		if _, ok := c.typ.MethodByName(c.method); ok != c.want {
			t.Errorf("%v has %s: %v, want %v", c.typ, c.method, ok, c.want)
		}
	}
}

// TestTypedFields_NamedTypes checks that typed fields of named types (which
// their type parameters take) render as those of the basic types: Contains
// of a weighted set of a named string type is contains, and comparisons of
// a named number type are numbers (both were "unsupported value type").
func TestTypedFields_NamedTypes(t *testing.T) {
	type (
		genre string
		yr    int32
		score float32
	)
	for _, c := range []struct {
		name      string
		got, want query.Condition
	}{
		{"named string set contains", query.WeightedSetField[genre]("genres").Contains("rock"), query.Contains("genres", "rock")},
		{"named int set contains", query.WeightedSetField[yr]("ids").Contains(7), query.Equal("ids", 7)},
		{"named int lt", query.IntegerFieldOf[yr]("year").Lt(1990), query.Less("year", 1990)},
		{"named int eq", query.IntegerFieldOf[yr]("year").Eq(-1), query.Equal("year", -1)},
		{"named int in", query.IntegerFieldOf[yr]("year").In(1, 2), query.InInts("year", 1, 2)},
		{"named float range", query.NumericField[score]("s").Range(0.5, 1.5), query.Range("s", 0.5, 1.5)},
		{"named float ge", query.NumericField[score]("s").Ge(0.25), query.GreaterOrEqual("s", float32(0.25))},
	} {
		got, err := query.Select().From("music").Where(c.got).YQL()
		want, werr := query.Select().From("music").Where(c.want).YQL()
		if err != nil || werr != nil || got != want {
			t.Errorf("%s: got %s (%v), want %s (%v)", c.name, got, err, want, werr)
		}
	}
}
