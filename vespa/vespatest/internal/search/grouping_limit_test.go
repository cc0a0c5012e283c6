package search

import (
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// totalOf parses grouping and runs the global-max check with a bound of
// limit, with RequestBuilder's own defaults (no default max for groups or
// hits), as RequestBuilderTestCase does.
func totalOf(t *testing.T, grouping string, limit int64) error {
	t.Helper()
	op, err := parseGrouping(grouping)
	if err != nil {
		t.Fatalf("%s: %v", grouping, err)
	}
	return checkGlobalMaxGroups([]*gOp{op}, params{"grouping.defaultMaxGroups": "-1", "grouping.defaultMaxHits": "-1"}, limit)
}

// TestCheckGlobalMaxGroups_total takes the cases of Vespa's
// RequestBuilderTestCase.require_that_total_groups_and_summaries_calculation_is_correct
// (container-search grouping/vespa): a bound one below each total fails
// with "( total > bound )", the total itself passes.
func TestCheckGlobalMaxGroups_total(t *testing.T) {
	for grouping, total := range map[string]int{
		"all(group(a) max(5) each(output(count())))":                5,
		"all(group(a) max(5) each(max(7) each(output(summary()))))": 5 + 5*7,
		"all( group(a) max(3) each(output(count())" +
			"     all(group(b) max(5) each(output(count())" +
			"         all(group(c) max(7) each(max(11) output(count())" +
			"             each(output(summary()))))))))": 3 + 3*5 + 3*5*7 + 3*5*7*11,
		"all(" +
			"   all(group(a) max(3) each(output(count()) max(5) each(output(summary())))) " +
			"   all(group(b) max(3) each(output(count()) max(5) each(output(summary())))))": 2 * (3 + 3*5),
		"all(group(predefined(a,bucket(1,3),bucket(6,9))) each(output(count())))":          3,
		"all(group(predefined(a,bucket(1,3),bucket(6,9))) max(2) each(output(count())))":   2,
		"all(group(predefined(a,bucket(1,3),bucket(6,9))) max(inf) each(output(count())))": 3,
		// A trailing level without outputs is pruned before counting.
		"all(group(a) max(4) each(output(count()) all(group(b) max(9) each())))": 4,
	} {
		if err := totalOf(t, grouping, int64(total)); err != nil {
			t.Errorf("%s at its total %d: %v", grouping, total, err)
		}
		err := totalOf(t, grouping, int64(total-1))
		if want := "( " + strconv.Itoa(total) + " > " + strconv.Itoa(total-1) + " )"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s at %d: %v, want %q", grouping, total-1, err, want)
		}
		if err := totalOf(t, grouping, -1); err != nil {
			t.Errorf("%s with the bound off: %v", grouping, err)
		}
	}
}

// TestCheckGlobalMaxGroups_unbounded follows
// require_that_unbounded_queries_fails_when_global_max_is_enabled, and
// GroupingExecutor's defaults (10 groups, 10 hits) that bound a list without
// max().
func TestCheckGlobalMaxGroups_unbounded(t *testing.T) {
	for grouping, want := range map[string]string{
		"all(group(a) each(output(count())))":                         "unbounded number of groups",
		"all(group(a) max(inf) each(output(count())))":                "unbounded number of groups",
		"all(group(a) max(5) each(each(output(summary()))))":          "unbounded number of summaries",
		"all(group(a) max(5) each(max(inf) each(output(summary()))))": "unbounded number of summaries",
	} {
		if err := totalOf(t, grouping, math.MaxInt64); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", grouping, err, want)
		}
	}
	op, err := parseGrouping("all(group(a) each(each(output(summary()))))")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkGlobalMaxGroups([]*gOp{op}, params{}, 10+10*10); err != nil {
		t.Errorf("defaults 10 groups of 10 hits = 110: %v", err)
	}
	if err := checkGlobalMaxGroups([]*gOp{op}, params{}, 109); err == nil {
		t.Error("110 groups and hits passed a bound of 109")
	}
}

// TestHandler_globalMaxGroups checks the answers against Vespa's container:
// the unbounded grouping is the JDisc target's recorded answer
// (integration/testdata/jdisc/differential.json, "query grouping
// unbounded"); the request parameter is GroupingQueryParser.validate's
// refusal as SearchHandler reports an IllegalInputException
// (ErrorMessage.createBadRequest, "Invalid request [<request>]: ...").
func TestHandler_globalMaxGroups(t *testing.T) {
	music := &memCorpus{schemas: []Schema{musicSchema}, docs: musicCorpus().docs[:3]}
	const unbounded = "select * from music where true | all(group(year) max(inf) each(output(count())))"
	r := get(t, music, "yql", unbounded, "hits", "0")
	want := `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":0},"errors":[{"code":4,"summary":"Invalid query parameter","source":"music",` +
		`"message":"Cannot return unbounded number of groups when 'grouping.globalMaxGroups' is enabled. Either restrict group count with max() or disable 'grouping.globalMaxGroups'. See https://docs.vespa.ai/en/querying/grouping.html for details."}]}}`
	if r.status != 400 || r.body != want {
		t.Errorf("max(inf): %d %s\nwant 400 %s", r.status, r.body, want)
	}
	if r := get(t, music, "yql", strings.Replace(unbounded, "max(inf)", "max(10000)", 1)); r.status != 200 {
		t.Errorf("max(10000), at the bound: %d %s", r.status, r.body)
	}
	if r := get(t, music, "yql", strings.Replace(unbounded, "max(inf)", "max(10001)", 1)); r.status != 400 || !strings.Contains(r.body, "( 10001 > 10000 )") {
		t.Errorf("max(10001): %d %s", r.status, r.body)
	}
	for _, v := range []string{"-1", ""} {
		req := httptest.NewRequest(http.MethodGet, "/search/?grouping.globalMaxGroups="+v+"&yql="+url.QueryEscape("select * from music where true"), nil)
		r := do(t, music, req)
		wantMsg := "Invalid request [" + req.URL.RequestURI() + "]: Illegal YQL query: grouping.globalMaxGroups must be specified in a query profile."
		if r.status != 400 || len(r.Root.Errors) != 1 || r.Root.Errors[0].Code != 17 || r.Root.Errors[0].Message != wantMsg {
			t.Errorf("grouping.globalMaxGroups=%q as a request parameter: %d %s, want 400 code 17 %q", v, r.status, r.body, wantMsg)
		}
	}
	// Without yql, GroupingQueryParser refuses it and MinimalQueryInserter adds no prefix:
	// the JDisc target answers /search/?query=foo&grouping.globalMaxGroups=5 so.
	req := httptest.NewRequest(http.MethodGet, "/search/?query=foo&grouping.globalMaxGroups=5", nil)
	if r := do(t, music, req); r.status != 400 || len(r.Root.Errors) != 1 || r.Root.Errors[0].Message !=
		"Invalid request [/search/?query=foo&grouping.globalMaxGroups=5]: grouping.globalMaxGroups must be specified in a query profile." {
		t.Errorf("without yql: %d %s", r.status, r.body)
	}
	// Also as the JDisc target answers (run by hand, Vespa 8.700.24): GroupingValidator's
	// unknown attribute comes before the bound, and both it and a bad default are
	// IllegalInputExceptions reported by SearchHandler (code 17), the latter under
	// MinimalQueryInserter's "Illegal YQL query: ".
	for kv, want := range map[[2]string]string{
		{"yql", "select * from music where true | all(group(nosuch) max(inf) each(output(count())))"}: "Grouping request references attribute 'nosuch' which is not available in cluster 'music'.",
		{"grouping.defaultMaxGroups", "zz"}: "Illegal YQL query: 'zz' is not a valid integer",
	} {
		q := url.Values{"yql": {unbounded}}
		q.Set(kv[0], kv[1])
		req := httptest.NewRequest(http.MethodGet, "/search/?"+q.Encode(), nil)
		r := do(t, music, req)
		if wantMsg := "Invalid request [" + req.URL.RequestURI() + "]: " + want; r.status != 400 || len(r.Root.Errors) != 1 || r.Root.Errors[0].Code != 17 || r.Root.Errors[0].Message != wantMsg {
			t.Errorf("%s=%s: %d %s, want code 17 %q", kv[0], kv[1], r.status, r.body, wantMsg)
		}
	}
	for v, status := range map[string]int{"-1": 200, "1000": 400, "junk": 400} { // junk: the default applies
		music.profile = map[string]string{"grouping.globalMaxGroups": v}
		if r := get(t, music, "yql", unbounded, "hits", "0"); r.status != status {
			t.Errorf("default query profile grouping.globalMaxGroups=%s: %d %s, want %d", v, r.status, r.body, status)
		}
	}
}

// TestGroupingDefaults: the two defaults are read, -1 included, and when
// both are invalid the error names grouping.defaultMaxGroups's value on
// every call (a map's order named either at random).
func TestGroupingDefaults(t *testing.T) {
	if g, h, err := groupingDefaults(params{"grouping.defaultMaxGroups": " 7 ", "grouping.defaultMaxHits": "-1"}); g != 7 || h != -1 || err != nil {
		t.Errorf("groupingDefaults = %d, %d, %v; want 7, -1, nil", g, h, err)
	}
	if g, h, err := groupingDefaults(params{}); g != defaultMaxGroups || h != defaultMaxHits || err != nil {
		t.Errorf("groupingDefaults of none = %d, %d, %v; want %d, %d, nil", g, h, err, defaultMaxGroups, defaultMaxHits)
	}
	both := params{"grouping.defaultMaxGroups": "groups", "grouping.defaultMaxHits": "hits"}
	for range 32 {
		if _, _, err := groupingDefaults(both); err == nil || err.Error() != "Illegal YQL query: 'groups' is not a valid integer" {
			t.Fatalf("groupingDefaults of two invalid values = %v, want the error of grouping.defaultMaxGroups", err)
		}
	}
}
