package grouping

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalid is returned (wrapped) by [Op.Text] when a part of a grouping
// statement cannot be rendered safely: a bad attribute name, a non-positive
// max, an empty output, a non-finite number.
var ErrInvalid = errors.New("grouping: invalid grouping")

// Op is a grouping operation: all(...), which works on its input list as a
// whole, or each(...), which works on every element of it (every group of a
// group list, every hit of a hit list). Make one with [All] or [Each].
type Op struct {
	each  bool
	parts []Part
	label string
}

// Part is a clause of an operation ([Group], [Max], [Precision], [Order],
// [Output]) or a nested operation ([Op]). Only this package makes Parts.
type Part interface{ write(*strings.Builder) error }

// All returns all(parts...): the parts applied to the input list as a whole.
// At the top of a statement the input is every match of the query.
func All(parts ...Part) Op { return Op{parts: append([]Part(nil), parts...)} }

// Each returns each(parts...): the parts applied to every element of the
// input list. Under an operation that groups, each runs once per group;
// under one that does not, once per hit (where only output(summary()) is
// meaningful: it lists the hits).
func Each(parts ...Part) Op { return Op{each: true, parts: append([]Part(nil), parts...)} }

// As labels the list an each operation produces: the group list of the
// enclosing group(...), or the hit list of output(summary()); without one,
// Vespa labels a group list after its group expression and a hit list
// "hits". Only each takes a label: Vespa's grammar has no label on all.
func (o Op) As(label string) Op {
	o.label = label
	return o
}

// Text renders the operation, or returns an error wrapping [ErrInvalid]
// naming the offending part.
func (o Op) Text() (string, error) {
	var b strings.Builder
	if err := o.write(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// String renders the operation, or a text starting "!error: " when
// [Op.Text] would fail.
func (o Op) String() string {
	s, err := o.Text()
	if err != nil {
		return "!error: " + err.Error()
	}
	return s
}

func (o Op) write(b *strings.Builder) error {
	if o.each {
		b.WriteString("each(")
	} else {
		if o.label != "" {
			return fmt.Errorf("%w: all(...) cannot be labelled (%q); label the each(...) that makes the list", ErrInvalid, o.label)
		}
		b.WriteString("all(")
	}
	for i, p := range o.parts {
		if p == nil {
			return fmt.Errorf("%w: nil part", ErrInvalid)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if err := p.write(b); err != nil {
			return err
		}
	}
	b.WriteByte(')')
	return writeLabel(b, o.label)
}

// clause is a named clause with arguments: group(e), max(n), output(a, b).
type clause struct {
	name string
	args []Expr
	num  int  // max, precision
	inf  bool // max(inf)
}

func (c clause) write(b *strings.Builder) error {
	b.WriteString(c.name)
	b.WriteByte('(')
	switch c.name {
	case "max", "precision":
		if c.inf {
			b.WriteString("inf")
		} else {
			if c.num < 1 {
				return fmt.Errorf("%w: %s(%d) must be at least 1", ErrInvalid, c.name, c.num)
			}
			b.WriteString(strconv.Itoa(c.num))
		}
	default:
		if len(c.args) == 0 {
			return fmt.Errorf("%w: %s() needs at least one expression", ErrInvalid, c.name)
		}
		if err := writeExprs(b, c.args); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	b.WriteByte(')')
	return nil
}

// Group returns group(e): the input hits become a list of groups, one per
// value of e (an attribute, or [Predefined] buckets). The operations nested
// after it ([Each]) work on that list.
func Group(e Expr) Part { return clause{name: "group", args: []Expr{e}} }

// Max returns max(n): keep the first n elements of the list (groups, when
// the operation groups; hits otherwise). Without it Vespa keeps 10
// (grouping.defaultMaxGroups, grouping.defaultMaxHits). n must be at least
// 1; see [Unlimited].
func Max(n int) Part { return clause{name: "max", num: n} }

// Unlimited returns max(inf): keep every element of the list.
func Unlimited() Part { return clause{name: "max", inf: true} }

// Precision returns precision(n): each content node returns n groups for
// the container to merge, trading accuracy for speed. n must be at least 1.
func Precision(n int) Part { return clause{name: "precision", num: n} }

// Output returns output(e, ...): the aggregates (or summary()) computed for
// the current group, rendered as its fields.
func Output(exprs ...Expr) Part {
	return clause{name: "output", args: append([]Expr(nil), exprs...)}
}

// Order returns order(k, ...): the order of the groups, by aggregates of
// each group. Without it groups are ordered by their best hit's relevance.
func Order(keys ...OrderKey) Part {
	args := make([]Expr, len(keys))
	for i, k := range keys {
		args[i] = k.e
		if k.desc {
			args[i] = Expr{kind: exprNeg, args: []Expr{k.e}}
		}
	}
	if len(keys) == 0 {
		return clause{name: "order"}
	}
	return clause{name: "order", args: args}
}

// OrderKey is one key of [Order]; make one with [Asc] or [Desc].
type OrderKey struct {
	e    Expr
	desc bool
}

// Asc orders by e, smallest first: order(e).
func Asc(e Expr) OrderKey { return OrderKey{e: e} }

// Desc orders by e, largest first: order(-e).
func Desc(e Expr) OrderKey { return OrderKey{e: e, desc: true} }
