package search

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file evaluates parsed grouping requests over the query's matches, as Vespa's grouping
// does (container-search grouping/vespa and searchlib aggregation): every match is grouped, not
// only the returned hits; a group list holds at most max groups (10 unless max(...) or
// grouping.defaultMaxGroups says otherwise), a hit list at most max hits (10, or
// grouping.defaultMaxHits), in relevance order whatever the query's order by; groups are ordered by their best hit's relevance, or by the order
// expressions, with relevance (n-i)/n as ResultBuilder gives them; count() is a long, sum(x) has
// the attribute's type, avg(x) is a double, min/max the attribute's type.

// Default list sizes of GroupingExecutor.
const (
	defaultMaxGroups = 10
	defaultMaxHits   = 10
)

// gNode is a rendered node of grouping output: a group, a group list or a hit list.
type gNode struct {
	id           string
	relevance    float64
	value        *string    // a value group's value
	limits       *[2]string // a bucket group's from and to
	label        string     // a list's label
	list         bool
	continuation bool // the root group renders continuation.this
	fields       []field
	children     []gNode
	hits         []hit // a hit list's hits
}

// gEval evaluates the grouping requests of one query.
type gEval struct {
	schemas  schemaSet
	maxGroup int
	maxHits  int
}

// group is one group of a group list being built.
type group struct {
	key    string // identity: type and value
	id     string
	value  *string
	limits *[2]string
	ms     []match
	rank   float64
}

// evalGrouping evaluates every grouping request over the matches (in result order) and returns
// the root groups, group:root:0, group:root:1, ...
func evalGrouping(reqs []*gOp, ms []match, p params, schemas schemaSet) ([]gNode, error) {
	ev := &gEval{schemas: schemas, maxGroup: defaultMaxGroups, maxHits: defaultMaxHits}
	for name, dst := range map[string]*int{"grouping.defaultMaxGroups": &ev.maxGroup, "grouping.defaultMaxHits": &ev.maxHits} {
		if v, ok := p.get(name); ok && strings.TrimSpace(v) != "" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return nil, &carriedResultError{e: illegalQuery(fmt.Sprintf("Could not set '%s' to '%s': '%s' is not a valid integer", name, v, v))}
			}
			*dst = n // -1: unlimited
		}
	}
	// Grouping sees every match in rank order, whatever the query's order by: hit lists are
	// ordered by relevance, as the content nodes' grouping keeps them.
	ranked := slices.Clone(ms)
	sortMatches(ranked, nil)
	ms = ranked
	var out []gNode
	for i, op := range reqs {
		root := gNode{id: "group:root:" + strconv.Itoa(i), relevance: 1.0, continuation: true}
		var err error
		if op.each {
			err = ev.hitsBody(&root, &gOp{max: maxUnset, children: []*gOp{op}}, ms)
		} else {
			err = ev.body(&root, op, ms)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, root)
	}
	return out, nil
}

// body applies op to the hits ms at node.
func (ev *gEval) body(node *gNode, op *gOp, ms []match) error {
	if op.groupBy == nil {
		return ev.hitsBody(node, op, ms)
	}
	// Outputs next to group(...) belong to the level the operation starts at, as in Vespa's
	// RequestBuilder: all(group(a) output(count()) each(...)) counts every hit at node.
	if err := ev.outputs(node, op.outputs, ms); err != nil {
		return err
	}
	groups, err := ev.partition(op.groupBy, ms)
	if err != nil {
		return err
	}
	ranked := len(op.order) == 0
	if err := ev.orderGroups(groups, op.order); err != nil {
		return err
	}
	if n := limit(op.max, ev.maxGroup); n >= 0 && len(groups) > n {
		groups = groups[:n]
	}
	eachs := op.children
	if len(eachs) == 0 {
		eachs = []*gOp{{each: true, max: maxUnset}}
	}
	for _, c := range eachs {
		if !c.each {
			if c.groupBy != nil {
				// RequestBuilder.resolveGroupBy's IllegalInputException.
				return &carriedResultError{e: invalidParameter("Can not group list of groups.")}
			}
			return &notImplementedError{what: "all(...) directly under an operation that groups (use each(...))"}
		}
		label := c.label
		if label == "" {
			label = op.groupBy.text()
		}
		list := gNode{id: "grouplist:" + label, relevance: 1.0, label: label, list: true}
		for i, g := range groups {
			rel := g.rank
			if !ranked {
				rel = float64(len(groups)-i) / float64(len(groups))
			}
			gn := gNode{id: g.id, relevance: rel, value: g.value, limits: g.limits}
			if err := ev.body(&gn, &gOp{groupBy: c.groupBy, max: c.max, order: c.order, outputs: c.outputs, children: c.children}, g.ms); err != nil {
				return err
			}
			list.children = append(list.children, gn)
		}
		if len(list.children) > 0 {
			// As ResultBuilder, which makes a group list only for groups that exist.
			node.children = append(node.children, list)
		}
	}
	return nil
}

// hitsBody applies an operation that does not group: its outputs aggregate ms into node's
// fields; each(output(summary())) children list the first max hits; all(...) children apply to
// the same hits.
func (ev *gEval) hitsBody(node *gNode, op *gOp, ms []match) error {
	if len(op.order) > 0 {
		return &notImplementedError{what: "order(...) of hits in grouping (hits keep the query's order)"}
	}
	if err := ev.outputs(node, op.outputs, ms); err != nil {
		return err
	}
	for _, c := range op.children {
		if !c.each {
			if err := ev.body(node, c, ms); err != nil {
				return err
			}
			continue
		}
		if c.groupBy != nil || len(c.children) > 0 || len(c.order) > 0 || len(c.outputs) != 1 || c.outputs[0].kind != gSummary {
			return &notImplementedError{what: "each(...) over hits other than each(output(summary()))"}
		}
		if c.outputs[0].name != "" {
			return &notImplementedError{what: "summary(" + c.outputs[0].name + "): named document summaries"}
		}
		n := limit(op.max, ev.maxHits)
		if c.max != maxUnset {
			n = limit(c.max, ev.maxHits)
		}
		hs := ms
		if n >= 0 && len(hs) > n {
			hs = hs[:n]
		}
		label := c.label
		if label == "" {
			label = "hits"
		}
		list := gNode{id: "hitlist:" + label, relevance: 1.0, label: label, list: true}
		for _, m := range hs {
			list.hits = append(list.hits, renderHit(m, nil, ev.schemas))
		}
		node.children = append(node.children, list)
	}
	return nil
}

// outputs adds the aggregates of ms to node's fields, named by their label or their text.
func (ev *gEval) outputs(node *gNode, outs []gExpr, ms []match) error {
	for _, e := range outs {
		if e.kind == gSummary {
			return &notImplementedError{what: "summary() outside an each(...) over hits"}
		}
		raw, err := ev.aggregate(&e, ms)
		if err != nil {
			return err
		}
		name := e.label
		if name == "" {
			name = e.text()
		}
		node.fields = append(node.fields, field{Key: name, Val: raw})
	}
	return nil
}

// limit returns the number of elements max(...) keeps: -1 for all.
func limit(set, def int) int {
	switch set {
	case maxUnset:
		return def
	case maxUnlimited:
		return -1
	}
	return set
}

// attrType is the type of an attribute's values: 'l' long, 'd' double, 's' string, 'b' bool.
func (ev *gEval) attrType(m match, name string, v any) byte {
	if f, ok := ev.schemas.field(m.doc.docType(), name); ok {
		t := strings.TrimSpace(f.Type)
		for _, w := range []string{"array<", "weightedset<"} {
			t = strings.TrimSuffix(strings.TrimPrefix(t, w), ">")
		}
		switch t {
		case "int", "long", "byte":
			return 'l'
		case "float", "double":
			return 'd'
		case "bool":
			return 'b'
		case "string":
			return 's'
		}
		return 0
	}
	switch x := v.(type) {
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return 'd'
		}
		return 'l'
	case string:
		return 's'
	case bool:
		return 'b'
	}
	return 0
}

// values returns the attribute's values in a document (one for a single value, every element
// for an array or weighted set), and whether the document has the field.
func (ev *gEval) values(m match, name string) ([]any, bool) {
	top, _, _ := strings.Cut(name, ".")
	x, ok := m.doc.value(top)
	if !ok || x == nil {
		return nil, false
	}
	if ws, ok := x.(map[string]any); ok && !strings.Contains(name, ".") {
		keys := make([]any, 0, len(ws))
		for _, k := range slices.Sorted(maps.Keys(ws)) {
			keys = append(keys, k)
		}
		return keys, true
	}
	return m.doc.leaves(name), true
}

// partition groups the matches by e: one group per value (a document with several values is in
// several groups), or per predefined bucket; in order of first appearance.
func (ev *gEval) partition(e *gExpr, ms []match) ([]*group, error) {
	attr := e
	if e.kind == gPredefined {
		attr = e.arg
		for _, k := range e.buckets {
			if k.from.inf != 0 || k.to.inf != 0 || k.from.isStr || k.to.isStr || !k.fromIncl || k.toIncl ||
				k.from.isInt != k.to.isInt {
				return nil, &notImplementedError{what: "predefined buckets other than half-open numeric bucket(from, to) with finite bounds of one type"}
			}
		}
	} else if e.kind != gAttr || e.neg {
		return nil, &notImplementedError{what: "group(" + e.text() + ")"}
	}
	if !ev.schemas.lenient() {
		if _, ok := ev.schemas.anyField(attr.name); !ok {
			// GroupingValidator's UnavailableAttributeException, without the cluster name the
			// emulator does not have.
			return nil, &carriedResultError{e: invalidParameter(fmt.Sprintf(
				"Grouping request references attribute '%s' which is not available in the searched document types.", attr.name))}
		}
	}
	byKey := map[string]*group{}
	var out []*group
	for _, m := range ms {
		vals, ok := ev.values(m, attr.name)
		if !ok {
			if _, declared := ev.schemas.field(m.doc.docType(), attr.name); declared || ev.schemas.lenient() {
				return nil, &notImplementedError{what: fmt.Sprintf("grouping on '%s' when a matched document (%s) has no value for it (Vespa groups it under the attribute's undefined value)", attr.name, m.doc.ID)}
			}
			continue // the field is not in this document type: the document is in no group
		}
		seen := map[string]bool{}
		for _, v := range vals {
			g, err := ev.groupOf(e, m, attr.name, v)
			if err != nil {
				return nil, err
			}
			if g == nil || seen[g.key] {
				continue
			}
			seen[g.key] = true
			if old, ok := byKey[g.key]; ok {
				g = old
			} else {
				byKey[g.key] = g
				g.rank = math.Inf(-1)
				out = append(out, g)
			}
			g.ms = append(g.ms, m)
			g.rank = math.Max(g.rank, m.score)
		}
	}
	return out, nil
}

// groupOf returns the group of one value, or nil when it falls in no bucket.
func (ev *gEval) groupOf(e *gExpr, m match, name string, v any) (*group, error) {
	t := ev.attrType(m, name, v)
	if e.kind == gPredefined {
		f, ok := toFloat(v)
		if !ok || t != 'l' && t != 'd' {
			return nil, &notImplementedError{what: "predefined buckets over a non-numeric attribute"}
		}
		for _, k := range e.buckets {
			if k.from.isInt != (t == 'l') {
				return nil, &notImplementedError{what: "predefined buckets whose bounds' type differs from the attribute's"}
			}
			if f >= k.from.num && f < k.to.num {
				typ := "double_bucket"
				if t == 'l' {
					typ = "long_bucket"
				}
				from, to := k.from.String(), k.to.String()
				return &group{key: typ + ":" + from + ":" + to, id: "group:" + typ + ":" + from + ":" + to, limits: &[2]string{from, to}}, nil
			}
		}
		return nil, nil
	}
	var typ, img string
	switch t {
	case 'l':
		n, ok := v.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil {
			return nil, &notImplementedError{what: fmt.Sprintf("grouping on the value %v of the long attribute '%s'", v, name)}
		}
		typ, img = "long", strconv.FormatInt(i, 10)
	case 'd':
		f, ok := toFloat(v)
		if !ok {
			return nil, &notImplementedError{what: fmt.Sprintf("grouping on the value %v of '%s'", v, name)}
		}
		typ, img = "double", javaDouble(f)
	case 's':
		s, ok := v.(string)
		if !ok {
			return nil, &notImplementedError{what: fmt.Sprintf("grouping on the value %v of '%s'", v, name)}
		}
		typ, img = "string", s
	case 'b':
		b, ok := v.(bool)
		if !ok {
			return nil, &notImplementedError{what: fmt.Sprintf("grouping on the value %v of '%s'", v, name)}
		}
		typ, img = "bool", strconv.FormatBool(b)
	default:
		return nil, &notImplementedError{what: fmt.Sprintf("grouping on '%s' (only long, double, string and bool attributes)", name)}
	}
	return &group{key: typ + ":" + img, id: "group:" + typ + ":" + img, value: &img}, nil
}

// orderGroups sorts groups by the order expressions, or by rank (the best hit's relevance),
// descending; ties keep the order of first appearance.
func (ev *gEval) orderGroups(groups []*group, order []gExpr) error {
	keys := make([][]float64, len(groups))
	for i, g := range groups {
		for _, o := range order {
			f, err := ev.orderValue(&o, g.ms)
			if err != nil {
				return err
			}
			keys[i] = append(keys[i], f)
		}
	}
	idx := make([]int, len(groups))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if len(order) == 0 {
			switch {
			case groups[a].rank > groups[b].rank:
				return -1
			case groups[a].rank < groups[b].rank:
				return 1
			}
			return 0
		}
		for k, o := range order {
			x, y := keys[a][k], keys[b][k]
			if o.neg {
				x, y = -x, -y
			}
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
		}
		return 0
	})
	sorted := make([]*group, len(groups))
	for i, j := range idx {
		sorted[i] = groups[j]
	}
	copy(groups, sorted)
	return nil
}

// orderValue evaluates an order expression (an aggregate) over a group's hits.
func (ev *gEval) orderValue(o *gExpr, ms []match) (float64, error) {
	switch o.kind {
	case gCount, gSum, gAvg, gMin, gMax:
	default:
		return 0, &notImplementedError{what: "order(" + o.text() + ") (only aggregates)"}
	}
	raw, err := ev.aggregate(&gExpr{kind: o.kind, arg: o.arg}, ms)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, &notImplementedError{what: "order(" + o.text() + ") over non-numeric values"}
	}
	return f, nil
}

// aggregate computes count(), sum, avg, min or max over ms and returns its JSON.
func (ev *gEval) aggregate(e *gExpr, ms []match) ([]byte, error) {
	if e.neg {
		return nil, &notImplementedError{what: "negated outputs"}
	}
	if e.kind == gCount {
		return []byte(strconv.Itoa(len(ms))), nil
	}
	switch e.kind {
	case gSum, gAvg, gMin, gMax:
	default:
		return nil, &notImplementedError{what: "output(" + e.text() + ")"}
	}
	var (
		isLong    = true
		sumL      int64
		sumF      float64
		n         int
		best      float64
		bestRaw   string
		haveValue bool
	)
	for _, m := range ms {
		var vals []any
		if e.arg.kind == gRelevance {
			vals, isLong = []any{m.score}, false
		} else {
			vs, ok := ev.values(m, e.arg.name)
			if !ok {
				continue
			}
			vals = vs
		}
		for _, v := range vals {
			f, ok := toFloat(v)
			if !ok {
				return nil, &notImplementedError{what: e.text() + " over non-numeric values"}
			}
			if e.arg.kind != gRelevance && ev.attrType(m, e.arg.name, v) != 'l' {
				isLong = false
			}
			if num, ok := v.(json.Number); ok && isLong {
				i, err := num.Int64()
				if err != nil {
					isLong = false
				}
				sumL += i
			}
			sumF += f
			n++
			if !haveValue || e.kind == gMin && f < best || e.kind == gMax && f > best {
				best, haveValue = f, true
				if num, ok := v.(json.Number); ok {
					bestRaw = string(num)
				} else {
					bestRaw = javaDouble(f)
				}
			}
		}
	}
	switch e.kind {
	case gSum:
		if isLong {
			return []byte(strconv.FormatInt(sumL, 10)), nil
		}
		return []byte(javaDouble(sumF)), nil
	case gAvg:
		if n == 0 {
			return []byte("0.0"), nil
		}
		return []byte(javaDouble(sumF / float64(n))), nil
	}
	if !haveValue {
		return nil, &notImplementedError{what: e.text() + " of a group without values"}
	}
	if isLong {
		return []byte(bestRaw), nil
	}
	return []byte(javaDouble(best)), nil
}
