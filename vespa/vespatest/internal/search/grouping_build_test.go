package search

import (
	"strings"
	"testing"
)

// TestCheckGlobalMaxGroups_levelsAndLabels takes the refusals of Vespa's
// RequestBuilderTestCase (requireThatSiblingAggregatorsCanNotShareSameLabel,
// requireThatAggregationLevelIsValidatedFails, the group list label cases)
// and two the JDisc target gave (summary() directly in a group; two each()
// under one group), with the bound off: they do not depend on it.
func TestCheckGlobalMaxGroups_levelsAndLabels(t *testing.T) {
	for grouping, want := range map[string]string{
		"all(group(a) each(output(count(),count())))":                                        "Can not use output label 'count()' for multiple siblings.",
		"all(group(a) each(output(count() as(b),count() as(b))))":                            "Can not use output label 'b' for multiple siblings.",
		"all(group(artist) output(sum(length)))":                                             "Expression 'length' not applicable for single group.",
		"all(group(artist) each(group(album) output(sum(length))))":                          "Expression 'length' not applicable for single group.",
		"all(group(a) each(output(count())) each(output(count())))":                          "Can not use group list label 'a' for multiple siblings.",
		"all(all(group(a) each(output(count()))) all(group(a) each(output(count()))))":       "Can not use group list label 'a' for multiple siblings.",
		"all(group(year) max(5) each(output(summary())))":                                    "Expression 'summary()' not applicable for single group.",
		"all(group(year) max(2) each(output(count())) each(max(2) each(output(summary()))))": "Can not use group list label 'year' for multiple siblings.",
	} {
		if err := totalOf(t, grouping, -1); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", grouping, err, want)
		}
	}
	for _, ok := range []string{
		"all(group(artist) each(output(count())))",
		"all(group(a) each(output(count())) each(output(count())) as(other))",
		"all(group(a) output(count()) each(output(count()) max(3) each(output(summary()))))",
		"all(group(a) max(3) each(output(count()) all(group(b) max(5) each(output(count())))))",
	} {
		if err := totalOf(t, ok, -1); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestHandler_groupingNeedsAttribute: an index-only field is not an
// attribute, and the JDisc target refuses group(title) of
// integration/testdata/app (indexing: summary | index) so.
func TestHandler_groupingNeedsAttribute(t *testing.T) {
	c := &memCorpus{schemas: []Schema{{Name: "music", Fields: []Field{
		{Name: "title", Type: "string", Indexed: true, Indexing: "summary | index"},
		{Name: "year", Type: "int", Indexing: "summary | attribute"},
	}}}}
	r := get(t, c, "yql", "select * from music where true | all(group(title) max(3) each(output(count())))")
	if r.status != 400 || len(r.Root.Errors) != 1 || r.Root.Errors[0].Code != 17 ||
		!strings.HasSuffix(r.Root.Errors[0].Message, "]: Grouping request references attribute 'title' which is not available in cluster 'music'.") {
		t.Errorf("group(title): %d %s", r.status, r.body)
	}
	if r := get(t, c, "yql", "select * from music where true | all(group(year) max(3) each(output(count())))"); r.status != 200 {
		t.Errorf("group(year): %d %s", r.status, r.body)
	}
}
