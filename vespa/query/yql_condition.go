package query

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Condition is one node of a YQL where clause, built with the functions of
// this file ([Contains], [And], [NearestNeighbor], ...). Every value given to
// them is rendered as an escaped literal, never as YQL text, so user input
// cannot change the structure of the statement. A Condition is an immutable
// value: [Condition.With] returns a modified copy. Its zero value renders as
// true.
//
// Invalid input (a bad field name, an unsupported value) does not panic: the
// error is kept in the Condition and returned by [Builder.YQL].
type Condition struct {
	op    condOp
	field string
	vals  []any
	subs  []Condition
	ann   []annotation
	limit int // targetHits of nearestNeighbor
}

type condOp uint8

const (
	opTrue condOp = iota
	opFalse
	opContains
	opMatches
	opPhrase
	opNear
	opONear
	opCompare
	opRange
	opIn
	opAnd
	opOr
	opNot
	opUserQuery
	opUserInput
	opWeakAnd
	opRank
	opNearestNeighbor
	opSameElement
	opWeightedSet
	opDotProduct
	opWand
	opGeoLocation
	opFuzzy
	opEquiv
	opURI
	opNonEmpty
	opPredicate
)

type annotation struct {
	key   string
	value any
}

// True matches every document: where true.
func True() Condition { return Condition{op: opTrue} }

// False matches no document: where false.
func False() Condition { return Condition{op: opFalse} }

// Contains matches documents whose field contains the term value:
// field contains "value". Annotations ([Condition.With]) apply to the term,
// e.g. Contains("title", "head").With("stem", false) renders
// title contains ({stem: false}"head").
func Contains(field, value string) Condition {
	return Condition{op: opContains, field: field, vals: []any{value}}
}

// Matches matches documents whose attribute field matches the regular
// expression re: field matches "re".
func Matches(field, re string) Condition {
	return Condition{op: opMatches, field: field, vals: []any{re}}
}

// Phrase matches the words in this order, next to each other:
// field contains phrase("a", "b").
func Phrase(field string, words ...string) Condition {
	return Condition{op: opPhrase, field: field, vals: strings2any(words)}
}

// Near matches the words close to each other in any order:
// field contains near("a", "b"). The distance annotation sets how close,
// e.g. Near("title", "a", "b").With("distance", 5).
func Near(field string, words ...string) Condition {
	return Condition{op: opNear, field: field, vals: strings2any(words)}
}

// ONear is [Near] with the words in the given order: field contains onear(...).
func ONear(field string, words ...string) Condition {
	return Condition{op: opONear, field: field, vals: strings2any(words)}
}

// Equal matches an exact value of a numeric or boolean attribute:
// field = value. value is a string, bool, integer, float or [Param].
func Equal(field string, value any) Condition { return compare(field, "=", value) }

// Less matches field < value.
func Less(field string, value any) Condition { return compare(field, "<", value) }

// LessOrEqual matches field <= value.
func LessOrEqual(field string, value any) Condition { return compare(field, "<=", value) }

// Greater matches field > value.
func Greater(field string, value any) Condition { return compare(field, ">", value) }

// GreaterOrEqual matches field >= value.
func GreaterOrEqual(field string, value any) Condition { return compare(field, ">=", value) }

func compare(field, op string, value any) Condition {
	return Condition{op: opCompare, field: field, vals: []any{op, value}}
}

// Range matches low <= field <= high: range(field, low, high). Bounds are
// integers or floats; math.Inf(-1) and math.Inf(1) leave a side open
// (-Infinity, Infinity). A [Param] bound is an error: Vespa's parser takes
// only number literals there. Annotations such as hitLimit and bounds apply
// ([Condition.With]).
func Range(field string, low, high any) Condition {
	return Condition{op: opRange, field: field, vals: []any{low, high}}
}

// In matches documents whose field holds one of the values:
// field in (v1, v2, ...). Values are all strings or all integers, or a single
// [Param] naming a parameter that holds the list.
func In(field string, values ...any) Condition {
	return Condition{op: opIn, field: field, vals: values}
}

// And matches when every condition matches: a and b and ... With no
// conditions it is [True]; with one, that condition.
func And(conds ...Condition) Condition { return Condition{op: opAnd, subs: conds} }

// Or matches when any condition matches: a or b or ... With no conditions it
// is [False]; with one, that condition.
func Or(conds ...Condition) Condition { return Condition{op: opOr, subs: conds} }

// Not negates c: !(c). Vespa accepts a negation only as a part of an [And]
// that also has a positive condition.
func Not(c Condition) Condition { return Condition{op: opNot, subs: []Condition{c}} }

// UserQuery inserts the parsed user query of [Request.Query]: userQuery().
func UserQuery() Condition { return Condition{op: opUserQuery} }

// UserInput parses user text with Vespa's simple query language:
// userInput(@name) for a [Param] (the text goes in [Request.Params]), or
// userInput("text") for a string. Annotations such as defaultIndex, grammar
// or targetHits apply ([Condition.With]).
func UserInput(input any) Condition {
	return Condition{op: opUserInput, vals: []any{input}}
}

// WeakAnd matches documents that match enough of the conditions, scoring the
// best ones first: weakAnd(a, b, ...). Annotate with targetHits.
func WeakAnd(conds ...Condition) Condition { return Condition{op: opWeakAnd, subs: conds} }

// Rank matches the first condition; the others only add to the ranking
// features: rank(a, b, ...).
func Rank(conds ...Condition) Condition { return Condition{op: opRank, subs: conds} }

// NearestNeighbor finds the targetHits documents whose tensor field is
// closest to the query tensor input.query(queryTensor) (see [Request.Inputs]):
// ({targetHits: n}nearestNeighbor(field, queryTensor)). Other annotations
// (approximate, hnsw.exploreAdditionalHits, distanceThreshold, label) are
// added with [Condition.With].
func NearestNeighbor(field, queryTensor string, targetHits int) Condition {
	return Condition{op: opNearestNeighbor, field: field, vals: []any{queryTensor}, limit: targetHits}
}

// SameElement matches when all conditions hold for one element of an array
// of structs or a map: field contains sameElement(a, b). The inner conditions
// name the struct's fields (or key and value) without the field prefix.
func SameElement(field string, conds ...Condition) Condition {
	return Condition{op: opSameElement, field: field, subs: conds}
}

// With returns a copy of c annotated with key: value. value is a string,
// bool, integer, float, [Param], or a []any or map[string]any of those.
// Annotations are allowed on terms and functions (contains, matches, phrase,
// near, onear, fuzzy, equiv, uri, range, in, userInput, weakAnd,
// nearestNeighbor, weightedSet, dotProduct, wand, geoLocation, predicate);
// elsewhere [Builder.YQL] reports an error. A key given twice is rendered
// twice. An annotated function is parenthesised, ({k: v}f(...)), so that
// the annotation cannot take in a neighbouring and/or.
func (c Condition) With(key string, value any) Condition {
	ann := make([]annotation, len(c.ann), len(c.ann)+1)
	copy(ann, c.ann)
	c.ann = append(ann, annotation{key, value})
	return c
}

func strings2any(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// render writes c as YQL.
func (c Condition) render(b *strings.Builder) error {
	if len(c.ann) > 0 || c.op == opNearestNeighbor {
		switch c.op {
		case opContains, opMatches, opPhrase, opNear, opONear, opFuzzy, opEquiv, opURI:
			// The annotation goes on the term, after the field.
			return c.renderTermOp(b)
		case opRange, opUserInput, opWeakAnd, opNearestNeighbor, opIn, opWeightedSet, opDotProduct, opWand,
			opGeoLocation, opPredicate:
			b.WriteString("(")
			if err := c.renderAnnotations(b); err != nil {
				return err
			}
			if err := c.renderBody(b); err != nil {
				return err
			}
			b.WriteString(")")
			return nil
		default:
			return fmt.Errorf("%w: annotations are not supported on this condition", ErrInvalidYQL)
		}
	}
	return c.renderBody(b)
}

func (c Condition) renderAnnotations(b *strings.Builder) error {
	b.WriteByte('{')
	first := true
	if c.op == opNearestNeighbor {
		if c.limit <= 0 {
			return fmt.Errorf("%w: nearestNeighbor targetHits must be positive, got %d", ErrInvalidYQL, c.limit)
		}
		fmt.Fprintf(b, "targetHits: %d", c.limit)
		first = false
	}
	for _, a := range c.ann {
		if !first {
			b.WriteString(", ")
		}
		first = false
		if err := checkName(a.key); err != nil {
			return fmt.Errorf("annotation key: %w", err)
		}
		b.WriteString(a.key)
		b.WriteString(": ")
		if err := writeConstant(b, a.value); err != nil {
			return fmt.Errorf("annotation %s: %w", a.key, err)
		}
	}
	b.WriteByte('}')
	return nil
}

// writeConstant writes an annotation value: a literal, or an array or map of
// literals.
func writeConstant(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case []any:
		return writeSeq(b, '[', ']', x, writeConstant)
	case []string:
		return writeConstant(b, strings2any(x))
	case map[string]any:
		return writeMap(b, x, func(b *strings.Builder, _ string, v any) error { return writeConstant(b, v) })
	}
	return writeLiteral(b, v)
}

// writeSeq writes items between start and end, separated by ", ", each as
// write writes it.
func writeSeq[T any](b *strings.Builder, start, end byte, items []T, write func(*strings.Builder, T) error) error {
	b.WriteByte(start)
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := write(b, it); err != nil {
			return err
		}
	}
	b.WriteByte(end)
	return nil
}

// writeFieldCall writes name(field, v1, v2, ...), each value as write
// writes it. The caller has checked field.
func writeFieldCall(b *strings.Builder, name, field string, vals []any, write func(*strings.Builder, any) error) error {
	b.WriteString(name)
	b.WriteByte('(')
	b.WriteString(field)
	for _, v := range vals {
		b.WriteString(", ")
		if err := write(b, v); err != nil {
			return err
		}
	}
	b.WriteByte(')')
	return nil
}

// writeMap writes m as {"k1": v1, "k2": v2, ...}, the keys sorted and
// quoted, each value as write writes it.
func writeMap[V any](b *strings.Builder, m map[string]V, write func(b *strings.Builder, k string, v V) error) error {
	return writeSeq(b, '{', '}', slices.Sorted(maps.Keys(m)), func(b *strings.Builder, k string) error {
		if err := quoteString(b, k); err != nil {
			return err
		}
		b.WriteString(": ")
		return write(b, k, m[k])
	})
}

// renderTermOp writes "field contains ({ann}term)" for the term operators.
func (c Condition) renderTermOp(b *strings.Builder) error {
	if err := checkName(c.field); err != nil {
		return err
	}
	b.WriteString(c.field)
	if c.op == opMatches {
		b.WriteString(" matches ")
	} else {
		b.WriteString(" contains ")
	}
	annotated := len(c.ann) > 0
	if annotated {
		b.WriteByte('(')
		if err := c.renderAnnotations(b); err != nil {
			return err
		}
	}
	switch c.op {
	case opContains, opMatches:
		if err := quoteString(b, c.vals[0].(string)); err != nil {
			return err
		}
	case opFuzzy, opURI:
		if c.op == opFuzzy {
			b.WriteString("fuzzy(")
		} else {
			b.WriteString("uri(")
		}
		if err := quoteString(b, c.vals[0].(string)); err != nil {
			return err
		}
		b.WriteByte(')')
	default:
		name := map[condOp]string{opPhrase: "phrase", opNear: "near", opONear: "onear", opEquiv: "equiv"}[c.op]
		if len(c.vals) == 0 {
			return fmt.Errorf("%w: %s needs at least one word", ErrInvalidYQL, name)
		}
		if c.op == opEquiv && len(c.vals) < 2 {
			return fmt.Errorf("%w: equiv needs at least two terms", ErrInvalidYQL)
		}
		b.WriteString(name)
		if err := writeList(b, c.vals); err != nil {
			return err
		}
	}
	if annotated {
		b.WriteByte(')')
	}
	return nil
}

// writeList writes (v1, v2, ...).
func writeList(b *strings.Builder, vals []any) error {
	return writeSeq(b, '(', ')', vals, writeLiteral)
}

func (c Condition) renderSubs(b *strings.Builder, name string, min int) error {
	if len(c.subs) < min {
		return fmt.Errorf("%w: %s needs at least %d condition(s)", ErrInvalidYQL, name, min)
	}
	b.WriteString(name)
	return writeSeq(b, '(', ')', c.subs, func(b *strings.Builder, s Condition) error { return s.render(b) })
}

// renderBody writes c without annotations.
func (c Condition) renderBody(b *strings.Builder) error {
	switch c.op {
	case opTrue:
		b.WriteString("true")
	case opFalse:
		b.WriteString("false")
	case opContains, opMatches, opPhrase, opNear, opONear, opFuzzy, opEquiv, opURI:
		return c.renderTermOp(b)
	case opWeightedSet:
		return c.renderWeighted(b, "weightedSet")
	case opDotProduct:
		return c.renderWeighted(b, "dotProduct")
	case opWand:
		return c.renderWeighted(b, "wand")
	case opGeoLocation:
		return c.renderGeo(b)
	case opPredicate:
		return c.renderPredicate(b)
	case opNonEmpty:
		return c.renderSubs(b, "nonEmpty", 1)
	case opCompare:
		if err := checkName(c.field); err != nil {
			return err
		}
		b.WriteString(c.field)
		b.WriteByte(' ')
		b.WriteString(c.vals[0].(string))
		b.WriteByte(' ')
		return writeLiteral(b, c.vals[1])
	case opRange:
		if err := checkName(c.field); err != nil {
			return err
		}
		return writeFieldCall(b, "range", c.field, c.vals, writeBound)
	case opIn:
		return c.renderIn(b)
	case opAnd, opOr:
		return c.renderBool(b)
	case opNot:
		return c.renderSubs(b, "!", 1)
	case opUserQuery:
		b.WriteString("userQuery()")
	case opUserInput:
		switch c.vals[0].(type) {
		case string, Param:
		default:
			return fmt.Errorf("%w: userInput takes a string or a Param, not %T", ErrInvalidYQL, c.vals[0])
		}
		b.WriteString("userInput")
		return writeList(b, c.vals)
	case opWeakAnd:
		return c.renderSubs(b, "weakAnd", 1)
	case opRank:
		return c.renderSubs(b, "rank", 1)
	case opNearestNeighbor:
		if err := checkName(c.field); err != nil {
			return err
		}
		if err := checkIdent(c.vals[0].(string)); err != nil {
			return fmt.Errorf("query tensor: %w", err)
		}
		b.WriteString("nearestNeighbor(")
		b.WriteString(c.field)
		b.WriteString(", ")
		b.WriteString(c.vals[0].(string))
		b.WriteByte(')')
	case opSameElement:
		if err := checkName(c.field); err != nil {
			return err
		}
		b.WriteString(c.field)
		b.WriteString(" contains ")
		return c.renderSubs(b, "sameElement", 1)
	default:
		return fmt.Errorf("%w: unknown condition", ErrInvalidYQL)
	}
	return nil
}

func (c Condition) renderIn(b *strings.Builder) error {
	if err := checkName(c.field); err != nil {
		return err
	}
	if len(c.vals) == 0 {
		return fmt.Errorf("%w: in needs at least one value", ErrInvalidYQL)
	}
	var strs, ints int
	for _, v := range c.vals {
		switch v.(type) {
		case string:
			strs++
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
			ints++
		case Param:
			// A parameter holds a comma-separated list of values
			// (ParameterListParser); it may stand among literals.
		default:
			return fmt.Errorf("%w: in takes strings or integers, not %T", ErrInvalidYQL, v)
		}
	}
	if strs > 0 && ints > 0 {
		return fmt.Errorf("%w: in mixes strings and integers", ErrInvalidYQL)
	}
	b.WriteString(c.field)
	b.WriteString(" in ")
	return writeList(b, c.vals)
}

// writeBound writes a range bound: a number, or an infinite float as
// Infinity / -Infinity.
func writeBound(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 1) {
			b.WriteString("Infinity")
			return nil
		}
		if math.IsInf(x, -1) {
			b.WriteString("-Infinity")
			return nil
		}
	case float32:
		return writeBound(b, float64(x))
	case string, bool:
		return fmt.Errorf("%w: range bounds must be numbers, not %T", ErrInvalidYQL, v)
	case Param:
		// YqlParser.getRangeBound takes a literal or Infinity only.
		return fmt.Errorf("%w: range bounds must be numbers: Vespa does not accept the parameter @%s there", ErrInvalidYQL, string(x))
	}
	return writeLiteral(b, v)
}
