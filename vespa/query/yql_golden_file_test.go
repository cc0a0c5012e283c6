package query

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/query/grouping"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/yql_golden.txt from the golden tables")

// goldenFile is every statement of the golden tables, one a line, for a
// test that runs them through Vespa's own YQL parser (a container target:
// each line must parse). Lines starting with # are comments.
const goldenFile = "testdata/yql_golden.txt"

// goldenStatements renders the builder, operator and grouping goldens.
func goldenStatements(t *testing.T) []string {
	t.Helper()
	var out []string
	add := func(b Builder) {
		s, err := b.YQL()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.ContainsAny(s, "\n\r") {
			out = append(out, s)
		}
	}
	for _, g := range builderGoldens() {
		add(g.b)
	}
	for _, g := range operatorGoldens() {
		add(g.b)
	}
	for _, op := range []grouping.Op{
		grouping.All(grouping.Group(grouping.Attr("customer")), grouping.Each(grouping.Output(grouping.Sum(grouping.Attr("price"))))),
		grouping.All(grouping.Group(grouping.Attr("artist")), grouping.Max(2), grouping.Order(grouping.Desc(grouping.Count())),
			grouping.Each(grouping.Output(grouping.Count().As("n")), grouping.Max(3), grouping.Each(grouping.Output(grouping.Summary())).As("top"))),
		grouping.All(grouping.Group(grouping.Predefined(grouping.Attr("price"), grouping.Bucket(0.0, 10.0), grouping.Bucket(10.5, 20.5))),
			grouping.Unlimited(), grouping.Each(grouping.Output(grouping.Avg(grouping.Attr("price"))))),
		grouping.All(grouping.Group(grouping.Predefined(grouping.Attr("year"), grouping.Bucket(math.Inf(-1), 2000), grouping.Bucket(2000, math.Inf(1))))),
		grouping.All(grouping.Group(grouping.Predefined(grouping.Attr("name"), grouping.Bucket("a", "m"), grouping.BucketInclusive("m", "z")))),
		grouping.All(grouping.Group(grouping.Attr("a")), grouping.Each(grouping.Output(grouping.MinOf(grouping.Attr("b")).As(`odd ") label`)))),
	} {
		add(Select().Where(True()).Limit(0).GroupingOf(op))
	}
	return out
}

// TestGoldenFile_UpToDate keeps testdata/yql_golden.txt equal to the golden
// tables; run with -update-golden to rewrite it.
func TestGoldenFile_UpToDate(t *testing.T) {
	want := "# Statements rendered by the YQL and grouping builders (vespa/query golden tests), one a line.\n" +
		"# Each must parse with Vespa's YQL parser. Regenerate: go test ./vespa/query -run GoldenFile -update-golden\n" +
		strings.Join(goldenStatements(t), "\n") + "\n"
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (run with -update-golden)", err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run go test ./vespa/query -run GoldenFile -update-golden", goldenFile)
	}
}
