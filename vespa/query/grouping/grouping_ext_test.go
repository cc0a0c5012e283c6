package grouping_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	g "github.com/govespa/govespa/vespa/query/grouping"
)

// vespaTests is Vespa's GroupingParserTestCase
// (container-search/src/test/java/com/yahoo/search/grouping/request/parser/,
// at vespa-engine/vespa 1f79d33dd014); vespaDocs is the grouping guide
// (docs.vespa.ai/en/querying/grouping.html) and the grouping reference
// (docs.vespa.ai/en/reference/querying/grouping-language.html).
const (
	vespaTests = "GroupingParserTestCase"
	vespaDocs  = "grouping guide"
)

func TestOp_GoldenFromVespa(t *testing.T) {
	cases := []struct {
		source string
		op     g.Op
		want   string
	}{
		{vespaDocs, g.All(g.Group(g.Attr("customer")), g.Each(g.Output(g.Sum(g.Attr("price"))))),
			"all(group(customer) each(output(sum(price))))"},
		{vespaTests + " testRequireThatGroupingAcceptsSpaces", g.All(g.Group(g.Attr("foo")), g.Each(g.Output(g.MaxOf(g.Attr("bar"))))),
			"all(group(foo) each(output(max(bar))))"},
		{vespaTests + " line 221", g.All(g.Max(1)), "all(max(1))"},
		{vespaTests + " line 231", g.All(g.Order(g.Desc(g.Attr("foo")), g.Asc(g.Attr("bar")))), "all(order(-foo, bar))"},
		{vespaTests + " line 236", g.All(g.Precision(1)), "all(precision(1))"},
		{vespaTests + " line 235", g.All(g.Output(g.MinOf(g.Attr("a")), g.MinOf(g.Attr("b")))), "all(output(min(a), min(b)))"},
		{vespaTests + " line 415", g.All(g.Output(g.MinOf(g.Attr("a")).As("foo"), g.MaxOf(g.Attr("b")).As("bar"))),
			"all(output(min(a) as(foo), max(b) as(bar)))"},
		{vespaTests + " line 513", g.All(g.Group(g.Attr("artist")), g.Max(7)), "all(group(artist) max(7))"},
		{vespaTests + " line 254", g.All(g.Group(g.Predefined(g.Attr("foo"), g.Bucket(1, 2), g.Bucket(3, 4)))),
			"all(group(predefined(foo, bucket(1, 2), bucket(3, 4))))"},
		{vespaTests + " line 252", g.All(g.Group(g.Predefined(g.Attr("foo"), g.Bucket(-1, 2)))),
			"all(group(predefined(foo, bucket(-1, 2))))"},
		{vespaTests + " line 270", g.All(g.Group(g.Predefined(g.Attr("foo"), g.BucketInclusive(1, 5)))),
			"all(group(predefined(foo, bucket[1, 5])))"},
		{vespaTests + " line 286", g.All(g.Group(g.Predefined(g.Attr("foo"), g.Bucket(1.0, 2.0)))),
			"all(group(predefined(foo, bucket(1.0, 2.0))))"},
		// Vespa's YqlParserTestCase (testYqlGroupingOrderFunctions and the
		// long ad-serving query of testQueryTreeSerialization) uses these.
		{"YqlParserTestCase", g.All(g.Group(g.Attr("adTypeForGrouping")), g.Each(g.Group(g.Attr("advertiser_id")), g.Max(11),
			g.Output(g.Count().As("groupingCounter")), g.Each(g.Max(1), g.Each(g.Output(g.Summary()))))),
			"all(group(adTypeForGrouping) each(group(advertiser_id) max(11) output(count() as(groupingCounter)) each(max(1) each(output(summary())))))"},
		{vespaDocs + " (top-N per group)", g.All(g.Group(g.Attr("customer")), g.Max(2), g.Order(g.Desc(g.Count())),
			g.Each(g.Output(g.Count()), g.Max(3), g.Each(g.Output(g.Summary())).As("top"))),
			"all(group(customer) max(2) order(-count()) each(output(count()) max(3) each(output(summary())) as(top)))"},
		{vespaDocs + " (unlimited)", g.All(g.Group(g.Attr("a")), g.Unlimited(), g.Each(g.Output(g.Avg(g.Attr("b"))))),
			"all(group(a) max(inf) each(output(avg(b))))"},
		{vespaTests + " line 524", g.All(g.Group(g.Attr("artist")), g.Max(2), g.Each(g.Each(g.Output(g.SummaryOf("simple"))))),
			"all(group(artist) max(2) each(each(output(summary(simple)))))"},
		{vespaTests + " line 525", g.All(g.Group(g.Attr("artist")), g.Max(5), g.Each(g.Output(g.Count()), g.Each(g.Output(g.Summary())))),
			"all(group(artist) max(5) each(output(count()) each(output(summary()))))"},
		{vespaTests + " line 568", g.All(g.Group(g.Attr("artist")), g.Each(g.Max(2), g.Each(g.Output(g.Summary())))),
			"all(group(artist) each(max(2) each(output(summary()))))"},
		{vespaTests + " line 595", g.All(g.Group(g.Attr("artist")), g.Unlimited()), "all(group(artist) max(inf))"},
		{vespaTests + " line 544", g.All(g.Group(g.Relevance())), "all(group(relevance()))"},
		{"open buckets", g.All(g.Group(g.Predefined(g.Attr("price"), g.Bucket(math.Inf(-1), 10), g.Bucket(10, math.Inf(1))))),
			"all(group(predefined(price, bucket(-inf, 10), bucket(10, inf))))"},
		{"summary class and relevance", g.All(g.Order(g.Desc(g.MaxOf(g.Relevance()))), g.Each(g.Output(g.SummaryOf("short")))),
			"all(order(-max(relevance())) each(output(summary(short))))"},
		{"nested attribute", g.All(g.Group(g.Attr("person.name"))), "all(group(person.name))"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			got, err := tc.op.Text()
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s (from %s)", got, tc.want, tc.source)
			}
			if tc.op.String() != got {
				t.Errorf("String %q differs from Text", tc.op.String())
			}
		})
	}
}

// FuzzOp_StringsCannotChangeStructure puts one string in every place the
// builder takes one (a string bucket bound, an output label, a list label,
// a summary class) and checks that the statement keeps its structure: the
// only brackets are the statement's own, and no quote or backslash escape
// is left for the lexers to read differently.
func FuzzOp_StringsCannotChangeStructure(f *testing.F) {
	for _, s := range []string{"z", `a) all(group(x`, `"`, `\`, `\"`, "<>[]()", "inf", "x y", "ü🎸", "\n", "", "$a", "'"} {
		f.Add(s)
	}
	build := func(s string) g.Op {
		return g.All(g.Group(g.Predefined(g.Attr("a"), g.Bucket(s, "z"))),
			g.Each(g.Output(g.Count().As(s)), g.Each(g.Output(g.SummaryOf(s))).As(s)).As(s))
	}
	brackets := func(text string) string {
		return strings.Map(func(r rune) rune {
			if strings.ContainsRune("()[]<>", r) {
				return r
			}
			return -1
		}, text)
	}
	ref, err := build("z").Text()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text, err := build(s).Text()
		if err != nil {
			if utf8.ValidString(s) && s != "" {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if s == "" {
			return // an empty label is no label, an empty class the default summary
		}
		if brackets(text) != brackets(ref) {
			t.Errorf("%q: brackets %s in %s, want %s", s, brackets(text), text, brackets(ref))
		}
		if strings.Contains(text, `\"`) || strings.Contains(text, `\\`) || strings.Count(text, `"`)%2 != 0 {
			t.Errorf("%q: a quote or backslash escape in %s", s, text)
		}
	})
}

func TestOp_Errors(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   g.Op
		want string
	}{
		{"bad attribute", g.All(g.Group(g.Attr("a b"))), "not an identifier"},
		{"attribute with underscore first", g.All(g.Group(g.Attr("_a"))), "not an identifier"},
		{"attribute inf", g.All(g.Group(g.Attr("inf"))), "not an identifier"},
		{"empty attribute", g.All(g.Output(g.Sum(g.Attr("")))), "empty attribute"},
		{"max zero", g.All(g.Max(0)), "at least 1"},
		{"precision zero", g.All(g.Precision(0)), "at least 1"},
		{"empty output", g.All(g.Output()), "at least one expression"},
		{"empty order", g.All(g.Order()), "at least one expression"},
		{"no buckets", g.All(g.Group(g.Predefined(g.Attr("a")))), "at least one bucket"},
		{"nan bound", g.All(g.Group(g.Predefined(g.Attr("a"), g.Bucket(math.NaN(), 1)))), "bucket bound"},
		{"inf as low bound", g.All(g.Group(g.Predefined(g.Attr("a"), g.Bucket(math.Inf(1), 1)))), "bucket bound"},
		{"bool bound", g.All(g.Group(g.Predefined(g.Attr("a"), g.Bucket(true, 1)))), "type bool"},
		{"label on all", g.All().As("x"), "cannot be labelled"},
		{"invalid utf8 label", g.All(g.Each().As("\xff")), "UTF-8"},
		{"zero expr", g.All(g.Group(g.Expr{})), "zero expression"},
		{"nil part", g.All(nil), "nil part"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.op.Text()
			if !errors.Is(err, g.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrInvalid mentioning %q", err, tc.want)
			}
			if !strings.HasPrefix(tc.op.String(), "!error: ") {
				t.Errorf("String %q", tc.op.String())
			}
		})
	}
}
