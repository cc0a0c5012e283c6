package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// HitOf is a document hit with its fields decoded into a T and its metadata
// kept: what [Hits] and [GroupHits] return, so that an endpoint never has to
// re-write the loop that keeps the ID and relevance next to the fields.
type HitOf[T any] struct {
	// ID is the document ID (the hit's id: documentid when the summary has
	// it, otherwise Vespa's internal id).
	ID string
	// Relevance is the hit's rank score.
	Relevance Relevance
	// Source is the schema or cluster the hit came from.
	Source string
	// MatchFeatures are the rank profile's match-features
	// (fields.matchfeatures), by feature name; nil when the profile declares
	// none.
	MatchFeatures Features
	// Fields are the hit's summary fields decoded into a T, as
	// [Hit.Decode] decodes them. matchfeatures stays among the fields, so a
	// T may still have a field for it.
	Fields T
}

// Features are rank features by name, as Vespa renders matchfeatures and
// summaryfeatures: a number, or a tensor as a JSON object.
type Features map[string]json.RawMessage

// Float returns a scalar feature, and whether it is present and a number.
// Vespa renders a non-finite score as "NaN", "Infinity" or "-Infinity"; those
// are read as the float64 they name.
func (f Features) Float(name string) (float64, bool) {
	raw, ok := f[name]
	if !ok {
		return 0, false
	}
	var r Relevance
	if err := r.UnmarshalJSON(bytes.TrimSpace(raw)); err != nil {
		return 0, false
	}
	return float64(r), true
}

// Hits returns the document hits of r ([Result.Hits], nested hit groups
// inlined) with their fields decoded into a T and their ID, relevance,
// source and match-features. It stops at the first hit that does not
// decode, with an error naming it. A nil r has no hits.
func Hits[T any](r *Result) ([]HitOf[T], error) {
	if r == nil {
		return nil, nil
	}
	return decodeHitsOf[T](r.Hits)
}

// GroupHits returns the document hits of grouping output, decoded as [Hits]
// decodes them: the children of h when h is a hit list
// ("hitlist:<label>", from each(output(summary()))), or the hits of every
// hit list directly under h when h is a group. Any other node has none.
func GroupHits[T any](h *Hit) ([]HitOf[T], error) {
	if h == nil {
		return nil, nil
	}
	if h.IsHitList() {
		return decodeHitsOf[T](h.Children)
	}
	var out []HitOf[T]
	for i := range h.Children {
		if c := &h.Children[i]; c.IsHitList() {
			hits, err := decodeHitsOf[T](c.Children)
			if err != nil {
				return nil, err
			}
			out = append(out, hits...)
		}
	}
	return out, nil
}

var matchFeaturesKey = []byte(`"matchfeatures"`)

func decodeHitsOf[T any](hits []Hit) ([]HitOf[T], error) {
	out := make([]HitOf[T], len(hits))
	for i := range hits {
		h := &hits[i]
		o := &out[i]
		o.ID, o.Relevance, o.Source = h.ID, h.Relevance, h.Source
		if err := h.Decode(&o.Fields); err != nil {
			return nil, fmt.Errorf("hit %d: %w", i, err)
		}
		if bytes.Contains(h.Fields, matchFeaturesKey) {
			var mf struct {
				MatchFeatures Features `json:"matchfeatures"`
			}
			if err := json.Unmarshal(h.Fields, &mf); err != nil {
				return nil, fmt.Errorf("hit %d: query: decode matchfeatures of hit %s: %w", i, strconv.Quote(h.ID), err)
			}
			o.MatchFeatures = mf.MatchFeatures
		}
	}
	return out, nil
}
