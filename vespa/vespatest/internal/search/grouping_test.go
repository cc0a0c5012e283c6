package search

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// purchase is one document of the grouping corpus, kept as Go values for the brute force.
type purchase struct {
	id       string
	customer string
	item     string
	price    int
	tax      float64
	year     int
}

var purchaseSchema = Schema{Name: "purchase", Fields: []Field{
	{Name: "customer", Type: "string"},
	{Name: "item", Type: "string"},
	{Name: "price", Type: "int"},
	{Name: "tax", Type: "double"},
	{Name: "year", Type: "int"},
}}

func purchaseCorpus(n int) (*memCorpus, []purchase) {
	r := rand.New(rand.NewPCG(7, 19))
	customers := []string{"Jones", "Brown", "Smith", "Lee", "Díaz"}
	// Groupings here use max(inf), which Vespa refuses unless the default
	// query profile switches grouping.globalMaxGroups off, as this one does.
	c := &memCorpus{schemas: []Schema{purchaseSchema}, profile: map[string]string{"grouping.globalMaxGroups": "-1"}}
	var ps []purchase
	for i := range n {
		p := purchase{
			id:       fmt.Sprintf("id:ns:purchase::p%03d", i),
			customer: customers[r.IntN(len(customers))],
			item:     "item" + strconv.Itoa(r.IntN(15)),
			price:    r.IntN(200),
			tax:      float64(r.IntN(1000)) / 8,
			year:     2020 + r.IntN(4),
		}
		ps = append(ps, p)
		b, _ := json.Marshal(map[string]any{"customer": p.customer, "item": p.item, "price": p.price, "tax": p.tax, "year": p.year})
		c.docs = append(c.docs, doc(p.id, string(b)))
	}
	return c, ps
}

// gOut is grouping output as the JSON renderer writes it.
type gOut struct {
	ID        string                     `json:"id"`
	Relevance float64                    `json:"relevance"`
	Value     *string                    `json:"value"`
	Limits    *struct{ From, To string } `json:"limits"`
	Label     string                     `json:"label"`
	Fields    map[string]json.RawMessage `json:"fields"`
	Children  []gOut                     `json:"children"`
}

// groupingRoot runs the query and returns its group:root:0.
func groupingRoot(t *testing.T, c Corpus, q string) gOut {
	t.Helper()
	r := get(t, c, "yql", q, "hits", "0")
	if r.status != 200 {
		t.Fatalf("%s: %d %s", q, r.status, r.body)
	}
	var w struct {
		Root struct{ Children []gOut } `json:"root"`
	}
	if err := json.Unmarshal([]byte(r.body), &w); err != nil {
		t.Fatal(err)
	}
	for _, ch := range w.Root.Children {
		if ch.ID == "group:root:0" {
			return ch
		}
	}
	t.Fatalf("%s: no group:root:0 in %s", q, r.body)
	return gOut{}
}

func (g gOut) list(label string) gOut {
	for _, c := range g.Children {
		if c.Label == label {
			return c
		}
	}
	return gOut{}
}

func TestGrouping_AggregatesEqualBruteForce(t *testing.T) {
	c, ps := purchaseCorpus(300)
	for _, minPrice := range []int{-1, 50, 120, 199} {
		q := fmt.Sprintf("select * from purchase where price > %d | all(group(customer) max(inf) each(output(count(), sum(price), avg(tax), min(price), max(tax))))", minPrice)
		root := groupingRoot(t, c, q)
		type agg struct {
			count, sum, min int
			taxSum, taxMax  float64
		}
		want := map[string]*agg{}
		for _, p := range ps {
			if p.price <= minPrice {
				continue
			}
			a := want[p.customer]
			if a == nil {
				a = &agg{min: p.price, taxMax: p.tax}
				want[p.customer] = a
			}
			a.count++
			a.sum += p.price
			a.min = min(a.min, p.price)
			a.taxSum += p.tax
			a.taxMax = max(a.taxMax, p.tax)
		}
		groups := root.list("customer").Children
		if len(groups) != len(want) {
			t.Fatalf("price > %d: %d groups, want %d", minPrice, len(groups), len(want))
		}
		for _, g := range groups {
			a := want[*g.Value]
			if a == nil || g.ID != "group:string:"+*g.Value {
				t.Fatalf("unexpected group %+v", g)
			}
			avg, _ := strconv.ParseFloat(string(g.Fields["avg(tax)"]), 64)
			mx, _ := strconv.ParseFloat(string(g.Fields["max(tax)"]), 64)
			if string(g.Fields["count()"]) != strconv.Itoa(a.count) || string(g.Fields["sum(price)"]) != strconv.Itoa(a.sum) ||
				string(g.Fields["min(price)"]) != strconv.Itoa(a.min) || fmt.Sprint(avg) != fmt.Sprint(a.taxSum/float64(a.count)) || mx != a.taxMax {
				t.Errorf("price > %d, %s: fields %v, want %+v", minPrice, *g.Value, g.Fields, *a)
			}
		}
	}
}

func TestGrouping_NestedLevelsEqualBruteForce(t *testing.T) {
	c, ps := purchaseCorpus(300)
	root := groupingRoot(t, c, "select * from purchase where true | all(group(customer) max(inf) each(output(count()) all(group(year) max(inf) each(output(count(), sum(price))))))")
	want := map[string]map[string][2]int{}
	for _, p := range ps {
		y := strconv.Itoa(p.year)
		if want[p.customer] == nil {
			want[p.customer] = map[string][2]int{}
		}
		v := want[p.customer][y]
		want[p.customer][y] = [2]int{v[0] + 1, v[1] + p.price}
	}
	total := 0
	for _, g := range root.list("customer").Children {
		n := 0
		for _, yg := range g.list("year").Children {
			w := want[*g.Value][*yg.Value]
			if yg.ID != "group:long:"+*yg.Value || string(yg.Fields["count()"]) != strconv.Itoa(w[0]) || string(yg.Fields["sum(price)"]) != strconv.Itoa(w[1]) {
				t.Errorf("%s/%s: %v, want count %d sum %d", *g.Value, *yg.Value, yg.Fields, w[0], w[1])
			}
			n += w[0]
		}
		if len(g.list("year").Children) != len(want[*g.Value]) || string(g.Fields["count()"]) != strconv.Itoa(n) {
			t.Errorf("%s: %d years, count %v; want %d years, count %d", *g.Value, len(g.list("year").Children), g.Fields["count()"], len(want[*g.Value]), n)
		}
		total += n
	}
	if total != len(ps) {
		t.Errorf("groups hold %d hits, want %d", total, len(ps))
	}
}

func TestGrouping_OrderMaxAndTopHitsPerGroup(t *testing.T) {
	c, ps := purchaseCorpus(300)
	// Valid order(-count()) is evaluated, not a 400.
	root := groupingRoot(t, c, "select * from purchase where true | all(group(item) max(4) order(-count()) each(output(count()) max(2) each(output(summary())) as(top)))")
	counts := map[string]int{}
	first := map[string][]string{} // item -> document IDs in hit order (by ID: every relevance is 0)
	for _, p := range ps {
		counts[p.item]++
		first[p.item] = append(first[p.item], p.id)
	}
	items := make([]string, 0, len(counts))
	for it := range counts {
		items = append(items, it)
	}
	slices.SortFunc(items, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(first[a][0], first[b][0]) // ties: first appearance
	})
	groups := root.list("item").Children
	if len(groups) != 4 {
		t.Fatalf("%d groups, want max(4)", len(groups))
	}
	for i, g := range groups {
		if *g.Value != items[i] || string(g.Fields["count()"]) != strconv.Itoa(counts[items[i]]) {
			t.Errorf("group %d: %s %v, want %s with %d", i, *g.Value, g.Fields, items[i], counts[items[i]])
		}
		if want := float64(4-i) / 4; g.Relevance != want {
			t.Errorf("group %d relevance %v, want %v (ResultBuilder's (n-i)/n)", i, g.Relevance, want)
		}
		top := g.list("top")
		if top.ID != "hitlist:top" || len(top.Children) != 2 || top.Children[0].ID != first[*g.Value][0] || top.Children[1].ID != first[*g.Value][1] {
			t.Errorf("group %s hits %+v, want %v", *g.Value, top, first[*g.Value][:2])
		}
	}
	// Without max, Vespa keeps 10 groups and 10 hits.
	root = groupingRoot(t, c, "select * from purchase where true | all(group(item) each(each(output(summary()))))")
	if n := len(root.list("item").Children); n != 10 {
		t.Errorf("%d groups without max, want Vespa's default 10", n)
	}
	for _, g := range root.list("item").Children {
		if n := len(g.list("hits").Children); n != min(10, counts[*g.Value]) {
			t.Errorf("%s: %d hits without max, want %d", *g.Value, n, min(10, counts[*g.Value]))
		}
	}
	r := get(t, c, "yql", "select * from purchase where true | all(group(item) each(output(count())))", "hits", "0", "grouping.defaultMaxGroups", "3")
	if strings.Count(r.body, `"id":"group:string:`) != 3 {
		t.Errorf("grouping.defaultMaxGroups=3: %s", r.body)
	}
}

func TestGrouping_PredefinedBucketsEqualBruteForce(t *testing.T) {
	c, ps := purchaseCorpus(300)
	root := groupingRoot(t, c, "select * from purchase where true | all(group(predefined(price, bucket(0, 50), bucket(50, 100), bucket(150, 175))) max(inf) order(-count()) each(output(count())))")
	want := map[string]int{}
	for _, p := range ps {
		switch {
		case p.price < 50:
			want["0:50"]++
		case p.price < 100:
			want["50:100"]++
		case p.price >= 150 && p.price < 175:
			want["150:175"]++
		}
	}
	groups := root.list("predefined(price, bucket[0, 50>, bucket[50, 100>, bucket[150, 175>)").Children
	if len(groups) != 3 {
		t.Fatalf("groups %+v", root)
	}
	for _, g := range groups {
		k := g.Limits.From + ":" + g.Limits.To
		if g.ID != "group:long_bucket:"+k || string(g.Fields["count()"]) != strconv.Itoa(want[k]) {
			t.Errorf("bucket %s: %s %v, want %d", k, g.ID, g.Fields, want[k])
		}
	}
}

func TestGrouping_RendersAsVespa(t *testing.T) {
	c := &memCorpus{schemas: []Schema{purchaseSchema}, docs: []Document{
		doc("id:ns:purchase::1", `{"customer":"Jones","price":10,"tax":1.5,"year":2020,"item":"a"}`),
		doc("id:ns:purchase::2", `{"customer":"Jones","price":20,"tax":2.5,"year":2021,"item":"b"}`),
		doc("id:ns:purchase::3", `{"customer":"Brown","price":5,"tax":0.5,"year":2020,"item":"a"}`),
	}}
	r := get(t, c, "yql", `select * from purchase where true | all(group(customer) each(output(sum(price)))) | all(output(count() as(n)) each(output(summary())) as(all_hits))`, "hits", "0")
	// The shape of Vespa's grouping example (docs: querying/query-api, and the renderer's
	// testGroupingWithBucket): the root group, its continuation, the list, the groups.
	want := `"children":[{"id":"group:root:0","relevance":1.0,"continuation":{"this":""},"children":[{"id":"grouplist:customer","relevance":1.0,"label":"customer","children":[` +
		`{"id":"group:string:Jones","relevance":0.0,"value":"Jones","fields":{"sum(price)":30}},{"id":"group:string:Brown","relevance":0.0,"value":"Brown","fields":{"sum(price)":5}}]}]},` +
		`{"id":"group:root:1","relevance":1.0,"continuation":{"this":""},"fields":{"n":3},"children":[{"id":"hitlist:all_hits","relevance":1.0,"label":"all_hits","children":[{"id":"id:ns:purchase::1","relevance":0.0,"source":"purchase","fields":{"sddocname":"purchase","documentid":"id:ns:purchase::1",`
	if r.status != 200 || !strings.Contains(r.body, want) {
		t.Errorf("got  %s\nwant a body containing %s", r.body, want)
	}
	if !strings.Contains(r.body, `"totalCount":3`) {
		t.Errorf("totalCount: %s", r.body)
	}
}

func TestGrouping_NotImplementedAndErrors(t *testing.T) {
	c, _ := purchaseCorpus(10)
	for _, tc := range []struct {
		grouping     string
		status, code int
		want         string
	}{
		{"all(group(time.year(year)) each(output(count())))", 501, 501, "does not implement the grouping function time.year"},
		{"all(group(customer) each(output(stddev(price))))", 501, 501, "does not implement the grouping function stddev"},
		{"all(group(customer) accuracy(0.5) each(output(count())))", 501, 501, "grouping clause accuracy"},
		{"all(group(price + 1) each(output(count())))", 501, 501, "arithmetic"},
		{"all(group(predefined(price, bucket(0, inf))) each(output(count())))", 501, 501, "predefined buckets"},
		{"all(group($x) each(output(count())))", 501, 501, "aliases"},
		{"all(group(customer) each(output(count())) where(true))", 501, 501, "where"},
		{`[{"continuations":["BGAAABEBCA"]}]all(group(customer) each(output(count())))`, 501, 501, "continuations"},
		{`{"continuations":["BGAAABEBCA"]}all(group(customer) each(output(count())))`, 501, 501, "continuations"},
		{"all(group(nosuch) each(output(count())))", 400, 17, "references attribute 'nosuch'"},
		{"all(group(customer) all(group(year) each(output(count()))))", 400, 4, "Expression 'year' not applicable for single group."}, // GroupingOperation.resolveLevel runs first
		{"all(group(customer) each(output(frobnicate())))", 400, 4, "unknown grouping function"},
		{"all(max(2) group(customer) each(output(count())))", 400, 4, "group(...) must come first"},
		{"all(group(customer) each(output(count()))", 400, 4, "brackets do not balance"},
		{"all(group(customer) max(x) each(output(count())))", 400, 4, "max expects a number"},
	} {
		kv := []string{"yql", "select * from purchase where true | " + tc.grouping}
		get(t, c, kv...).wantError(t, kv, tc.status, tc.code, tc.want)
	}
}

func TestParseYQL_IdentifiersWithDashAndGroupingTokens(t *testing.T) {
	st, err := parseYQL(`select * from music where my-field contains "x" and all-time = 3 | all(group(my_attr) each(output(count())))`)
	if err != nil {
		t.Fatal(err)
	}
	and, ok := st.where.(andNode)
	if !ok || and.kids[0].(containsNode).field != "my-field" || and.kids[1].(compareNode).field != "all-time" {
		t.Errorf("where %#v", st.where)
	}
	if len(st.groupings) != 1 || st.groupings[0].groupBy.name != "my_attr" {
		t.Errorf("groupings %#v", st.groupings)
	}
	// As in Vespa's lexer, a field named all followed by a bracket starts a grouping token.
	if _, err := parseYQL(`select * from music where all < 5 and b > 3`); err == nil {
		t.Error("all < 5 … > lexed as a field, not as Vespa's VESPA_GROUPING token")
	}
}
