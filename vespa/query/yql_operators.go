package query

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
)

// This file holds the operators over weighted tokens, geography, fuzzy and
// equivalent terms, predicates and URLs, with the escaping guarantee of the
// rest of the builder: every value is a literal, every name is validated.

// weighted is one token and weight of a weighted set, in a Condition's vals.
type weighted struct {
	key    any // string or int64
	weight int
}

// Token is the type of the tokens of [WeightedSet], [DotProduct] and
// [Wand]: strings, or integers for integer fields (int32 for the keys of a
// weightedset<int>).
type Token interface {
	~string | ~int | ~int32 | ~int64
}

func weightedVals[K Token](weights map[K]int) []any {
	keys := slices.SortedFunc(maps.Keys(weights), cmp.Compare[K])
	out := make([]any, len(keys))
	for i, k := range keys {
		v := reflect.ValueOf(k)
		var key any
		if v.Kind() == reflect.String {
			key = v.String()
		} else {
			key = v.Int()
		}
		out[i] = weighted{key: key, weight: weights[k]}
	}
	return out
}

// WeightedSet matches documents whose field holds any of the tokens, and
// ranks them by the weights of those that match:
// weightedSet(field, {"a": 1, "b": 2}). Integer tokens are written in the
// array form, weightedSet(field, [[11, 1], [37, 2]]). Tokens are written in
// sorted order.
func WeightedSet[K Token](field string, weights map[K]int) Condition {
	return Condition{op: opWeightedSet, field: field, vals: weightedVals(weights)}
}

// DotProduct matches documents whose field holds any of the tokens, with
// the dot product of the query and document weights as its raw score:
// dotProduct(field, {"a": 1, "b": 2}).
func DotProduct[K Token](field string, weights map[K]int) Condition {
	return Condition{op: opDotProduct, field: field, vals: weightedVals(weights)}
}

// Wand finds the documents with the highest dot product of the query and
// document weights, skipping the rest: wand(field, {"a": 1, "b": 2}).
// Annotate with targetHits (default 10), scoreThreshold and
// thresholdBoostFactor ([Condition.With]).
func Wand[K Token](field string, weights map[K]int) Condition {
	return Condition{op: opWand, field: field, vals: weightedVals(weights)}
}

// GeoLocation matches documents whose position field lies within radius of
// the point: geoLocation(field, lat, lng, "radius"). The radius has a unit
// ("5 km", "100 miles", "0.5 deg", "-1 m" for unbounded, which only ranks
// by closeness).
func GeoLocation(field string, lat, lng float64, radius string) Condition {
	return Condition{op: opGeoLocation, field: field, vals: []any{lat, lng, radius}}
}

// Fuzzy matches words within an edit distance of term:
// field contains fuzzy("term"). Annotate with maxEditDistance (default 2),
// prefixLength and prefix, as in
// Fuzzy("title", "spelt").With("maxEditDistance", 1).
func Fuzzy(field, term string) Condition {
	return Condition{op: opFuzzy, field: field, vals: []any{term}}
}

// Equiv matches any of the terms as if they were one term for ranking:
// field contains equiv("a", "b"). Vespa needs at least two terms.
func Equiv(field string, terms ...string) Condition {
	return Condition{op: opEquiv, field: field, vals: strings2any(terms)}
}

// URI matches a URL, or a part of one (a hostname when field is
// "url.hostname"), in a uri field: field contains uri("example.com").
// Annotate with startAnchor and endAnchor.
func URI(field, uri string) Condition {
	return Condition{op: opURI, field: field, vals: []any{uri}}
}

// NonEmpty wraps a condition that must not turn out empty (a term of
// userInput that is only stop words, say): nonEmpty(c). Vespa refuses the
// query instead of matching nothing.
func NonEmpty(c Condition) Condition {
	return Condition{op: opNonEmpty, subs: []Condition{c}}
}

// Predicate matches documents whose predicate field accepts the query's
// attributes and range attributes:
// predicate(field, {"gender": "male", "hobby": ["music", "hiking"]}, {"age": 23}).
// An attribute with one value is written as a string, with several as a
// list; empty maps are written as 0 and void, as Vespa's tests do.
func Predicate(field string, attributes map[string][]string, ranges map[string]int64) Condition {
	return Condition{op: opPredicate, field: field, vals: []any{attributes, ranges}}
}

// InStrings is [In] for string values: field in ("a", "b").
func InStrings(field string, values ...string) Condition {
	return Condition{op: opIn, field: field, vals: strings2any(values)}
}

// InInts is [In] for integer values: field in (1, 5000000000L).
func InInts(field string, values ...int64) Condition {
	vals := make([]any, len(values))
	for i, v := range values {
		vals[i] = v
	}
	return Condition{op: opIn, field: field, vals: vals}
}

// renderWeighted writes name(field, {...}) or name(field, [[k, w], ...]).
func (c Condition) renderWeighted(b *strings.Builder, name string) error {
	if err := checkName(c.field); err != nil {
		return err
	}
	if len(c.vals) == 0 {
		return fmt.Errorf("%w: %s needs at least one token", ErrInvalidYQL, name)
	}
	b.WriteString(name)
	b.WriteByte('(')
	b.WriteString(c.field)
	b.WriteString(", ")
	_, strs := c.vals[0].(weighted).key.(string)
	start, end := byte('['), byte(']')
	if strs {
		start, end = '{', '}'
	}
	err := writeSeq(b, start, end, c.vals, func(b *strings.Builder, v any) error {
		w := v.(weighted)
		if w.weight < math.MinInt32 || w.weight > math.MaxInt32 {
			return fmt.Errorf("%w: %s weight %d does not fit in 32 bits", ErrInvalidYQL, name, w.weight)
		}
		if strs {
			if err := quoteString(b, w.key.(string)); err != nil {
				return err
			}
			fmt.Fprintf(b, ": %d", w.weight)
		} else {
			b.WriteByte('[')
			writeInt(b, w.key.(int64))
			fmt.Fprintf(b, ", %d]", w.weight)
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.WriteByte(')')
	return nil
}

func (c Condition) renderGeo(b *strings.Builder) error {
	if err := checkName(c.field); err != nil {
		return err
	}
	lat, lng := c.vals[0].(float64), c.vals[1].(float64)
	if !(lat >= -90 && lat <= 90) || !(lng >= -180 && lng <= 180) { // NaN fails too
		return fmt.Errorf("%w: geoLocation (%v, %v) is not a latitude and a longitude", ErrInvalidYQL, lat, lng)
	}
	return writeFieldCall(b, "geoLocation", c.field, c.vals, writeLiteral)
}

func (c Condition) renderPredicate(b *strings.Builder) error {
	if err := checkName(c.field); err != nil {
		return err
	}
	attrs, ranges := c.vals[0].(map[string][]string), c.vals[1].(map[string]int64)
	b.WriteString("predicate(")
	b.WriteString(c.field)
	b.WriteString(", ")
	if len(attrs) == 0 {
		b.WriteByte('0')
	} else if err := writeMap(b, attrs, func(b *strings.Builder, k string, vs []string) error {
		switch len(vs) {
		case 0:
			return fmt.Errorf("%w: predicate attribute %q has no value", ErrInvalidYQL, k)
		case 1:
			return quoteString(b, vs[0])
		}
		return writeConstant(b, vs)
	}); err != nil {
		return err
	}
	b.WriteString(", ")
	if len(ranges) == 0 {
		b.WriteString("void")
	} else if err := writeMap(b, ranges, func(b *strings.Builder, _ string, v int64) error {
		writeInt(b, v)
		return nil
	}); err != nil {
		return err
	}
	b.WriteByte(')')
	return nil
}
