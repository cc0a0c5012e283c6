package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/tensor"
)

// Implicit rank profiles every schema has.
const (
	profileDefault  = "default"
	profileUnranked = "unranked"
)

// rankPlan is how one query ranks: a compiled profile per searched document type. A type
// missing from byType, or mapped to nil, is ranked by the default relevance.
type rankPlan struct {
	byType map[string]*compiledProfile
	other  *compiledProfile // for types not in byType (lenient mode: every document)
	bm25   []string         // fields whose bm25 some profile reads
	text   bool             // some profile reads nativeRank(fields)
}

// compiledProfile is a resolved profile ready to score hits.
type compiledProfile struct {
	unranked bool
	expr     rankExpr // nil: the default relevance
	inputs   map[string]float64
	// summary and match are the profile's summary- and match-features, in
	// name order; a nil expr is firstPhase, the hit's relevance.
	summary, match []namedFeature
}

// namedFeature is one feature a profile returns with each hit.
type namedFeature struct {
	name string
	expr rankExpr
}

// resolvedProfile is a profile with its inheritance applied.
type resolvedProfile struct {
	firstPhase, laterPhase string
	functions              map[string]string
	inputs                 map[string]string
	inputTypes             map[string]string // the declared types, "tensor<float>(x[4])", "double"
	unranked               bool
	summary, match         []string
}

// planRanking chooses the rank profile of the query (ranking.profile or ranking, "default"
// when absent) for the searched types, failing as Vespa's cluster searcher does when the
// profile is undefined; profiles are compiled here so that what the emulator cannot evaluate is
// refused before any document is scored.
func planRanking(p params, schemas schemaSet, types map[string]bool) (*rankPlan, *resultError) {
	name, _ := p.get("ranking.profile", "ranking")
	if name = strings.TrimSpace(name); name == "" {
		name = profileDefault
	}
	plan := &rankPlan{byType: map[string]*compiledProfile{}}
	if schemas.lenient() {
		// No schema, no profiles: any name ranks by the default relevance.
		if name == profileUnranked {
			plan.other = &compiledProfile{unranked: true}
		}
		return plan, nil
	}
	var searched []string
	for t := range schemas.types {
		if types == nil || types[t] {
			searched = append(searched, t)
		}
	}
	slices.Sort(searched)
	implicit := name == profileDefault || name == profileUnranked
	// has reports whether type t has the profile; a type whose profiles are not modelled has
	// every profile (ranked by the default relevance).
	has := func(t string) bool {
		ps, modelled := schemas.profiles[t]
		_, ok := ps[name]
		return implicit || ok || !modelled
	}
	anywhere := false
	for t := range schemas.types {
		anywhere = anywhere || has(t)
	}
	var invalid []string
	for _, t := range searched {
		if !has(t) {
			invalid = append(invalid, t)
		}
	}
	// Vespa fails when no type has the profile, when the one type searched lacks it, or when
	// several are searched through sources or restrict and some lack it; otherwise the types
	// lacking it are ranked by their default profile.
	if !anywhere || len(searched) == 1 || types != nil {
		if len(invalid) > 0 {
			// VespaBackend.search, for the (first) schema lacking it.
			e := invalidParameter(fmt.Sprintf("schema '%s' does not contain requested rank profile '%s'", invalid[0], name))
			e.source = invalid[0] // the caller names its cluster
			return nil, &e
		}
	}
	bm25, text := map[string]bool{}, false
	for _, t := range searched {
		use := name
		if _, ok := schemas.profiles[t][name]; !ok && !implicit {
			use = profileDefault // lacking it (or not modelled): the default profile
		}
		r, err := schemas.resolveProfile(t, use, 0)
		if err != nil {
			e := notImplemented(err.Error())
			return nil, &e
		}
		if e := r.checkInputs(p); e != nil {
			return nil, e
		}
		cp, err := r.compile(p, use)
		if err != nil {
			e := notImplemented(err.Error())
			return nil, &e
		}
		plan.byType[t] = cp
		if cp != nil {
			cp.walk(func(f rankFeature) {
				switch {
				case f.name == "bm25":
					bm25[f.args[0]] = true
				case f.name == "nativeRank" && len(f.args) > 0:
					text = true
				}
			})
		}
	}
	for f := range bm25 {
		plan.bm25 = append(plan.bm25, f)
	}
	slices.Sort(plan.bm25)
	plan.text = text
	return plan, nil
}

// profileOwner returns the document type that declares profile name: t, else the first of the
// types t's document inherits (depth first, as RankProfileRegistry.resolve looks); "" for none.
func (s schemaSet) profileOwner(t, name string, depth int) string {
	if _, ok := s.profiles[t][name]; ok {
		return t
	}
	if depth > 32 {
		return ""
	}
	for _, pt := range s.docParents[t] {
		if owner := s.profileOwner(pt, name, depth+1); owner != "" {
			return owner
		}
	}
	return ""
}

// resolveProfile applies inheritance: the own first phase, else the first parent's that has
// one; functions and inputs of the profile override its parents'.
func (s schemaSet) resolveProfile(t, name string, depth int) (*resolvedProfile, error) {
	if depth > 32 {
		return nil, &notImplementedError{what: fmt.Sprintf("rank profile inheritance deeper than 32 ('%s')", name)}
	}
	decl, ok := s.profiles[t][name]
	if !ok && depth > 0 {
		// A profile inherited by name is looked for in the document types t's document
		// inherits too, and resolved in its own schema (RankProfileRegistry.resolve).
		if owner := s.profileOwner(t, name, 0); owner != "" {
			return s.resolveProfile(owner, name, depth+1)
		}
	}
	if !ok {
		switch name {
		case profileDefault:
			return &resolvedProfile{}, nil
		case profileUnranked:
			return &resolvedProfile{unranked: true}, nil
		}
		return nil, &notImplementedError{what: fmt.Sprintf("inheriting rank profile '%s', which schema '%s' does not declare", name, t)}
	}
	r := &resolvedProfile{functions: map[string]string{}, inputs: map[string]string{}, inputTypes: map[string]string{}}
	for _, parent := range decl.Inherits {
		pr, err := s.resolveProfile(t, parent, depth+1)
		if err != nil {
			return nil, err
		}
		if r.firstPhase == "" {
			r.firstPhase = pr.firstPhase
		}
		if r.laterPhase == "" {
			r.laterPhase = pr.laterPhase
		}
		maps.Copy(r.functions, pr.functions)
		maps.Copy(r.inputs, pr.inputs)
		maps.Copy(r.inputTypes, pr.inputTypes)
		if r.summary == nil {
			r.summary = pr.summary
		}
		if r.match == nil {
			r.match = pr.match
		}
	}
	if decl.SummaryFeatures != nil {
		r.summary = decl.SummaryFeatures
	}
	if decl.MatchFeatures != nil {
		r.match = decl.MatchFeatures
	}
	if decl.FirstPhase != "" {
		r.firstPhase = decl.FirstPhase
	}
	if decl.SecondPhase != "" {
		r.laterPhase = "second-phase"
	} else if decl.GlobalPhase != "" {
		r.laterPhase = "global-phase"
	}
	maps.Copy(r.functions, decl.Functions)
	maps.Copy(r.inputs, decl.Inputs)
	maps.Copy(r.inputTypes, decl.InputTypes)
	return r, nil
}

// checkInputs refuses a query value of a typed input that Vespa's
// container cannot read as the declared type (container-search
// RankProfileInputProperties.set: "Could not set 'ranking.features.query(q)'
// to '…': Could not parse '…' as a tensor of type …", Illegal query, 400),
// before anything of the profile is evaluated.
func (r *resolvedProfile) checkInputs(p params) *resultError {
	for _, name := range slices.Sorted(maps.Keys(r.inputTypes)) {
		value, ok := p.rankInput(name)
		if !ok {
			continue
		}
		typ := r.inputTypes[name]
		var reason error
		if tt, err := tensor.ParseType(typ); err == nil && strings.HasPrefix(typ, "tensor") && tt.String() != "tensor()" {
			reason = tt.CheckLiteral(value)
			typ = tt.String()
		} else {
			typ = "tensor()" // a number is a rank-0 tensor
			v := strings.Trim(strings.TrimSpace(value), "[]")
			if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
				reason = fmt.Errorf("Expected a number")
			}
		}
		if reason != nil {
			e := illegalQuery(fmt.Sprintf("Could not set 'ranking.features.%s' to '%s': Could not parse '%s' as a tensor of type %s: %v",
				name, value, value, typ, reason))
			return &e
		}
	}
	return nil
}

// compile parses the first phase and reads the query inputs it uses; nil means the default
// relevance.
func (r *resolvedProfile) compile(p params, name string) (*compiledProfile, error) {
	if r.unranked {
		return &compiledProfile{unranked: true}, nil
	}
	if r.laterPhase != "" {
		return nil, &notImplementedError{what: fmt.Sprintf("the %s of rank profile '%s' (only first-phase expressions are evaluated)", r.laterPhase, name)}
	}
	if r.firstPhase == "" && len(r.summary) == 0 && len(r.match) == 0 {
		return nil, nil
	}
	cp := &compiledProfile{inputs: map[string]float64{}}
	if r.firstPhase != "" {
		expr, err := parseRankExpression(r.firstPhase, r.functions)
		if err != nil {
			return nil, fmt.Errorf("rank profile '%s': %w", name, err)
		}
		cp.expr = expr
	}
	var err error
	if cp.summary, err = compileFeatures(r.summary, r.functions, name, "summary-features"); err != nil {
		return nil, err
	}
	if cp.match, err = compileFeatures(r.match, r.functions, name, "match-features"); err != nil {
		return nil, err
	}
	var bad error
	cp.walk(func(f rankFeature) {
		if f.name != "query" || bad != nil {
			return
		}
		key := "query(" + f.args[0] + ")"
		text, ok := p.rankInput(key)
		if !ok {
			text = r.inputs[key]
		}
		if strings.TrimSpace(text) == "" {
			cp.inputs[key] = 0
			return
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			bad = &notImplementedError{what: fmt.Sprintf("the non-scalar query input %s in rank profile '%s'", key, name)}
			return
		}
		cp.inputs[key] = v
	})
	if bad != nil {
		return nil, bad
	}
	return cp, nil
}

// compileFeatures parses the features a profile returns with each hit:
// those the emulator ranks by (bm25, attribute, closeness, nativeRank,
// query, the profile's functions, firstPhase); any other is refused, so that
// a hit never lacks one Vespa would render.
func compileFeatures(names []string, functions map[string]string, profile, kind string) ([]namedFeature, error) {
	var out []namedFeature
	for _, n := range names {
		if n == "firstPhase" || n == "relevanceScore" {
			out = append(out, namedFeature{name: n})
			continue
		}
		e, err := parseRankExpression(n, functions)
		if err != nil {
			return nil, &notImplementedError{what: fmt.Sprintf("the %s %s of rank profile '%s'", kind, n, profile)}
		}
		out = append(out, namedFeature{name: n, expr: e})
	}
	slices.SortFunc(out, func(a, b namedFeature) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// walk calls fn for every feature the profile reads: its first phase and
// its summary- and match-features.
func (cp *compiledProfile) walk(fn func(rankFeature)) {
	if cp.expr != nil {
		walkRankExpr(cp.expr, fn)
	}
	for _, f := range append(append([]namedFeature(nil), cp.summary...), cp.match...) {
		if f.expr != nil {
			walkRankExpr(f.expr, fn)
		}
	}
}

// walkRankExpr calls fn for every feature of e.
func walkRankExpr(e rankExpr, fn func(rankFeature)) {
	switch e := e.(type) {
	case rankFeature:
		fn(e)
	case rankNeg:
		walkRankExpr(e.x, fn)
	case rankBinary:
		walkRankExpr(e.l, fn)
		walkRankExpr(e.r, fn)
	}
}

// rankContext is what a rank expression reads for one matched document.
type rankContext struct {
	e         *evaluator
	d         *docView
	relevance float64 // the default relevance
	inputs    map[string]float64
}

// score returns the relevance of a matched document under the plan.
func (plan *rankPlan) score(e *evaluator, d *docView, relevance float64) float64 {
	cp, ok := plan.byType[d.docType()]
	if !ok {
		cp = plan.other
	}
	switch {
	case cp == nil:
		return relevance
	case cp.unranked:
		return 0
	case cp.expr == nil:
		return relevance
	}
	return cp.expr.eval(&rankContext{e: e, d: d, relevance: relevance, inputs: cp.inputs})
}

// features computes the summary- and match-features of a matched document
// under the plan, as the JSON objects Vespa renders in the hit's fields:
// summaryfeatures with vespa.summaryFeatures.cached added (0: computed for
// this fill), matchfeatures as listed. Both nil when the profile lists none.
func (plan *rankPlan) features(e *evaluator, d *docView, relevance, score float64) (summary, matchF json.RawMessage) {
	cp, ok := plan.byType[d.docType()]
	if !ok {
		cp = plan.other
	}
	if cp == nil || len(cp.summary) == 0 && len(cp.match) == 0 {
		return nil, nil
	}
	c := &rankContext{e: e, d: d, relevance: relevance, inputs: cp.inputs}
	render := func(fs []namedFeature, cached bool) json.RawMessage {
		var b bytes.Buffer
		b.WriteByte('{')
		for i, f := range fs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonx.String(f.name))
			b.WriteByte(':')
			v := score
			if f.expr != nil {
				v = f.expr.eval(c)
			}
			writeRelevance(&b, v)
		}
		if cached {
			if len(fs) > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"vespa.summaryFeatures.cached":0.0`)
		}
		b.WriteByte('}')
		return b.Bytes()
	}
	if len(cp.summary) > 0 {
		summary = render(cp.summary, true)
	}
	if len(cp.match) > 0 {
		matchF = render(cp.match, false)
	}
	return summary, matchF
}

func (c *rankContext) feature(f rankFeature) float64 {
	switch f.name {
	case "bm25":
		return c.e.bm25[f.args[0]][c.d.ID]
	case "closeness":
		best := 0.0
		for n, hits := range c.e.nn {
			if n.field == f.args[0] {
				if v, ok := hits[c.d.ID]; ok && v > best {
					best = v
				}
			}
		}
		return best
	case "nativeRank":
		if len(f.args) == 0 {
			return c.relevance
		}
		total := 0.0
		for _, a := range f.args {
			total += c.e.text[a]
		}
		return total
	case "attribute":
		for _, leaf := range c.d.leaves(f.args[0]) {
			switch v := leaf.(type) {
			case bool:
				if v {
					return 1
				}
				return 0
			default:
				if x, ok := toFloat(v); ok {
					return x
				}
			}
		}
		return 0
	case "query":
		return c.inputs["query("+f.args[0]+")"]
	}
	return math.NaN()
}
