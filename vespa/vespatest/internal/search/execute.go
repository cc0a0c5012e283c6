package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// match is one matched document and its relevance.
type match struct {
	doc   *docView
	score float64
}

// execute parses the query, evaluates it over the corpus and builds the result.
func (h *handler) execute(ctx context.Context, req *request, start time.Time) (*result, *resultError) {
	p := req.p
	st := &statement{}
	if yql, ok := p.get("yql"); ok {
		parsed, err := parseYQL(yql)
		if err != nil {
			return nil, queryError(err)
		}
		st = parsed
	} else if q, ok := p.get("model.queryString", "query"); ok && strings.TrimSpace(q) != "" {
		st.where = userQueryNode{}
	} else {
		e := illegalQuery("No query")
		return nil, &e
	}
	if st.limit != nil || st.offset != nil {
		off := 0
		if st.offset != nil {
			off = *st.offset
		}
		if off > MaxOffset {
			e := invalidParameter(fmt.Sprintf("Requested offset %d, but the max offset allowed is %d.", off, MaxOffset))
			return nil, &e
		}
		req.offset = off
		if st.limit != nil {
			req.hits = max(*st.limit-off, 0)
		}
		if req.hits > MaxHits {
			e := invalidParameter(fmt.Sprintf("Requested %d hits returned, but max hits allowed is %d.", req.hits, MaxHits))
			return nil, &e
		}
	}
	if st.timeout != nil {
		req.timeout = time.Duration(*st.timeout) * time.Millisecond
		req.timeoutSet = true
	}
	where, err := resolveUserInput(st.where, p, 0)
	if err != nil {
		return nil, queryError(err)
	}
	schemas := newSchemaSet(h.corpus.Schemas())
	types, e := sourceTypes(st, p, schemas)
	if e != nil {
		return nil, e
	}
	if e := validate(where, p, schemas); e != nil {
		return nil, e
	}
	plan, e := planRanking(p, schemas, types)
	if e != nil {
		return nil, e
	}
	if len(st.groupings) > 0 { // GroupingValidator, then GroupingExecutor, before the backend is asked
		err := h.checkGroupingAttributes(st.groupings, types, schemas)
		if err == nil {
			err = checkGlobalMaxGroups(st.groupings, p, h.globalMaxGroups())
		}
		if err != nil {
			return nil, groupingError(err, req.rawURI, oneSource(types, schemas))
		}
	}
	if req.timeout < ImmediateTimeout || !req.wait(ctx) {
		return nil, timeoutError(req.timeout)
	}
	// Only a timeout the request sets is enforced during the scan: the emulator scans every
	// document, so a large corpus must not time out under Vespa's 500 ms default.
	deadline := start.Add(req.timeout)
	if !req.timeoutSet {
		deadline = start.Add(24 * time.Hour)
	}

	// Snapshot the documents of the searched types.
	var docs []*docView
	total, timedOut := 0, false
	h.corpus.Each(func(d Document) bool {
		total++
		if total%256 == 0 && h.now().After(deadline) {
			timedOut = true
			return false
		}
		v := newDocView(d)
		if types == nil || types[v.docType()] {
			docs = append(docs, v)
		}
		return true
	})
	if timedOut {
		return nil, timeoutError(req.timeout)
	}
	ev := &evaluator{schemas: schemas, nn: map[*nnNode]map[string]float64{}, vectors: &h.vectors, searched: types}
	if err := ev.prepareNN(where, docs, p); err != nil {
		return nil, queryError(err)
	}
	if len(plan.bm25) > 0 {
		ev.prepareBM25(plan.bm25, where, docs)
	}
	if plan.text {
		ev.text = map[string]float64{}
	}
	var matches []match
	for i, d := range docs {
		if i%256 == 255 && h.now().After(deadline) {
			return nil, timeoutError(req.timeout)
		}
		clear(ev.text)
		if ok, s := ev.eval(where, d); ok {
			matches = append(matches, match{doc: d, score: plan.score(ev, d, s)})
		}
	}
	order := st.orderBy
	if len(order) == 0 {
		if s, ok := p.get("ranking.sorting", "sorting"); ok && strings.TrimSpace(s) != "" {
			o, err := parseSorting(s)
			if err != nil {
				return nil, queryError(err)
			}
			order = o
		}
	}
	sortMatches(matches, order)

	res := &result{total: len(matches), coverage: &coverage{documents: total}}
	if len(st.groupings) > 0 {
		groups, err := evalGrouping(st.groupings, matches, p, schemas)
		if err != nil {
			return nil, groupingError(err, req.rawURI, "")
		}
		res.groups = groups
	}
	if req.offset < len(matches) {
		end := min(len(matches), req.offset+req.hits)
		for _, m := range matches[req.offset:end] {
			res.hits = append(res.hits, renderHit(m, st.fields, schemas))
		}
	}
	if req.traceLevel > 0 {
		y, _ := p.get("yql")
		res.trace = []string{
			"vespatest: query: " + y,
			fmt.Sprintf("vespatest: %d of %d documents searched matched", len(matches), len(docs)),
		}
	}
	if req.timing {
		secs := h.now().Sub(start).Seconds()
		res.timing = &timing{query: secs, search: secs}
	}
	return res, nil
}

// queryError maps a parse or preparation error to a result error.
func queryError(err error) *resultError {
	var ni *notImplementedError
	if errors.As(err, &ni) {
		e := notImplemented(ni.Error())
		return &e
	}
	var re *carriedResultError
	if errors.As(err, &re) {
		e := re.e
		return &e
	}
	e := invalidParameter("Could not create query from YQL: " + err.Error())
	return &e
}

// carriedResultError carries a ready result error through error returns.
type carriedResultError struct{ e resultError }

func (e *carriedResultError) Error() string { return e.e.message }

func timeoutError(d time.Duration) *resultError {
	return &resultError{code: CodeTimeout, summary: summaryTimeout,
		message: fmt.Sprintf("No time left after waiting for %dms to execute query", d.Milliseconds())}
}

// resolveUserInput replaces userQuery() and userInput() by the conditions their text parses to.
// It rewrites the operand lists of n in place: the tree is the request's own, parsed for it.
func resolveUserInput(n node, p params, depth int) (node, error) {
	if depth > maxDepth {
		return nil, errors.New("query nested too deeply")
	}
	if kids := operands(n); kids != nil {
		for i, k := range kids {
			r, err := resolveUserInput(k, p, depth+1)
			if err != nil {
				return nil, err
			}
			kids[i] = r
		}
		return n, nil
	}
	var err error
	switch n := n.(type) {
	case notNode:
		n.kid, err = resolveUserInput(n.kid, p, depth+1)
		return n, err
	case userQueryNode:
		q, _ := p.get("model.queryString", "query")
		grammar, _ := p.get("model.type", "type")
		index, _ := p.get("model.defaultIndex", "default-index")
		parsed, err := parseUserQuery(q, grammar, index)
		if err != nil {
			return nil, err
		}
		if parsed == nil {
			return nil, &carriedResultError{e: illegalQuery("No query")}
		}
		return parsed, nil
	case userInputNode:
		text := n.literal
		if !n.isLit {
			v, ok := p[n.param]
			if !ok {
				return nil, &carriedResultError{e: invalidParameter(
					fmt.Sprintf("Could not create query from YQL: Input '%s' is not set", n.param))}
			}
			text = v
		}
		grammar, _ := n.ann["grammar"].(string)
		index, _ := n.ann["defaultIndex"].(string)
		parsed, err := parseUserQuery(text, grammar, index)
		if err != nil {
			return nil, err
		}
		if parsed == nil {
			if allow, _ := n.ann["allowEmpty"].(bool); allow {
				return boolNode{val: false}, nil
			}
			return nil, &carriedResultError{e: illegalQuery("No query")}
		}
		return parsed, nil
	}
	return n, nil
}

// sourceTypes returns the document types searched: nil for all.
func sourceTypes(st *statement, p params, schemas schemaSet) (map[string]bool, *resultError) {
	names := st.sources
	for _, param := range [][]string{{"model.sources", "sources", "search"}, {"model.restrict", "restrict"}} {
		if v, ok := p.get(param[0], param[1:]...); ok && strings.TrimSpace(v) != "" {
			var list []string
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					list = append(list, s)
				}
			}
			names = list
		}
	}
	if names == nil {
		return nil, nil
	}
	out := map[string]bool{}
	for _, n := range names {
		if !schemas.lenient() {
			if _, ok := schemas.types[n]; !ok {
				e := invalidParameter(fmt.Sprintf("Could not resolve source ref '%s'.", n))
				return nil, &e
			}
		}
		out[n] = true
	}
	return out, nil
}

// validate checks the conditions against the schemas and the query inputs as Vespa's searchers
// do: no text search in tensor fields, and nearestNeighbor items with valid targetHits, a query
// tensor, and a dense tensor field of the same size.
func validate(n node, p params, schemas schemaSet) *resultError {
	var check func(n node, depth int) *resultError
	check = func(n node, depth int) *resultError {
		if depth > maxDepth {
			e := illegalQuery("query nested too deeply")
			return &e
		}
		kids := operands(n)
		switch n := n.(type) {
		case notNode:
			kids = []node{n.kid}
		case containsNode:
			if f, ok := schemas.anyField(n.field); ok && isTensorType(f.Type) {
				e := invalidParameter(fmt.Sprintf("Cannot search '%s': It is a tensor field", n.field))
				return &e
			}
		case *nnNode:
			return validateNN(n, p, schemas)
		}
		for _, k := range kids {
			if e := check(k, depth+1); e != nil {
				return e
			}
		}
		return nil
	}
	return check(n, 0)
}

func validateNN(n *nnNode, p params, schemas schemaSet) *resultError {
	item := nnItemString(n)
	fail := func(msg string) *resultError {
		e := illegalQuery(item + msg)
		return &e
	}
	if n.targetHits < 1 {
		return fail(fmt.Sprintf(" has invalid targetHits %d: Must be >= 1", n.targetHits))
	}
	feature := "query(" + n.query + ")"
	raw, ok := p.rankInput(feature)
	if !ok {
		return fail(" requires a tensor rank feature named '" + feature + "' but this is not present")
	}
	q, ok := parseVector(raw)
	if !ok {
		e := invalidParameter(fmt.Sprintf("Could not set 'ranking.features.%s' to '%s': not a dense tensor", feature, raw))
		return &e
	}
	if schemas.lenient() {
		return nil
	}
	f, ok := schemas.anyField(n.field)
	switch {
	case !ok:
		return fail(" field is not an attribute")
	case !isTensorType(f.Type):
		return fail(" field is not a tensor")
	}
	dim, size, dense := denseSize(f.Type)
	if !dense {
		return fail(" tensor type " + f.Type + " is not a dense vector")
	}
	if size != len(q) {
		return fail(fmt.Sprintf(" field type %s does not match query type tensor(%s[%d])", f.Type, dim, len(q)))
	}
	return nil
}

// prepareNN computes, for every nearestNeighbor in the query, its targetHits nearest documents.
// A nearestNeighbor directly under the top-level and is pre-filtered by its siblings, as Vespa
// does; elsewhere it considers every searched document.
func (e *evaluator) prepareNN(where node, docs []*docView, p params) error {
	type job struct {
		n      *nnNode
		filter []node
	}
	var first, second []job
	var collect func(n node, depth int)
	collect = func(n node, depth int) {
		if depth > maxDepth {
			return
		}
		switch n := n.(type) {
		case *nnNode:
			first = append(first, job{n: n})
		case andNode:
			for i, k := range n.kids {
				if nn, ok := k.(*nnNode); ok && depth == 0 {
					var siblings []node
					for j, s := range n.kids {
						if _, isNN := s.(*nnNode); j != i && !isNN {
							siblings = append(siblings, s)
						}
					}
					second = append(second, job{n: nn, filter: siblings})
					continue
				}
				collect(k, depth+1)
			}
		case orNode, weakAndNode, rankNode:
			for _, k := range operands(n) {
				collect(k, depth+1)
			}
		case notNode:
			collect(n.kid, depth+1)
		}
	}
	collect(where, 0)
	for _, j := range append(first, second...) {
		raw, _ := p.rankInput("query(" + j.n.query + ")")
		qv, _ := parseVector(raw)
		q := newQueryVector(qv)
		var cands []nnCandidate
		cache, gen := e.vectors.begin(j.n.field)
		var err error
	docs:
		for _, d := range docs {
			// Looked up before filtering, so that the cache knows every live document.
			vec := lookupVector(cache, gen, d, j.n.field)
			if vec == nil || vec.len() != len(q.vals) {
				continue
			}
			for _, f := range j.filter {
				if ok, _ := e.eval(f, d); !ok {
					continue docs
				}
			}
			metric := ""
			if f, ok := e.schemas.field(d.docType(), j.n.field); ok {
				metric = f.DistanceMetric
			}
			var dist, closeness float64
			dist, closeness, err = vectorDistance(metric, q, vec)
			if err != nil {
				break
			}
			cands = append(cands, nnCandidate{id: d.ID, dist: dist, closeness: closeness})
		}
		e.vectors.end(cache, gen, e.searched, err == nil)
		if err != nil {
			return err
		}
		e.nn[j.n] = topK(cands, j.n.targetHits, j.n.threshold)
	}
	return nil
}
