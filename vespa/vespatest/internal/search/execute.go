package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// match is one matched document and its relevance.
type match struct {
	doc   *docView
	score float64
	// summaryFeatures and matchFeatures are the rendered features of the
	// rank profile, nil when it lists none.
	summaryFeatures, matchFeatures json.RawMessage
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
	schemas := newSchemaSet(h.corpus.Schemas())
	types, unresolved := h.sourceTypes(st, p, schemas)
	// YqlParser.getIndex: every field a YQL condition names must be a field
	// or field set of the searched schemas (an IndexFacts index), checked as
	// the YQL is parsed, before anything else about the query.
	if e := checkFieldsExist(st.where, schemas, types); e != nil {
		return nil, e
	}
	where, err := resolveUserInput(st.where, p, 0)
	if err != nil {
		return nil, queryError(err)
	}
	if e := validate(where, p, schemas); e != nil {
		return nil, e
	}
	// FederationSearcher: sources that resolve to nothing are an error
	// beside the hits of those that do; restrict prunes targets silently.
	var federationErrors []resultError
	if unresolved != "" {
		federationErrors = append(federationErrors, invalidParameter(unresolved))
	}
	if types != nil && len(types) == 0 {
		return &result{errors: federationErrors}, nil // no target: no backend asked, no coverage
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
	if e := h.checkSortable(order, schemas, types); e != nil {
		return nil, e
	}
	plan, e := planRanking(p, schemas, types)
	if e != nil {
		if e.source != "" {
			e.source = h.clusterOf(e.source) // an error of that cluster's chain
		}
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
	active, covered, degraded := total, total, false
	if frac, ok := softTimeoutFrom(ctx); ok {
		if v, set := p.get("ranking.softtimeout.enable"); set && strings.EqualFold(strings.TrimSpace(v), "false") {
			return nil, timeoutError(req.timeout)
		}
		// The node covered a part of the corpus before its soft timeout:
		// the documents of that part (in ID order, so runs repeat) are
		// matched, the rest never looked at.
		covered = int(math.Round(frac * float64(total)))
		slices.SortFunc(docs, func(a, b *docView) int { return strings.Compare(a.ID, b.ID) })
		docs = docs[:int(math.Round(frac*float64(len(docs))))]
		degraded = true
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
			m := match{doc: d, score: plan.score(ev, d, s)}
			m.summaryFeatures, m.matchFeatures = plan.features(ev, d, s, m.score)
			matches = append(matches, m)
		}
	}
	sortMatches(matches, order)

	res := &result{total: len(matches), coverage: &coverage{documents: covered, active: active, degradedTimeout: degraded}, errors: federationErrors}
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
			hh := renderHit(m, st.fields, schemas)
			// FederationSearcher.search sets each hit's source to the search chain's
			// id, the content cluster's name, not the document type.
			hh.source = h.clusterOf(hh.source)
			res.hits = append(res.hits, hh)
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

// sourceTypes returns the document types searched (nil for all) and, when
// some of the sources do not resolve, FederationSearcher's message for them.
// A source is a schema or a content cluster (SourceRefResolver); restrict
// names schemas and prunes the targets to them, silently.
func (h *handler) sourceTypes(st *statement, p params, schemas schemaSet) (map[string]bool, string) {
	split := func(v string) []string {
		var list []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				list = append(list, s)
			}
		}
		return list
	}
	names := st.sources
	if v, ok := p.get("model.sources", "sources", "search"); ok && strings.TrimSpace(v) != "" {
		names = split(v)
	}
	var out map[string]bool
	var missing []string
	if names != nil {
		out = map[string]bool{}
		for _, n := range names {
			if schemas.lenient() {
				out[n] = true
				continue
			}
			found := false
			for t := range schemas.types {
				if t == n || h.clusterOf(t) == n {
					out[t], found = true, true
				}
			}
			if !found {
				missing = append(missing, "Could not resolve source ref '"+n+"'.")
			}
		}
	}
	if v, ok := p.get("model.restrict", "restrict"); ok && strings.TrimSpace(v) != "" {
		restrict := map[string]bool{}
		for _, n := range split(v) {
			if _, known := schemas.types[n]; known || schemas.lenient() {
				if out == nil || out[n] {
					restrict[n] = true
				}
			}
		}
		out = restrict
	}
	if len(missing) == 0 {
		return out, ""
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	var refs []string
	for t := range schemas.types {
		refs = append(refs, h.clusterOf(t))
	}
	slices.Sort(refs)
	return out, strings.Join(missing, " ") + " Valid source refs are " + strings.Join(slices.Compact(refs), ", ") + "."
}

// clusterOf names the content cluster of a document type (the type itself
// when the corpus does not know clusters).
func (h *handler) clusterOf(t string) string {
	if c, ok := h.corpus.(Clustered); ok {
		return c.ClusterOf(t)
	}
	return t
}

// clusterOfTypes names the cluster searched, the source of errors from a
// cluster's search chain: the first searched type's, in name order.
func (h *handler) clusterOfTypes(types map[string]bool, schemas schemaSet) string {
	names := slices.Sorted(maps.Keys(types))
	if types == nil {
		names = slices.Sorted(maps.Keys(schemas.types))
	}
	if len(names) == 0 {
		return ""
	}
	return h.clusterOf(names[0])
}

// checkFieldsExist fails as YqlParser.getIndex does ("Field '%s' does not
// exist.") for a field a condition names that no searched schema has as a
// field or field set. "default" and sddocname are always known (the
// emulator's default index is every string field when no schema declares a
// "default" field set; config-model IndexInfo adds sddocname to every
// schema's index info). documentid is a summary field only
// (SummaryClass.DOCUMENT_ID_FIELD), with no index info: Vespa refuses a
// condition on it, as the JDisc harness (Vespa's YqlParser) shows. Lenient mode knows every field. The
// operands of sameElement are sub-fields and not checked.
func checkFieldsExist(n node, schemas schemaSet, types map[string]bool) *resultError {
	if schemas.lenient() {
		return nil
	}
	known := func(path string) bool {
		top, _, _ := strings.Cut(path, ".")
		switch top {
		case defaultIndex, "sddocname":
			return true
		}
		for t, fs := range schemas.types {
			if types != nil && !types[t] {
				continue
			}
			if _, ok := fs[top]; ok {
				return true
			}
			if _, ok := schemas.fieldsets[t][path]; ok {
				return true
			}
		}
		return false
	}
	field := func(n node) string {
		switch n := n.(type) {
		case containsNode:
			return n.field
		case compareNode:
			return n.field
		case rangeNode:
			return n.field
		}
		return ""
	}
	var walk func(n node, depth int) *resultError
	walk = func(n node, depth int) *resultError {
		if depth > maxDepth {
			return nil
		}
		if f := field(n); f != "" && !known(f) {
			e := invalidParameter(fmt.Sprintf("Could not create query from YQL: Field '%s' does not exist.", f))
			return &e
		}
		kids := operands(n)
		if nn, ok := n.(notNode); ok {
			kids = []node{nn.kid}
		}
		for _, k := range kids {
			if e := walk(k, depth+1); e != nil {
				return e
			}
		}
		return nil
	}
	return walk(n, 0)
}

// sortable reports whether a field is an attribute: its indexing statement
// has an attribute step, or, declared in Go without one, it is not Indexed.
func sortable(f Field) bool {
	if strings.TrimSpace(f.Indexing) == "" {
		return !f.Indexed
	}
	return f.MaybeAttribute()
}

// checkSortable fails as ValidateSortingSearcher does for a sort key that is
// not an attribute of the searched cluster: "Cluster '%s' has no sortable
// attribute named '%s'" (code 4, from the cluster's chain). [rank], [docid]
// and the relevance aliases are always sortable; lenient mode sorts by
// anything.
func (h *handler) checkSortable(order []orderSpec, schemas schemaSet, types map[string]bool) *resultError {
	if schemas.lenient() {
		return nil
	}
	for _, o := range order {
		switch o.field {
		case "[rank]", "[docid]", "[relevance]", "[relevancy]", "relevance":
			continue
		}
		ok := false
		for t := range schemas.types {
			if types != nil && !types[t] {
				continue
			}
			if f, found := schemas.field(t, o.field); found && sortable(f) {
				ok = true
			}
		}
		if !ok {
			cluster := h.clusterOfTypes(types, schemas)
			e := invalidParameter(fmt.Sprintf("Cluster '%s' has no sortable attribute named '%s'", cluster, o.field))
			e.source = cluster
			return &e
		}
	}
	return nil
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
