package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Result is a decoded query result: Vespa's default JSON rendering of
// /search/ (root, and timing and trace when asked for).
//
// Hits holds the document hits in rank order; grouping output is in Groups.
// A result may hold Errors next to its Hits: Vespa answers 200 when some
// hits came back although a part of the query failed. Use [Result.Err] to
// see such errors as one error value.
type Result struct {
	// Status is the HTTP status of the response; 0 for a result decoded
	// with [DecodeResult].
	Status int
	// TotalCount is root.fields.totalCount: the number of matches, which is
	// approximate for nearestNeighbor, wand and weakAnd.
	TotalCount int64
	// Coverage says how much of the corpus was searched; nil when no content
	// node was asked (for instance on an error before dispatch). A 200
	// result with degraded coverage (a soft timeout, most often) holds only
	// the hits found so far: check [Coverage.IsDegraded] (see the package
	// doc, "Coverage and degraded results").
	Coverage *Coverage
	// Errors are the entries of root.errors, in order.
	Errors []ErrorMessage
	// Hits are the document hits: the children of the root that are not
	// grouping output, with the hits of nested hit groups inlined in place.
	// When the root has only document hits, Hits shares its array with
	// Root.Children.
	//
	// Three ways to read the hits, one for each need: Hits itself, with each
	// hit's fields as raw JSON (decode one with [Hit.Decode]); [Hits][T]
	// (the function) for typed hits that keep their ID, relevance, source
	// and match-features — the usual choice; [DecodeHits][T] for the fields
	// alone, as a []T.
	Hits []Hit
	// Groups are the roots of the grouping output (ids "group:root:<n>"),
	// one per grouping expression of the query.
	Groups []Hit
	// Root is the whole root node as rendered, children included.
	Root Hit
	// Timing is present when the request set presentation.timing.
	Timing *Timing
	// Trace is the top-level trace object when the trace level is above 0.
	Trace json.RawMessage
}

// Coverage is root.coverage: how much of the corpus the query searched.
type Coverage struct {
	// Percent is the coverage, a percentage (100 when every document was
	// searched).
	Percent float64 `json:"coverage"`
	// Documents is the number of active documents searched.
	Documents int64 `json:"documents"`
	// Full is true when every document was searched.
	Full bool `json:"full"`
	// Nodes is the number of content nodes that answered.
	Nodes int `json:"nodes"`
	// Results counts the results the query was answered from, partial or
	// full.
	Results int `json:"results"`
	// ResultsFull counts those of Results that had full coverage.
	ResultsFull int `json:"resultsFull"`
	// Degraded says why coverage was reduced; nil when it was not.
	Degraded *Degraded `json:"degraded,omitempty"`
}

// Degraded is coverage.degraded: the reasons a query searched less than the
// whole corpus.
type Degraded struct {
	// MatchPhase: the rank profile's match-phase limit stopped matching
	// before every document was ranked.
	MatchPhase bool `json:"match-phase"`
	// Timeout: content nodes ran out of time (the soft timeout) and
	// answered with what they had matched so far.
	Timeout bool `json:"timeout"`
	// AdaptiveTimeout: the query was cut short by the adaptive timeout,
	// which stops waiting for slow content nodes once most have answered.
	AdaptiveTimeout bool `json:"adaptive-timeout"`
	// AnnTimeout: an approximate nearest-neighbor search ran out of time.
	AnnTimeout bool `json:"anntimeout"`
	// NonIdealState: the content cluster was not in its ideal state (nodes
	// down or data being moved), so some documents may have been missed.
	NonIdealState bool `json:"non-ideal-state"`
}

// IsDegraded reports whether the result covers less than the whole corpus:
// coverage is not full or a degradation reason is set. A nil Coverage is
// not degraded.
func (c *Coverage) IsDegraded() bool {
	if c == nil {
		return false
	}
	return !c.Full || c.Degraded != nil && *c.Degraded != (Degraded{})
}

// ErrorMessage is one entry of root.errors.
type ErrorMessage struct {
	// Code is Vespa's error code.
	Code ErrorCode `json:"code"`
	// Summary is the short text of the code, such as "Illegal query".
	Summary string `json:"summary"`
	// Source is the cluster or provider that failed; may be empty.
	Source string `json:"source,omitempty"`
	// Message is the detail; may be empty.
	Message string `json:"message,omitempty"`
	// StackTrace is written by Vespa for unexpected exceptions only.
	StackTrace string `json:"stackTrace,omitempty"`
}

// String returns "summary: message (source, code n)".
func (m ErrorMessage) String() string {
	var b strings.Builder
	b.WriteString(m.Summary)
	if m.Message != "" {
		if m.Summary != "" {
			b.WriteString(": ")
		}
		b.WriteString(m.Message)
	}
	b.WriteString(" (")
	if m.Source != "" {
		b.WriteString(m.Source)
		b.WriteString(", ")
	}
	fmt.Fprintf(&b, "code %d %s)", int(m.Code), m.Code)
	return b.String()
}

// Timing is the top-level timing object (presentation.timing), in seconds.
type Timing struct {
	// QueryTime is the time spent matching and ranking.
	QueryTime float64 `json:"querytime"`
	// SummaryFetchTime is the time spent fetching the hits' summaries.
	SummaryFetchTime float64 `json:"summaryfetchtime"`
	// SearchTime is the container's total time for the query.
	SearchTime float64 `json:"searchtime"`
}

// Err returns the result's errors as an *[Error] (with the result's status),
// or nil when it has none. Use it on a 200 result that carries errors next
// to hits.
func (r *Result) Err() error {
	if r == nil || len(r.Errors) == 0 {
		return nil
	}
	return newError(r.Status, r, "", nil)
}

// wireResult is the JSON shape of a response.
type wireResult struct {
	Root   *wireRoot       `json:"root"`
	Timing *Timing         `json:"timing"`
	Trace  json.RawMessage `json:"trace"`
}

type wireRoot struct {
	Hit
	Coverage *Coverage      `json:"coverage"`
	Errors   []ErrorMessage `json:"errors"`
}

type rootFields struct {
	TotalCount int64 `json:"totalCount"`
}

// DecodeResult decodes a /search/ response body. Status is left 0.
func DecodeResult(body []byte) (*Result, error) {
	var w wireResult
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedResponse, err)
	}
	if w.Root == nil {
		// Vespa's result always has a root object; null, {} or an
		// {"error": ...} from something else in front of Vespa is not one.
		return nil, fmt.Errorf("%w: no root object", ErrMalformedResponse)
	}
	r := &Result{
		Coverage: w.Root.Coverage,
		Errors:   w.Root.Errors,
		Root:     w.Root.Hit,
		Timing:   w.Timing,
		Trace:    w.Trace,
	}
	if len(r.Root.Fields) > 0 {
		n, err := totalCount(r.Root.Fields)
		if err != nil {
			return nil, fmt.Errorf("%w: root.fields: %w", ErrMalformedResponse, err)
		}
		r.TotalCount = n
	}
	flat := true
	for i := range r.Root.Children {
		if c := &r.Root.Children[i]; c.IsGroup() || len(c.Children) > 0 {
			flat = false
			break
		}
	}
	if flat {
		// The common case: every child is a document hit, so Hits shares
		// Root.Children's array instead of copying it.
		r.Hits = r.Root.Children
		return r, nil
	}
	for _, c := range r.Root.Children {
		if c.IsGroup() {
			r.Groups = append(r.Groups, c)
			continue
		}
		r.Hits = appendHits(r.Hits, c)
	}
	return r, nil
}

// totalCount reads root.fields.totalCount, with a fast path for the
// renderer's usual {"totalCount":N,...}.
func totalCount(fields json.RawMessage) (int64, error) {
	const prefix = `{"totalCount":`
	if rest, ok := bytes.CutPrefix(fields, []byte(prefix)); ok {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i > 0 && i < len(rest) && (rest[i] == ',' || rest[i] == '}') {
			if n, err := strconv.ParseInt(string(rest[:i]), 10, 64); err == nil {
				return n, nil
			}
		}
	}
	var f rootFields
	if err := json.Unmarshal(fields, &f); err != nil {
		return 0, err
	}
	return f.TotalCount, nil
}

// appendHits appends h, or the hits of the hit group h, to hits.
func appendHits(hits []Hit, h Hit) []Hit {
	if len(h.Children) == 0 {
		return append(hits, h)
	}
	for _, c := range h.Children {
		hits = appendHits(hits, c)
	}
	return hits
}
