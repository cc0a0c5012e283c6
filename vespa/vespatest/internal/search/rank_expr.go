package search

import (
	"fmt"
	"strconv"
	"strings"
)

// The rank expressions the emulator evaluates: numbers, + - * /, unary minus, parentheses, and
// the features bm25(f), closeness(field, f), nativeRank / nativeRank(f, …), attribute(f),
// query(x) and the profile's functions without arguments (name or name()). Anything else is
// refused with a notImplementedError naming it.

// rankExpr is a parsed rank expression.
type rankExpr interface{ eval(c *rankContext) float64 }

type rankNumber float64

type rankNeg struct{ x rankExpr }

type rankBinary struct {
	op   byte
	l, r rankExpr
}

// rankFeature is one of the supported rank features.
type rankFeature struct {
	name string   // bm25, closeness, nativeRank, attribute, query
	args []string // feature arguments; closeness keeps only the field
}

func (n rankNumber) eval(*rankContext) float64 { return float64(n) }
func (n rankNeg) eval(c *rankContext) float64  { return -n.x.eval(c) }

func (n rankBinary) eval(c *rankContext) float64 {
	l, r := n.l.eval(c), n.r.eval(c)
	switch n.op {
	case '+':
		return l + r
	case '-':
		return l - r
	case '*':
		return l * r
	}
	return l / r
}

func (f rankFeature) eval(c *rankContext) float64 { return c.feature(f) }

// maxRankDepth bounds expression nesting and function inlining.
const maxRankDepth = 64

// parseRankExpression parses expr; functions are the profile's functions without arguments.
func parseRankExpression(expr string, functions map[string]string) (rankExpr, error) {
	p := &rankParser{s: expr, functions: functions}
	e, err := p.sum(0)
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i < len(p.s) {
		return nil, p.unsupported(p.s[p.i:])
	}
	return e, nil
}

type rankParser struct {
	s         string
	i         int
	functions map[string]string
}

func (p *rankParser) skip() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *rankParser) unsupported(what string) error {
	return &notImplementedError{what: fmt.Sprintf("the rank expression '%s' (in '%s')", strings.TrimSpace(what), p.s)}
}

func (p *rankParser) sum(depth int) (rankExpr, error) { return p.binary(depth, "+-", p.product) }

func (p *rankParser) product(depth int) (rankExpr, error) { return p.binary(depth, "*/", p.unary) }

// binary parses operands joined by the operators in ops, left to right.
func (p *rankParser) binary(depth int, ops string, operand func(int) (rankExpr, error)) (rankExpr, error) {
	l, err := operand(depth)
	if err != nil {
		return nil, err
	}
	for {
		p.skip()
		if p.i >= len(p.s) || strings.IndexByte(ops, p.s[p.i]) < 0 {
			return l, nil
		}
		op := p.s[p.i]
		p.i++
		r, err := operand(depth)
		if err != nil {
			return nil, err
		}
		l = rankBinary{op: op, l: l, r: r}
	}
}

func (p *rankParser) unary(depth int) (rankExpr, error) {
	if depth > maxRankDepth {
		return nil, p.unsupported("nesting deeper than 64")
	}
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
		x, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return rankNeg{x}, nil
	}
	return p.primary(depth)
}

func (p *rankParser) primary(depth int) (rankExpr, error) {
	p.skip()
	if p.i >= len(p.s) {
		return nil, p.unsupported("an empty operand")
	}
	c := p.s[p.i]
	switch {
	case c == '(':
		p.i++
		e, err := p.sum(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.skip(); p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, p.unsupported(p.s[p.i:])
		}
		p.i++
		return e, nil
	case c >= '0' && c <= '9' || c == '.':
		return p.number()
	case isIdentStart(c):
		return p.call(depth)
	}
	return nil, p.unsupported(p.s[p.i:])
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func (p *rankParser) number() (rankExpr, error) {
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.') {
		p.i++
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		j := p.i + 1
		if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		if j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			for p.i = j; p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9'; p.i++ {
			}
		}
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil {
		return nil, p.unsupported(p.s[start:p.i])
	}
	return rankNumber(f), nil
}

// call parses an identifier with optional arguments: a feature or a function.
func (p *rankParser) call(depth int) (rankExpr, error) {
	start := p.i
	for p.i < len(p.s) && isIdentPart(p.s[p.i]) {
		p.i++
	}
	name := p.s[start:p.i]
	var args []string
	if p.skip(); p.i < len(p.s) && p.s[p.i] == '(' {
		end := strings.IndexByte(p.s[p.i:], ')')
		if end < 0 || strings.ContainsAny(p.s[p.i+1:p.i+end], "(") {
			return nil, p.unsupported(p.s[start:])
		}
		for a := range strings.SplitSeq(p.s[p.i+1:p.i+end], ",") {
			if a = strings.TrimSpace(a); a != "" {
				args = append(args, a)
			}
		}
		p.i += end + 1
	}
	if p.i < len(p.s) && p.s[p.i] == '.' { // a feature output, e.g. fieldMatch(title).completeness
		return nil, p.unsupported(p.s[start:])
	}
	text := p.s[start:p.i]
	switch {
	case name == "bm25" && len(args) == 1, name == "attribute" && len(args) == 1,
		name == "query" && len(args) == 1:
		return rankFeature{name: name, args: args}, nil
	case name == "closeness" && len(args) == 2 && args[0] == "field":
		return rankFeature{name: name, args: args[1:]}, nil
	case name == "nativeRank":
		return rankFeature{name: name, args: args}, nil
	}
	if body, ok := p.functions[name]; ok && len(args) == 0 {
		if depth > maxRankDepth {
			return nil, p.unsupported("functions nested deeper than 64")
		}
		sub := &rankParser{s: body, functions: p.functions}
		e, err := sub.sum(depth + 1)
		if err != nil {
			return nil, err
		}
		if sub.skip(); sub.i < len(sub.s) {
			return nil, sub.unsupported(sub.s[sub.i:])
		}
		return e, nil
	}
	return nil, p.unsupported(text)
}
