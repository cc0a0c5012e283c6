package integration

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/query/grouping"
)

// testQueryGrouping groups this run's songs by tag, and by tag then year,
// with the grouping builder, and checks every count and aggregate against
// the corpus; then asks for the best hits per tag. Groups are compared as
// sets (max() as large as the corpus's tags and years, no order), so the test
// does not depend on how a target breaks ties. Not max(inf): Vespa refuses an
// unbounded grouping while grouping.globalMaxGroups (10000) is on, and these
// bounds total 3 + 3*50 groups.
func (s *suite) testQueryGrouping(t *testing.T, qc *query.Client) {
	name := s.tg.Name()
	if ng, ok := s.tg.(noGroupingResults); ok {
		t.Skipf("[%s] %s", name, ng.noGroupingResults())
	}
	mine := query.Contains("title", s.docs.token)
	type agg struct {
		count, sum     int64
		minYear, maxYr int64
		years          map[string]int64
	}
	want := map[string]*agg{}
	for i := range s.docs.n {
		sg := s.docs.song(i)
		for _, tag := range sg.Tags {
			a := want[tag]
			if a == nil {
				a = &agg{minYear: math.MaxInt64, maxYr: math.MinInt64, years: map[string]int64{}}
				want[tag] = a
			}
			a.count++
			a.sum += int64(sg.Popularity)
			a.minYear = min(a.minYear, int64(sg.Year))
			a.maxYr = max(a.maxYr, int64(sg.Year))
			a.years[strconv.Itoa(sg.Year)]++
		}
	}

	g := grouping.All(grouping.Group(grouping.Attr("tags")), grouping.Max(len(tagWords)),
		grouping.Each(
			grouping.Output(grouping.Count(), grouping.Sum(grouping.Attr("popularity")).As("pop"),
				grouping.MinOf(grouping.Attr("year")), grouping.MaxOf(grouping.Attr("year"))),
			grouping.All(grouping.Group(grouping.Attr("year")), grouping.Max(corpusYears),
				grouping.Each(grouping.Output(grouping.Count())))))
	yql, err := query.Select().From("music").Where(mine).GroupingOf(g).YQL()
	if err != nil {
		t.Fatalf("building YQL: %v", err)
	}
	res, _ := s.search(t, qc, &query.Request{YQL: yql, Hits: query.NoHits})
	if len(res.Groups) != 1 || res.Groups[0].List("tags") == nil {
		t.Fatalf("[%s] %s: no group list tags in %+v", name, yql, res.Groups)
	}
	tags := res.Groups[0].List("tags").Children
	if len(tags) != len(want) {
		t.Errorf("[%s] %d tag groups, want %d", name, len(tags), len(want))
	}
	for _, gt := range tags {
		w := want[string(gt.Value)]
		if w == nil {
			t.Errorf("[%s] unexpected group %s", name, gt.ID)
			continue
		}
		got := map[string]float64{}
		for _, f := range []string{"count()", "pop", "min(year)", "max(year)"} {
			got[f], _ = gt.Aggregate(f)
		}
		if got["count()"] != float64(w.count) || got["pop"] != float64(w.sum) || got["min(year)"] != float64(w.minYear) || got["max(year)"] != float64(w.maxYr) {
			t.Errorf("[%s] tag %s: %v, want count %d, pop %d, years %d..%d", name, gt.Value, got, w.count, w.sum, w.minYear, w.maxYr)
		}
		years := map[string]int64{}
		if l := gt.List("year"); l != nil {
			for _, gy := range l.Children {
				n, _ := gy.Aggregate("count()")
				years[string(gy.Value)] = int64(n)
			}
		}
		if fmt.Sprint(years) != fmt.Sprint(w.years) {
			t.Errorf("[%s] tag %s: years %v, want %v", name, gt.Value, years, w.years)
		}
	}

	top := grouping.All(grouping.Group(grouping.Attr("tags")), grouping.Max(len(tagWords)),
		grouping.Each(grouping.Max(3), grouping.Each(grouping.Output(grouping.Summary())).As("best")))
	yql, err = query.Select().From("music").Where(mine).GroupingOf(top).YQL()
	if err != nil {
		t.Fatalf("building YQL: %v", err)
	}
	res, _ = s.search(t, qc, &query.Request{YQL: yql, Hits: query.NoHits})
	for _, gt := range res.Groups[0].List("tags").Children {
		hits, err := query.GroupHits[song](gt.List("best"))
		if err != nil {
			t.Fatalf("[%s] tag %s: %v", name, gt.Value, err)
		}
		if w := want[string(gt.Value)]; w == nil || len(hits) != int(min(3, w.count)) {
			t.Errorf("[%s] tag %s: %d hits, want the best 3", name, gt.Value, len(hits))
		}
		for _, h := range hits {
			if s.songIndex(h.ID) < 0 || len(h.Fields.Tags) == 0 || h.Fields.Tags[0] != string(gt.Value) {
				t.Errorf("[%s] tag %s holds hit %s with tags %v", name, gt.Value, h.ID, h.Fields.Tags)
			}
		}
	}
}
