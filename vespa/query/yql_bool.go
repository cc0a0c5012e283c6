package query

import "strings"

// This file renders and, or and their nesting so that YQL's precedence
// (and binds tighter than or) never decides what a tree means.

func (c Condition) renderBool(b *strings.Builder) error {
	c = c.collapse()
	if c.op != opAnd && c.op != opOr {
		return c.render(b)
	}
	if len(c.subs) == 0 {
		if c.op == opAnd {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
		return nil
	}
	sep := " and "
	if c.op == opOr {
		sep = " or "
	}
	for i, s := range c.subs {
		if i > 0 {
			b.WriteString(sep)
		}
		// A child renders as an and/or chain only when it collapses to an
		// and/or of two or more conditions; such a chain is always
		// parenthesised, so YQL's precedence (and binds tighter than or)
		// never decides the meaning. Every other rendering is an operand
		// that binds tighter than and: a function, a comparison, a term,
		// !( ), or a parenthesised annotated expression.
		s = s.collapse()
		paren := s.isChain()
		if paren {
			b.WriteByte('(')
		}
		if err := s.render(b); err != nil {
			return err
		}
		if paren {
			b.WriteByte(')')
		}
	}
	return nil
}

// collapse returns the condition c stands for: an unannotated and/or of a
// single condition is that condition, however deeply nested.
func (c Condition) collapse() Condition {
	for (c.op == opAnd || c.op == opOr) && len(c.subs) == 1 && len(c.ann) == 0 {
		c = c.subs[0]
	}
	return c
}

// isChain reports whether c (collapsed) renders as a bare and/or chain
// whose operators could bind with its neighbours'.
func (c Condition) isChain() bool {
	return (c.op == opAnd || c.op == opOr) && len(c.subs) > 1
}
