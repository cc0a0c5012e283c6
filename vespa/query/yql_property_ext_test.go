package query_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/query/grouping"
	"github.com/govespa/govespa/vespa/vespatest"
)

// propDoc is one document of the property-test corpus: small attribute
// values, so that random conditions match some documents and miss others.
type propDoc struct {
	id   string
	a, b int
	year int
	tags []string
}

// propCorpus returns n documents: a = i%4, b = (i/4)%3, year = 1990+i, and
// tag "tK" for every bit K set in i.
func propCorpus(n int) []propDoc {
	docs := make([]propDoc, n)
	for i := range docs {
		d := propDoc{id: fmt.Sprintf("id:ns:prop::d%02d", i), a: i % 4, b: (i / 4) % 3, year: 1990 + i}
		for k := range 6 {
			if i&(1<<k) != 0 {
				d.tags = append(d.tags, "t"+strconv.Itoa(k))
			}
		}
		docs[i] = d
	}
	return docs
}

// propTree is a random condition and what it means, as a Go predicate.
type propTree struct {
	cond  query.Condition
	holds func(propDoc) bool
}

// genLeaf returns a random leaf condition.
func genLeaf(r *rand.Rand) propTree {
	switch r.IntN(6) {
	case 0:
		k := r.IntN(4)
		return propTree{query.Equal("a", k), func(d propDoc) bool { return d.a == k }}
	case 1:
		k := r.IntN(3)
		return propTree{query.Equal("b", k), func(d propDoc) bool { return d.b == k }}
	case 2, 3:
		tag := "t" + strconv.Itoa(r.IntN(6))
		return propTree{query.Contains("tags", tag), func(d propDoc) bool { return slices.Contains(d.tags, tag) }}
	case 4:
		lo := 1990 + r.IntN(64)
		hi := lo + r.IntN(24)
		return propTree{query.Range("year", lo, hi), func(d propDoc) bool { return d.year >= lo && d.year <= hi }}
	default:
		y := 1990 + r.IntN(64)
		return propTree{query.Greater("year", y), func(d propDoc) bool { return d.year > y }}
	}
}

// genTree returns a random and/or/not tree of at most depth levels. Children
// counts include 0 and 1 on purpose: the one-child and/or is where the
// builder once let a grandchild's or out. A negation is only generated as a
// child of an and that also has a positive child, the only place Vespa
// accepts one.
func genTree(r *rand.Rand, depth int) propTree {
	if depth == 0 || r.IntN(4) == 0 {
		return genLeaf(r)
	}
	n := r.IntN(4) // 0..3 children
	if r.IntN(3) == 0 {
		n = 1
	}
	kids := make([]propTree, n)
	for i := range kids {
		kids[i] = genTree(r, depth-1)
	}
	if r.IntN(2) == 0 {
		conds := make([]query.Condition, 0, n+1)
		for _, k := range kids {
			conds = append(conds, k.cond)
		}
		var negs []propTree
		if n > 0 && r.IntN(3) == 0 {
			negs = append(negs, genTree(r, depth-1))
			conds = append(conds, query.Not(negs[0].cond))
		}
		return propTree{query.And(conds...), func(d propDoc) bool {
			for _, k := range kids {
				if !k.holds(d) {
					return false
				}
			}
			for _, k := range negs {
				if k.holds(d) {
					return false
				}
			}
			return true
		}}
	}
	conds := make([]query.Condition, n)
	for i, k := range kids {
		conds[i] = k.cond
	}
	return propTree{query.Or(conds...), func(d propDoc) bool {
		for _, k := range kids {
			if k.holds(d) {
				return true
			}
		}
		return false
	}}
}

// TestGrouping_RandomTreesCountAsBruteForce groups the matches of random
// trees by a and then b, through the grouping builder and the result
// accessors, and checks every count against brute force.
func TestGrouping_RandomTreesCountAsBruteForce(t *testing.T) {
	qc, docs := propServer(t)
	g := grouping.All(grouping.Group(grouping.Attr("a")), grouping.Unlimited(),
		grouping.Each(grouping.Output(grouping.Count(), grouping.Sum(grouping.Attr("year")).As("years")),
			grouping.All(grouping.Group(grouping.Attr("b")), grouping.Unlimited(),
				grouping.Each(grouping.Output(grouping.Count())))))
	r := rand.New(rand.NewPCG(20, 2026))
	for i := range 300 {
		tree := genTree(r, 4)
		yql, err := query.Select().From("prop").Where(tree.cond).Limit(0).GroupingOf(g).YQL()
		if err != nil {
			t.Fatal(err)
		}
		res, err := qc.Search(context.Background(), &query.Request{YQL: yql})
		if err != nil {
			t.Fatalf("tree %d: %s: %v", i, yql, err)
		}
		want := map[string]map[string]int{}
		years := map[string]int{}
		for _, d := range docs {
			if !tree.holds(d) {
				continue
			}
			a, b := strconv.Itoa(d.a), strconv.Itoa(d.b)
			if want[a] == nil {
				want[a] = map[string]int{}
			}
			want[a][b]++
			years[a] += d.year
		}
		got := map[string]map[string]int{}
		if len(res.Groups) != 1 {
			t.Fatalf("tree %d: %d grouping roots", i, len(res.Groups))
		}
		list := res.Groups[0].List("a")
		if list == nil {
			// Vespa renders no group list when there are no groups.
			if len(want) > 0 {
				t.Fatalf("tree %d: no group list a", i)
			}
			continue
		}
		for _, ga := range list.Children {
			a := string(ga.Value)
			n, _ := ga.Aggregate("count()")
			y, _ := ga.Aggregate("years")
			got[a] = map[string]int{}
			sum := 0
			for _, gb := range ga.List("b").Children {
				c, _ := gb.Aggregate("count()")
				got[a][string(gb.Value)] = int(c)
				sum += int(c)
			}
			if int(n) != sum || int(y) != years[a] {
				t.Errorf("tree %d, a=%s: count %v, sum of b counts %d, years %v want %d", i, a, n, sum, y, years[a])
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("tree %d: %s\n got %v\nwant %v", i, yql, got, want)
		}
	}
}

// propServer starts the emulator with the property-test corpus.
func propServer(t *testing.T) (*query.Client, []propDoc) {
	t.Helper()
	srv := vespatest.NewTestServer(t, vespatest.WithSchema(vespatest.Schema{Name: "prop", Fields: []vespatest.Field{
		{Name: "a", Type: "int"},
		{Name: "b", Type: "int"},
		{Name: "year", Type: "int"},
		{Name: "tags", Type: "array<string>"},
	}}),
		// The groupings use max(inf), which Vespa answers only with the
		// bound on grouping sizes off in the default query profile.
		vespatest.WithQueryProfile(map[string]string{"grouping.globalMaxGroups": "-1"}))
	docs := propCorpus(64)
	for _, d := range docs {
		fields, _ := json.Marshal(map[string]any{"a": d.a, "b": d.b, "year": d.year, "tags": d.tags})
		if err := srv.PutDocument(d.id, fields); err != nil {
			t.Fatal(err)
		}
	}
	return newClient(t, srv.URL()), docs
}

// TestBuilder_RandomTreesMeanWhatTheySay renders thousands of random nested
// and/or/not trees, runs them on the emulator (whose parser follows
// yqlplus.g4's precedence: and binds tighter than or) and checks that the
// hits are exactly the documents the tree means, computed by brute force.
func TestBuilder_RandomTreesMeanWhatTheySay(t *testing.T) {
	qc, docs := propServer(t)
	trees := 3000
	if testing.Short() {
		trees = 300
	}
	r := rand.New(rand.NewPCG(19, 2026))
	for i := range trees {
		tree := genTree(r, 5)
		yql, err := query.Select("a").From("prop").Where(tree.cond).YQL()
		if err != nil {
			t.Fatalf("tree %d: %v", i, err)
		}
		var want []string
		for _, d := range docs {
			if tree.holds(d) {
				want = append(want, d.id)
			}
		}
		res, err := qc.Search(context.Background(), &query.Request{YQL: yql, Hits: len(docs), GET: i%2 == 1})
		if err != nil {
			t.Fatalf("tree %d: %s: %v", i, yql, err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) || res.TotalCount != int64(len(want)) {
			t.Fatalf("tree %d: %s\n got %d hits %v\nwant %d hits %v", i, yql, res.TotalCount, got, len(want), want)
		}
	}
}
