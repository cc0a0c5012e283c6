package search

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// This file holds Vespa's bound on the size of a grouping result,
// grouping.globalMaxGroups: container-search's RequestBuilder
// (grouping/vespa/RequestBuilder.java, validateGlobalMax) refuses a grouping
// whose theoretical number of groups and summaries exceeds it, or that has a
// group list or hit list without a bound (max(inf), or no max() with the
// default switched off by grouping.defaultMaxGroups=-1 or
// grouping.defaultMaxHits=-1). The bound is GroupingExecutor's
// DEFAULT_GLOBAL_MAX_GROUPS, 10000, unless the default query profile sets
// it; a negative bound disables the check. GroupingQueryParser.validate
// refuses it as a request parameter.

// DefaultGlobalMaxGroups is GroupingExecutor's DEFAULT_GLOBAL_MAX_GROUPS.
const DefaultGlobalMaxGroups = 10000

const globalMaxGroupsParam = "grouping.globalMaxGroups"

const groupingDocs = " See https://docs.vespa.ai/en/querying/grouping.html for details."

// globalMaxGroupsInRequest is GroupingQueryParser.validate, which runs for
// every query: the parameter may only come from a query profile. The
// IllegalInputException reaches SearchHandler, which answers
// ErrorMessage.createBadRequest (code 17, HTTP 400) with "Invalid request
// [<raw path and query>]: <message>".
// With a yql parameter the check runs in MinimalQueryInserter, whose
// IllegalInputException prefixes "Illegal YQL query: ".
func globalMaxGroupsInRequest(p params, rawRequest string) *resultError {
	if _, ok := p[globalMaxGroupsParam]; !ok {
		return nil
	}
	msg := globalMaxGroupsParam + " must be specified in a query profile."
	if _, ok := p.get("yql"); ok {
		msg = "Illegal YQL query: " + msg
	}
	e := invalidRequest(rawRequest, msg)
	return &e
}

// invalidRequest is an IllegalInputException that reaches SearchHandler:
// ErrorMessage.createBadRequest, code 17 (HTTP 400), "Invalid request
// [<raw path and query>]: <message>".
func invalidRequest(rawRequest, msg string) resultError {
	return resultError{code: CodeBadRequest, summary: summaryBadRequest, message: "Invalid request [" + rawRequest + "]: " + msg}
}

// invalidRequestError carries the message of an invalidRequest through
// error returns, for execute to add the request.
type invalidRequestError struct{ msg string }

func (e *invalidRequestError) Error() string { return e.msg }

// groupingDefaults reads grouping.defaultMaxGroups and grouping.defaultMaxHits
// (-1: no default, so an unbounded list), in that order: when both are
// invalid, the error names the first.
func groupingDefaults(p params) (maxGroups, maxHits int, err error) {
	maxGroups, maxHits = defaultMaxGroups, defaultMaxHits
	for _, d := range []struct {
		name string
		dst  *int
	}{{"grouping.defaultMaxGroups", &maxGroups}, {"grouping.defaultMaxHits", &maxHits}} {
		if v, ok := p.get(d.name); ok && strings.TrimSpace(v) != "" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil { // GroupingRequest.intProperty, under MinimalQueryInserter
				return 0, 0, &invalidRequestError{msg: fmt.Sprintf("Illegal YQL query: '%s' is not a valid integer", v)}
			}
			*d.dst = n
		}
	}
	return maxGroups, maxHits, nil
}

// limitLevel is a GroupingLevel of RequestBuilder's output, as far as the
// bound needs it: its group list's max (0 when none was put), the bucket
// count of a predefined grouping (its buckets and the null bucket), whether
// its group prototype has aggregation results, and the max of each hit list
// in it.
type limitLevel struct {
	tag          int // its group prototype's
	max, buckets int
	aggr         bool
	hits         []int
}

// limitRequest is one Grouping of RequestBuilder's output: one per path
// from the root operation to a leaf.
type limitRequest struct {
	levels   []limitLevel
	rootAggr bool
}

func (r limitRequest) clone() limitRequest {
	c := limitRequest{levels: make([]limitLevel, len(r.levels)), rootAggr: r.rootAggr}
	for i, l := range r.levels {
		l.hits = append([]int(nil), l.hits...)
		c.levels[i] = l
	}
	return c
}

// limitState is RequestBuilder's BuildState, as far as the bound needs it.
type limitState struct {
	groupBy *gExpr
	max     *int
	label   string
}

type limitBuilder struct {
	maxGroups, maxHits int
	reqs               []limitRequest
	levels             map[*gOp]int
	labels             labels
}

// checkGlobalMaxGroups is RequestBuilder.build for every grouping request of
// a query: the levels resolved, the labels given, then validateGlobalMax
// against the bound globalMax (negative: off).
// Its refusals are IllegalInputExceptions, which the search chain answers
// with code 4 (Invalid query parameter), HTTP 400.
func checkGlobalMaxGroups(ops []*gOp, p params, globalMax int64) error {
	maxGroups, maxHits, err := groupingDefaults(p)
	if err != nil {
		return err
	}
	for _, op := range ops {
		b := &limitBuilder{maxGroups: maxGroups, maxHits: maxHits, levels: map[*gOp]int{},
			labels: labels{tag: 1, children: map[int]map[string]bool{}}} // the root group is tag 1
		if err := resolveLevels(op, 1, b.levels); err != nil {
			return err
		}
		if err := b.walk(op, limitRequest{}, limitState{}); err != nil {
			return err
		}
		if globalMax < 0 {
			continue
		}
		if err := b.validate(globalMax); err != nil {
			return err
		}
	}
	return nil
}

// walk is RequestBuilder.processRequestNode for op and then its children,
// each with its own copy of the request and state (as build's clones).
func (b *limitBuilder) walk(op *gOp, req limitRequest, st limitState) error {
	leafTag := func() int {
		if n := len(req.levels); n > 0 {
			return req.levels[n-1].tag
		}
		return 1
	}
	parentTag := leafTag()
	if op.each && st.groupBy != nil { // resolveEach: a level for the group list
		b.labels.tag++
		l := limitLevel{tag: b.labels.tag}
		if st.max != nil {
			l.max = *st.max
		}
		if st.groupBy.kind == gPredefined {
			l.buckets = len(st.groupBy.buckets) + 1
		}
		req.levels = append(req.levels, l)
		st.groupBy, st.max = nil, nil
	}
	if op.each {
		if op.label != "" {
			st.label = op.label
		}
		if b.levels[op] > 0 {
			if err := b.labels.put(parentTag, st.label, "group list"); err != nil {
				return err
			}
		}
	}
	for _, out := range op.outputs { // resolveOutput, into the leaf group
		b.labels.tag++
		label, kind := out.label, "output"
		if out.kind == gSummary {
			label, kind = st.label, "hit list"
		} else if label == "" {
			label = out.text()
		}
		if err := b.labels.put(leafTag(), label, kind); err != nil {
			return err
		}
		leafAggr, leafHits := &req.rootAggr, (*[]int)(nil)
		if n := len(req.levels); n > 0 {
			leafAggr, leafHits = &req.levels[n-1].aggr, &req.levels[n-1].hits
		}
		*leafAggr = true
		if out.kind == gSummary { // a hit list takes the pending max, even in the root group
			m := 0
			if st.max != nil {
				m, st.max = *st.max, nil
			}
			if leafHits != nil { // validateGlobalMax counts the hit lists of levels only
				*leafHits = append(*leafHits, m)
			}
		}
	}
	if op.groupBy != nil { // resolveGroupBy
		if st.groupBy != nil {
			return &carriedResultError{e: invalidParameter("Can not group list of groups.")}
		}
		st.groupBy = op.groupBy
		st.label = op.groupBy.text() // the label of the next each()
	} else if b.levels[op] == 1 {
		st.label = "hits" // the next each() is a hit list
	}
	if op.each || st.groupBy != nil { // resolveMax, where top-n is not allowed
		switch {
		case op.max == maxUnlimited:
			st.max = nil
		case op.max >= 0:
			st.max = &op.max
		case st.groupBy != nil && b.maxGroups != -1:
			st.max = &b.maxGroups
		case st.groupBy == nil && b.maxHits != -1:
			st.max = &b.maxHits
		}
	}
	if len(op.children) == 0 {
		b.reqs = append(b.reqs, req)
		return nil
	}
	for _, c := range op.children {
		if err := b.walk(c, req.clone(), st); err != nil {
			return err
		}
	}
	return nil
}

// validate is pruneRequests then validateGlobalMax: trailing levels without
// aggregation results are dropped, then every level adds the product of the
// group maxes down to it, and each hit list that product times its max.
// Java's int arithmetic wraps, and so does this.
func (b *limitBuilder) validate(globalMax int64) error {
	var total int32
	for _, req := range b.reqs {
		levels := req.levels
		for len(levels) > 0 && !levels[len(levels)-1].aggr {
			levels = levels[:len(levels)-1]
		}
		mult := int32(1)
		for _, l := range levels {
			m := l.max
			if l.buckets > 0 && (l.buckets < m || m <= 0) {
				m = l.buckets
			}
			if m <= 0 {
				return &carriedResultError{e: invalidParameter("Cannot return unbounded number of groups when 'grouping.globalMaxGroups' is enabled. " +
					"Either restrict group count with max() or disable 'grouping.globalMaxGroups'." + groupingDocs)}
			}
			mult *= int32(m) //nolint:gosec // G115: RequestBuilder works in Java ints, which wrap
			total += mult
			for _, h := range l.hits {
				if h <= 0 {
					return &carriedResultError{e: invalidParameter("Cannot return unbounded number of summaries when 'grouping.globalMaxGroups' is enabled. " +
						"Either restrict summary count with max() or disable 'grouping.globalMaxGroups'." + groupingDocs)}
				}
				total += mult * int32(h) //nolint:gosec // G115: as above
			}
		}
	}
	if int64(total) > globalMax {
		return &carriedResultError{e: invalidParameter(fmt.Sprintf("The theoretical total number of groups and summaries in grouping query exceeds "+
			"'grouping.globalMaxGroups' ( %d > %d ). Either restrict group/summary counts with max() or disable 'grouping.globalMaxGroups'."+groupingDocs,
			total, globalMax))}
	}
	return nil
}

// QueryProfiled is a Corpus whose application package has a default query
// profile (search/query-profiles/default.xml): its fields by name. Only
// grouping.globalMaxGroups is read from it.
type QueryProfiled interface {
	DefaultQueryProfile() map[string]string
}

// globalMaxGroups is the bound in force: the default query profile's
// grouping.globalMaxGroups if the corpus has one that parses as a long
// (GroupingRequest's longProperty), else DefaultGlobalMaxGroups.
func (h *handler) globalMaxGroups() int64 {
	if qp, ok := h.corpus.(QueryProfiled); ok {
		if v, ok := qp.DefaultQueryProfile()[globalMaxGroupsParam]; ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return DefaultGlobalMaxGroups
}

// oneSource names the searched document type when there is exactly one, as
// the source of an error the search chain reports for it.
func oneSource(types map[string]bool, schemas schemaSet) string {
	names := types
	if names == nil {
		names = map[string]bool{}
		for t := range schemas.types {
			names[t] = true
		}
	}
	if len(names) != 1 {
		return ""
	}
	for t := range names {
		return t
	}
	return ""
}

// Clustered is a Corpus that knows the content cluster of a document type,
// which Vespa's grouping errors name.
type Clustered interface {
	ClusterOf(docType string) string
}

// attributes calls fn with every attribute a grouping operation reads:
// group-by expressions (a predefined one's argument), aggregates, orders.
func (op *gOp) attributes(fn func(string)) {
	var expr func(e *gExpr)
	expr = func(e *gExpr) {
		if e == nil {
			return
		}
		if e.kind == gAttr {
			fn(e.name)
		}
		expr(e.arg)
	}
	expr(op.groupBy)
	for i := range op.outputs {
		expr(&op.outputs[i])
	}
	for i := range op.order {
		expr(&op.order[i])
	}
	for _, c := range op.children {
		c.attributes(fn)
	}
}

// checkGroupingAttributes is GroupingValidator, which runs before the
// grouping is built (so before the bound): an attribute no searched schema
// declares is its UnavailableAttributeException, an IllegalInputException
// that reaches SearchHandler ("Grouping request references attribute 'x'
// which is not available in cluster 'c'."), as is a field whose indexing has
// no attribute step. A field declared in Go without indexing counts as one.
func (h *handler) checkGroupingAttributes(ops []*gOp, types map[string]bool, schemas schemaSet) error {
	if schemas.lenient() {
		return nil
	}
	var missing string
	for _, op := range ops {
		op.attributes(func(name string) {
			if f, ok := schemas.anyField(name); (!ok || !f.MaybeAttribute()) && missing == "" {
				missing = name
			}
		})
	}
	if missing == "" {
		return nil
	}
	// Vespa validates per cluster and reports the first that fails; here the
	// first searched type's, in name order.
	names := slices.Sorted(maps.Keys(types))
	if types == nil {
		names = slices.Sorted(maps.Keys(schemas.types))
	}
	cluster := names[0]
	if c, ok := h.corpus.(Clustered); ok {
		cluster = c.ClusterOf(cluster)
	}
	return &invalidRequestError{msg: fmt.Sprintf("Grouping request references attribute '%s' which is not available in cluster '%s'.", missing, cluster)}
}

// groupingError is the result error of a grouping's refusal.
func groupingError(err error, rawURI, source string) *resultError {
	var ir *invalidRequestError
	if errors.As(err, &ir) {
		e := invalidRequest(rawURI, ir.msg)
		return &e
	}
	e := queryError(err)
	if e.code == CodeInvalidQueryParam {
		e.source = source
	}
	return e
}
