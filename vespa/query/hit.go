package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Hit is one node of a result tree: a document hit, a hit group, or a node
// of grouping output (a group, a group list or a hit list). Which fields are
// set depends on the kind; Vespa leaves out what does not apply.
type Hit struct {
	// ID is the document ID when the summary has documentid, otherwise an
	// internal id; for grouping, "group:<type>:<value>", "grouplist:<label>"
	// or "hitlist:<label>".
	ID string `json:"id"`
	// Relevance is the rank score; for a group, its ordering value.
	Relevance Relevance `json:"relevance"`
	// Types are the hit's types, such as "summary"; rarely set.
	Types []string `json:"types,omitempty"`
	// Source is the schema or cluster of a document hit.
	Source string `json:"source,omitempty"`
	// Label is the label of a group list or hit list.
	Label string `json:"label,omitempty"`
	// Value is the value of a group, as text.
	Value GroupValue `json:"value,omitempty"`
	// Limits are the bounds of a bucket group (instead of Value).
	Limits *GroupLimits `json:"limits,omitempty"`
	// Continuation maps "this", "next" and "prev" to opaque tokens for paging
	// through groups (select.grouping.continuation / the continuations
	// annotation).
	Continuation map[string]string `json:"continuation,omitempty"`
	// Fields are the summary fields of a document hit, or the aggregates of
	// a group, as raw JSON. Decode them with [Hit.Decode] or [DecodeHits].
	Fields json.RawMessage `json:"fields,omitempty"`
	// Children are the nodes under a hit group or grouping node.
	Children []Hit `json:"children,omitempty"`
}

// Relevance is a rank score. Vespa renders non-finite scores as the strings
// "NaN", "Infinity" and "-Infinity"; they decode to the matching float64.
type Relevance float64

// UnmarshalJSON accepts a JSON number or one of the strings of a non-finite
// value.
func (r *Relevance) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		if err != nil {
			return fmt.Errorf("relevance %s: %w", b, err)
		}
		switch s {
		case "NaN":
			*r = Relevance(math.NaN())
		case "Infinity", "+Infinity":
			*r = Relevance(math.Inf(1))
		case "-Infinity":
			*r = Relevance(math.Inf(-1))
		default:
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("relevance %s: not a number", b)
			}
			*r = Relevance(f)
		}
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("relevance %s: not a number", b)
	}
	*r = Relevance(f)
	return nil
}

// MarshalJSON writes a number, or the string Vespa uses for a non-finite
// value.
func (r Relevance) MarshalJSON() ([]byte, error) {
	f := float64(r)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// GroupValue is the value of a group or a bucket bound, as text. Vespa
// renders it as a string; a number or boolean is kept as its JSON text.
type GroupValue string

// UnmarshalJSON accepts a JSON string or any other scalar.
func (v *GroupValue) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = GroupValue(s)
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	*v = GroupValue(b)
	return nil
}

// GroupLimits are the bounds of a bucket group: [From, To).
type GroupLimits struct {
	// From is the bucket's lower bound, included.
	From GroupValue `json:"from"`
	// To is the bucket's upper bound, excluded.
	To GroupValue `json:"to"`
}

// IsGroup reports whether h is a group of grouping output ("group:...").
func (h *Hit) IsGroup() bool { return strings.HasPrefix(h.ID, "group:") }

// IsGroupList reports whether h is a list of groups ("grouplist:<label>").
func (h *Hit) IsGroupList() bool { return strings.HasPrefix(h.ID, "grouplist:") }

// IsHitList reports whether h is a list of hits inside a group
// ("hitlist:<label>").
func (h *Hit) IsHitList() bool { return strings.HasPrefix(h.ID, "hitlist:") }

// List returns the group list or hit list child of h with the given label
// (the name in group(<label>) or the summary of each(output(summary())) ...
// as Vespa labels it), or nil.
func (h *Hit) List(label string) *Hit {
	for i := range h.Children {
		c := &h.Children[i]
		if (c.IsGroupList() || c.IsHitList()) && (c.Label == label || c.ID[strings.IndexByte(c.ID, ':')+1:] == label) {
			return c
		}
	}
	return nil
}

// Field returns the raw JSON of one field (or aggregate, such as
// "count()"), and whether it is present.
func (h *Hit) Field(name string) (json.RawMessage, bool) {
	if len(h.Fields) == 0 {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(h.Fields, &m); err != nil {
		return nil, false
	}
	v, ok := m[name]
	return v, ok
}

// Aggregate returns a numeric field of a group, such as "count()" or
// "sum(price)", and whether it is present and a number.
func (h *Hit) Aggregate(name string) (float64, bool) {
	raw, ok := h.Field(name)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	return f, err == nil
}

// Decode decodes the hit's fields into v (a pointer to a struct or a map),
// like json.Unmarshal, except that numbers decoded into an interface value
// are json.Number, so integers above 64 bits lose nothing. A hit without
// fields leaves v unchanged.
func (h *Hit) Decode(v any) error {
	if len(h.Fields) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(h.Fields))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("query: decode fields of hit %q: %w", h.ID, err)
	}
	return nil
}

// DecodeHits decodes the fields of every hit of r into a T (see
// [Hit.Decode]), in order. It stops at the first hit that does not decode.
// Use [Hits] to keep each hit's ID, relevance, source and match-features.
func DecodeHits[T any](r *Result) ([]T, error) {
	if r == nil {
		return nil, nil
	}
	out := make([]T, len(r.Hits))
	for i := range r.Hits {
		if err := r.Hits[i].Decode(&out[i]); err != nil {
			return nil, fmt.Errorf("hit %d: %w", i, err)
		}
	}
	return out, nil
}
