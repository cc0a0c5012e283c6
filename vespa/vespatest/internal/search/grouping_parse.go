package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file parses the grouping language (the text of a YQL pipe step, | all(...)) as Vespa's
// GroupingParser.jj does, for the subset the emulator evaluates: all and each; group, max,
// precision, order and output; attributes, count(), sum, avg, min, max, relevance(), summary()
// and predefined(attr, bucket...). Valid grouping outside that subset is a *notImplementedError
// (HTTP 501), never a syntax error: a function or clause of Vespa's grammar that the emulator
// does not evaluate is recognised as such by name.

// gOp is a grouping operation: all(...) or each(...).
type gOp struct {
	each     bool
	groupBy  *gExpr
	max      int // maxUnset (Vespa's default of 10 applies), maxUnlimited (max(inf)), or n
	order    []gExpr
	outputs  []gExpr
	children []*gOp
	label    string
}

const (
	maxUnset     = -1
	maxUnlimited = -2
)

// gKind is the kind of a grouping expression.
type gKind int

const (
	gAttr gKind = iota
	gCount
	gSum
	gAvg
	gMin
	gMax
	gRelevance
	gSummary
	gPredefined
)

// gExpr is a grouping expression of the subset.
type gExpr struct {
	kind    gKind
	name    string // attribute name; summary class
	arg     *gExpr // sum, avg, min, max; predefined's expression
	buckets []gBucket
	neg     bool // -e, in order(...)
	label   string
}

// text is the expression as Vespa prints it: the field name of an output, the label of a group
// list.
func (e *gExpr) text() string {
	s := ""
	switch e.kind {
	case gAttr:
		s = e.name
	case gCount:
		s = "count()"
	case gRelevance:
		s = "relevance()"
	case gSum, gAvg, gMin, gMax:
		s = [...]string{gSum: "sum", gAvg: "avg", gMin: "min", gMax: "max"}[e.kind] + "(" + e.arg.text() + ")"
	case gSummary:
		s = "summary(" + e.name + ")"
	case gPredefined:
		var b strings.Builder
		b.WriteString("predefined(" + e.arg.text())
		for _, k := range e.buckets {
			b.WriteString(", " + k.String())
		}
		s = b.String() + ")"
	}
	if e.neg {
		s = "neg(" + s + ")"
	}
	return s
}

// gConst is a bucket bound: a number, a string or an infinity (-1, +1).
type gConst struct {
	num   float64
	isInt bool
	str   string
	isStr bool
	inf   int
}

func (c gConst) String() string {
	switch {
	case c.inf < 0:
		return "-inf"
	case c.inf > 0:
		return "inf"
	case c.isStr:
		return strconv.Quote(c.str)
	case c.isInt:
		return strconv.FormatInt(int64(c.num), 10)
	}
	return javaDouble(c.num)
}

// gBucket is bucket(from, to) with its inclusiveness.
type gBucket struct {
	from, to         gConst
	fromIncl, toIncl bool
}

func (k gBucket) String() string {
	open, closer := "<", ">"
	if k.fromIncl {
		open = "["
	}
	if k.toIncl {
		closer = "]"
	}
	return "bucket" + open + k.from.String() + ", " + k.to.String() + closer
}

// groupingFuncs are the function and clause names of Vespa's grouping grammar (the keyword
// tokens of GroupingParser.jj): a call of one the emulator does not evaluate is answered 501.
var groupingFuncs = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`accuracy acos acosh add alias all and array asin asinh at atan
		atanh attribute avg bucket cat cbrt cos cosh count date dayofmonth dayofweek dayofyear debugwait
		div docidnsspecific each exp filter fixedwidth floor geo_distance group hint hourofday hypot
		interpolatedlookup istrue keep log log10 log1p math max md5 min minuteofhour mod monthofyear
		mul neg normalizesubject not now or order output pow precision predefined quantiles range regex
		relevance reverse secondofminute sin sinh size sort sqrt stddev strcat strlen sub sum summary tan
		tanh time todouble tolong toraw tostring uca where xor xorbit year zcurve`) {
		groupingFuncs[w] = true
	}
}

// gParser parses one grouping request.
type gParser struct {
	toks  []gToken
	i     int
	depth int
}

// parseGrouping parses the text of one grouping pipe step. Errors are a *notImplementedError
// for valid grouping the emulator does not evaluate, or a plain error for invalid text.
func parseGrouping(text string) (*gOp, error) {
	toks, err := gLex(text)
	if err != nil {
		return nil, err
	}
	p := &gParser{toks: toks}
	op, err := p.op()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == 'i' && t.text == "where" {
		return nil, &notImplementedError{what: "grouping where(...) clauses"}
	}
	if t := p.peek(); t.kind != 0 {
		if t.text == ";" {
			return nil, &notImplementedError{what: "several grouping requests in one pipe step (use one | step each)"}
		}
		return nil, fmt.Errorf("unexpected %q after the grouping operation", t.text)
	}
	return op, nil
}

func (p *gParser) peek() gToken { return p.toks[p.i] }

func (p *gParser) next() gToken {
	t := p.toks[p.i]
	if t.kind != 0 {
		p.i++
	}
	return t
}

// at returns the token k places ahead (the end token past the end).
func (p *gParser) at(k int) gToken { return p.toks[min(p.i+k, len(p.toks)-1)] }

func (p *gParser) isPunct(s string) bool { t := p.peek(); return t.kind == 'p' && t.text == s }

func (p *gParser) expect(s string) error {
	if t := p.next(); t.kind != 'p' || t.text != s {
		return fmt.Errorf("expected '%s' at %d, got %q", s, t.pos, t.text)
	}
	return nil
}

func (p *gParser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return fmt.Errorf("grouping nested deeper than %d levels", maxDepth)
	}
	return nil
}

// op parses all(...) or each(...) [as(label)].
func (p *gParser) op() (*gOp, error) {
	defer func() { p.depth-- }()
	if err := p.enter(); err != nil {
		return nil, err
	}
	t := p.next()
	if t.kind != 'i' || t.text != "all" && t.text != "each" {
		return nil, fmt.Errorf("expected all or each at %d, got %q", t.pos, t.text)
	}
	op := &gOp{each: t.text == "each", max: maxUnset}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == 'i' && t.text == "group" && p.at(1).text == "(" {
		p.i += 2
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		op.groupBy = &e
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	}
	for {
		t := p.peek()
		if t.kind == 'p' && t.text == ")" {
			p.next()
			break
		}
		if t.kind != 'i' || p.at(1).text != "(" {
			return nil, fmt.Errorf("expected a clause or an operation at %d, got %q", t.pos, t.text)
		}
		switch t.text {
		case "all", "each":
			child, err := p.op()
			if err != nil {
				return nil, err
			}
			op.children = append(op.children, child)
			continue
		case "max", "precision":
			p.i += 2
			n := p.next()
			v := maxUnlimited
			if n.kind != 'i' || n.text != "inf" || t.text != "max" {
				x, err := strconv.Atoi(strings.TrimRight(n.text, "lL"))
				if n.kind != 'n' || err != nil || x < 0 {
					return nil, fmt.Errorf("%s expects a number, got %q", t.text, n.text)
				}
				v = x
			}
			if t.text == "max" {
				op.max = v
			}
			// precision only tunes the distributed merge; the emulator is exact.
		case "order", "output":
			p.i += 2
			list, err := p.exprList()
			if err != nil {
				return nil, err
			}
			if t.text == "order" {
				op.order = append(op.order, list...)
			} else {
				op.outputs = append(op.outputs, list...)
			}
			continue
		case "group":
			return nil, fmt.Errorf("group(...) must come first in an operation (at %d)", t.pos)
		default:
			if groupingFuncs[t.text] {
				return nil, &notImplementedError{what: fmt.Sprintf("the grouping clause %s(...)", t.text)}
			}
			return nil, fmt.Errorf("unknown grouping clause %q at %d", t.text, t.pos)
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.kind == 'i' && t.text == "as" && p.at(1).text == "(" {
		if !op.each {
			return nil, errors.New("only each(...) can be labelled with as(...)")
		}
		p.i += 2
		l, err := p.label()
		if err != nil {
			return nil, err
		}
		op.label = l
	}
	return op, nil
}

// label parses a label or summary class and the closing parenthesis: an identifier or a string.
func (p *gParser) label() (string, error) {
	t := p.next()
	if t.kind != 'i' && t.kind != 's' {
		return "", fmt.Errorf("expected a label at %d, got %q", t.pos, t.text)
	}
	return t.text, p.expect(")")
}

// exprList parses e, e, ... and the closing parenthesis.
func (p *gParser) exprList() ([]gExpr, error) {
	var out []gExpr
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if p.isPunct(",") {
			p.next()
			continue
		}
		return out, p.expect(")")
	}
}

// expr parses [+|-] value [as(label)].
func (p *gParser) expr() (gExpr, error) {
	defer func() { p.depth-- }()
	if err := p.enter(); err != nil {
		return gExpr{}, err
	}
	neg := false
	if p.isPunct("-") || p.isPunct("+") {
		neg = p.next().text == "-"
	}
	e, err := p.value()
	if err != nil {
		return gExpr{}, err
	}
	if t := p.peek(); t.kind == 'p' && strings.Contains("+-*/%", t.text) {
		return gExpr{}, &notImplementedError{what: "arithmetic in grouping expressions"}
	}
	e.neg = neg
	if t := p.peek(); t.kind == 'i' && t.text == "as" && p.at(1).text == "(" {
		p.i += 2
		l, err := p.label()
		if err != nil {
			return gExpr{}, err
		}
		e.label = l
	}
	return e, nil
}

func (p *gParser) value() (gExpr, error) {
	t := p.next()
	switch {
	case t.kind == 'p' && t.text == "$":
		return gExpr{}, &notImplementedError{what: "grouping aliases ($name)"}
	case t.kind == 'n' || t.kind == 's':
		return gExpr{}, &notImplementedError{what: "constants in grouping expressions"}
	case t.kind != 'i':
		return gExpr{}, fmt.Errorf("expected an expression at %d, got %q", t.pos, t.text)
	}
	if p.isPunct("(") {
		p.next()
		return p.call(t)
	}
	if p.isPunct("{") {
		return gExpr{}, &notImplementedError{what: "map lookups in grouping expressions"}
	}
	return gExpr{kind: gAttr, name: t.text}, nil
}

// call parses the arguments of the function t, after its '('.
func (p *gParser) call(t gToken) (gExpr, error) {
	unary := func(k gKind) (gExpr, error) {
		a, err := p.expr()
		if err != nil {
			return gExpr{}, err
		}
		if p.isPunct(",") {
			return gExpr{}, &notImplementedError{what: fmt.Sprintf("%s(...) with several arguments", t.text)}
		}
		if a.kind != gAttr && a.kind != gRelevance || a.neg {
			return gExpr{}, &notImplementedError{what: fmt.Sprintf("%s(%s)", t.text, a.text())}
		}
		return gExpr{kind: k, arg: &a}, p.expect(")")
	}
	switch t.text {
	case "count":
		return gExpr{kind: gCount}, p.expect(")")
	case "relevance":
		return gExpr{kind: gRelevance}, p.expect(")")
	case "sum":
		return unary(gSum)
	case "avg":
		return unary(gAvg)
	case "min":
		return unary(gMin)
	case "max":
		return unary(gMax)
	case "summary":
		if p.isPunct(")") {
			p.next()
			return gExpr{kind: gSummary}, nil
		}
		l, err := p.label()
		if err != nil {
			return gExpr{}, err
		}
		return gExpr{kind: gSummary, name: l}, nil
	case "predefined":
		return p.predefined()
	}
	if first, _, _ := strings.Cut(t.text, "."); groupingFuncs[first] {
		return gExpr{}, &notImplementedError{what: fmt.Sprintf("the grouping function %s(...)", t.text)}
	}
	return gExpr{}, fmt.Errorf("unknown grouping function %q at %d", t.text, t.pos)
}

// predefined parses predefined(attr, bucket..., bucket...) after its '('.
func (p *gParser) predefined() (gExpr, error) {
	a, err := p.expr()
	if err != nil {
		return gExpr{}, err
	}
	if a.kind != gAttr || a.neg {
		return gExpr{}, &notImplementedError{what: "predefined(...) over " + a.text()}
	}
	e := gExpr{kind: gPredefined, arg: &a}
	for p.isPunct(",") {
		p.next()
		if t := p.next(); t.kind != 'i' || t.text != "bucket" {
			return gExpr{}, fmt.Errorf("expected bucket at %d, got %q", t.pos, t.text)
		}
		var k gBucket
		switch o := p.next(); o.text {
		case "(", "[":
			k.fromIncl = true
		case "<":
		default:
			return gExpr{}, fmt.Errorf("expected '(', '[' or '<' after bucket at %d", o.pos)
		}
		from, err := p.bound()
		if err != nil {
			return gExpr{}, err
		}
		k.from, k.to = from, from
		single := true
		if p.isPunct(",") {
			p.next()
			if k.to, err = p.bound(); err != nil {
				return gExpr{}, err
			}
			single = false
		}
		switch c := p.next(); c.text {
		case ")", ">":
		case "]":
			k.toIncl = true
		default:
			return gExpr{}, fmt.Errorf("expected ')', ']' or '>' closing bucket at %d", c.pos)
		}
		if single {
			k.toIncl = true
		}
		e.buckets = append(e.buckets, k)
	}
	if len(e.buckets) == 0 {
		return gExpr{}, errors.New("predefined(...) needs at least one bucket")
	}
	return e, p.expect(")")
}

// bound parses a bucket bound: [-]number, [-]inf, a string or a bare word.
func (p *gParser) bound() (gConst, error) {
	neg := false
	if p.isPunct("-") {
		p.next()
		neg = true
	}
	t := p.next()
	switch {
	case t.kind == 'i' && t.text == "inf":
		if neg {
			return gConst{inf: -1}, nil
		}
		return gConst{inf: 1}, nil
	case t.kind == 'n':
		s := strings.TrimRight(t.text, "lL")
		if neg {
			s = "-" + s
		}
		if !strings.ContainsAny(s, ".eE") {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return gConst{}, fmt.Errorf("invalid number %q", s)
			}
			return gConst{num: float64(n), isInt: true}, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return gConst{}, fmt.Errorf("invalid number %q", s)
		}
		return gConst{num: f}, nil
	case (t.kind == 's' || t.kind == 'i') && !neg:
		return gConst{str: t.text, isStr: true}, nil
	}
	return gConst{}, fmt.Errorf("expected a bucket bound at %d, got %q", t.pos, t.text)
}
