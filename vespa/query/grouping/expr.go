package grouping

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Expr is a grouping expression: an attribute, an aggregate, summary(),
// relevance() or predefined buckets. Make one with the functions of this
// file.
type Expr struct {
	kind    exprKind
	name    string // attribute name, function name, summary class
	args    []Expr
	buckets []BucketSpec
	label   string
}

type exprKind uint8

const (
	exprInvalid exprKind = iota
	exprAttr
	exprFunc // name(args...), count() included
	exprSummary
	exprPredefined
	exprNeg
)

// Attr is the attribute field name (a struct field as "a.b"): the value to
// group by, or the argument of an aggregate.
func Attr(name string) Expr { return Expr{kind: exprAttr, name: name} }

// Count is count(): the number of hits in a group, or of groups in a list.
func Count() Expr { return Expr{kind: exprFunc, name: "count"} }

// Sum is sum(e): the sum of e over the hits of a group.
func Sum(e Expr) Expr { return Expr{kind: exprFunc, name: "sum", args: []Expr{e}} }

// Avg is avg(e): the mean of e over the hits of a group.
func Avg(e Expr) Expr { return Expr{kind: exprFunc, name: "avg", args: []Expr{e}} }

// MinOf is min(e): the smallest e among the hits of a group. (It is not
// called Min because [Max] is the max(n) clause.)
func MinOf(e Expr) Expr { return Expr{kind: exprFunc, name: "min", args: []Expr{e}} }

// MaxOf is max(e): the largest e among the hits of a group, such as
// MaxOf(Relevance()), the default order of groups.
func MaxOf(e Expr) Expr { return Expr{kind: exprFunc, name: "max", args: []Expr{e}} }

// Relevance is relevance(): the rank score of a hit.
func Relevance() Expr { return Expr{kind: exprFunc, name: "relevance"} }

// Summary is summary(): in an each over hits, the hits themselves, rendered
// with the default document summary, as a hit list of the group.
func Summary() Expr { return Expr{kind: exprSummary} }

// SummaryOf is summary(class): [Summary] with a named document summary.
func SummaryOf(class string) Expr { return Expr{kind: exprSummary, name: class} }

// Predefined groups e into the given buckets:
// predefined(e, bucket(...), ...). A hit whose value falls in no bucket is
// in no group. Buckets must be given in increasing order and not overlap.
func Predefined(e Expr, buckets ...BucketSpec) Expr {
	return Expr{kind: exprPredefined, args: []Expr{e}, buckets: append([]BucketSpec(nil), buckets...)}
}

// As labels the expression: the name of an output's field in the result
// (count() as(c) is rendered as the field "c").
func (e Expr) As(label string) Expr {
	e.label = label
	return e
}

// BucketSpec is one bucket of [Predefined]; make one with [Bucket] or
// [BucketInclusive].
type BucketSpec struct {
	from, to  any
	inclusive bool
}

// Bucket is the half-open range [from, to): bucket(from, to). Bounds are
// integers, floats or strings; math.Inf(-1) and math.Inf(1) leave a side
// open (-inf, inf).
func Bucket(from, to any) BucketSpec { return BucketSpec{from: from, to: to} }

// BucketInclusive is the closed range [from, to]: bucket[from, to].
func BucketInclusive(from, to any) BucketSpec { return BucketSpec{from: from, to: to, inclusive: true} }

func (e Expr) write(b *strings.Builder) error {
	switch e.kind {
	case exprAttr:
		if err := checkAttr(e.name); err != nil {
			return err
		}
		b.WriteString(e.name)
	case exprFunc:
		b.WriteString(e.name)
		b.WriteByte('(')
		if err := writeExprs(b, e.args); err != nil {
			return err
		}
		b.WriteByte(')')
	case exprSummary:
		b.WriteString("summary(")
		if e.name != "" {
			if err := writeString(b, e.name); err != nil {
				return err
			}
		}
		b.WriteByte(')')
	case exprPredefined:
		if len(e.buckets) == 0 {
			return fmt.Errorf("%w: predefined needs at least one bucket", ErrInvalid)
		}
		b.WriteString("predefined(")
		if err := e.args[0].write(b); err != nil {
			return err
		}
		for _, k := range e.buckets {
			b.WriteString(", ")
			if err := k.write(b); err != nil {
				return err
			}
		}
		b.WriteByte(')')
	case exprNeg:
		b.WriteByte('-')
		if err := e.args[0].write(b); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%w: zero expression", ErrInvalid)
	}
	return writeLabel(b, e.label)
}

// writeExprs writes args separated by ", ".
func writeExprs(b *strings.Builder, args []Expr) error {
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := a.write(b); err != nil {
			return err
		}
	}
	return nil
}

// writeLabel writes " as(label)", or nothing when label is empty.
func writeLabel(b *strings.Builder, label string) error {
	if label == "" {
		return nil
	}
	b.WriteString(" as(")
	if err := writeString(b, label); err != nil {
		return err
	}
	b.WriteByte(')')
	return nil
}

func (k BucketSpec) write(b *strings.Builder) error {
	b.WriteString("bucket")
	if k.inclusive {
		b.WriteByte('[')
	} else {
		b.WriteByte('(')
	}
	if err := writeBound(b, k.from, -1); err != nil {
		return err
	}
	b.WriteString(", ")
	if err := writeBound(b, k.to, 1); err != nil {
		return err
	}
	if k.inclusive {
		b.WriteByte(']')
	} else {
		b.WriteByte(')')
	}
	return nil
}

// writeBound writes a bucket bound: a signed number, -inf (low side only),
// inf (high side only) or a string.
func writeBound(b *strings.Builder, v any, side int) error {
	switch x := v.(type) {
	case string:
		return writeQuoted(b, x)
	case float32:
		return writeBound(b, float64(x), side)
	case float64:
		switch {
		case math.IsInf(x, -1) && side < 0:
			b.WriteString("-inf")
			return nil
		case math.IsInf(x, 1) && side > 0:
			b.WriteString("inf")
			return nil
		case math.IsInf(x, 0) || math.IsNaN(x):
			return fmt.Errorf("%w: bucket bound %v", ErrInvalid, x)
		}
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			// The grouping parser reads a number without '.' as a long.
			s += ".0"
		}
		b.WriteString(s)
		return nil
	case int:
		b.WriteString(strconv.Itoa(x))
		return nil
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
		return nil
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
		return nil
	}
	return fmt.Errorf("%w: bucket bound of type %T (want an integer, a float or a string)", ErrInvalid, v)
}

// checkAttr validates an attribute name as GroupingParser.jj's
// attributeValue reads it: identifiers ([A-Za-z][A-Za-z0-9_]*) joined by
// dots. "inf" is the one token that is not an identifier there.
func checkAttr(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty attribute name", ErrInvalid)
	}
	for seg := range strings.SplitSeq(name, ".") {
		if !isIdent(seg) {
			return fmt.Errorf("%w: attribute name %q: %q is not an identifier", ErrInvalid, name, seg)
		}
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" || strings.EqualFold(s, "inf") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_'):
		default:
			return false
		}
	}
	return true
}

// writeString writes a label or summary class: bare when it is an
// identifier, quoted otherwise.
func writeString(b *strings.Builder, s string) error {
	if isIdent(s) {
		b.WriteString(s)
		return nil
	}
	return writeQuoted(b, s)
}

// writeQuoted writes s as a grouping STRING token. Letters, digits, space
// and a few safe marks are written as they are; every other character,
// quotes, backslashes and brackets included, as \uXXXX (UTF-16 units,
// which the parser's UnicodeUtilities.unquote reads back). So the token
// never holds a bracket that YQL's lexer would count, nor a quote or
// backslash whose reading could depend on the lexer's longest match.
func writeQuoted(b *strings.Builder, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: string %q is not valid UTF-8", ErrInvalid, s)
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == ' ', r == '_', r == '-', r == '.', r == ',', r == ':', r == '/', r == '+', r == '@':
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return nil
}
