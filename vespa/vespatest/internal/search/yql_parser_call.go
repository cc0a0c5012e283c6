package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// call parses the function-style operators: nearestNeighbor, userQuery, userInput, weakAnd,
// range, rank, nonEmpty.
func (p *parser) call(ann annotations) (node, error) {
	name := p.next()
	p.next() // (
	switch strings.ToLower(name.text) {
	case "nearestneighbor":
		return p.nearestNeighbor(ann)
	case "userquery":
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		return userQueryNode{ann: ann}, nil
	case "userinput":
		t := p.next()
		n := userInputNode{ann: ann}
		switch t.kind {
		case tokParam:
			n.param = t.text
		case tokString:
			n.literal, n.isLit = t.text, true
		default:
			return nil, p.errorf(t, "mismatched input '%s' expecting {STRING, '@'}", t)
		}
		return n, p.expectPunct(")")
	case "weakand", "and", "or", "rank":
		kids, err := listOf(p, ")", p.orExpr)
		if err != nil {
			return nil, err
		}
		if len(kids) == 0 {
			return nil, p.errorf(name, "%s() requires at least one argument", name.text)
		}
		switch strings.ToLower(name.text) {
		case "weakand":
			return weakAndNode{kids: kids, ann: ann}, nil
		case "or":
			return orNode{kids: kids}, nil
		case "rank":
			// rank(a, b, ...) matches as a and ranks with all of them.
			return rankNode{kids: kids}, nil
		}
		return andNode{kids: kids}, nil
	case "range":
		return p.rangeCall(ann)
	case "nonempty":
		n, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		return n, p.expectPunct(")")
	}
	if unimplementedFuncs[strings.ToLower(name.text)] {
		return nil, &notImplementedError{what: fmt.Sprintf("the YQL operator '%s'", name.text)}
	}
	return nil, p.errorf(name, "no viable alternative at input '%s('", name.text)
}

func (p *parser) nearestNeighbor(ann annotations) (node, error) {
	f := p.next()
	if f.kind != tokIdent {
		return nil, p.errorf(f, "mismatched input '%s' expecting IDENTIFIER", f)
	}
	if err := p.expectPunct(","); err != nil {
		return nil, err
	}
	q := p.next()
	if q.kind != tokIdent {
		return nil, p.errorf(q, "mismatched input '%s' expecting IDENTIFIER", q)
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	n := &nnNode{field: f.text, query: q.text, threshold: math.Inf(1), ann: ann}
	th, ok := ann["targetHits"]
	if !ok {
		th, ok = ann["targetNumHits"]
	}
	if !ok {
		return nil, p.errorf(f, "NEAREST_NEIGHBOR {field=%s,queryTensorName=%s} requires targetHits annotation", f.text, q.text)
	}
	v, isNum := th.(float64)
	if !isNum || v != math.Trunc(v) {
		return nil, p.errorf(f, "targetHits must be an integer, got %v", th)
	}
	n.targetHits = int(v)
	if d, ok := ann["distanceThreshold"].(float64); ok {
		n.threshold = d
	}
	return n, nil
}

func (p *parser) rangeCall(ann annotations) (node, error) {
	f := p.next()
	if f.kind != tokIdent {
		return nil, p.errorf(f, "mismatched input '%s' expecting IDENTIFIER", f)
	}
	var bounds [2]float64
	for i := range bounds {
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
		v, err := p.rangeBound()
		if err != nil {
			return nil, err
		}
		bounds[i] = v
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	r := rangeNode{field: f.text, lo: bounds[0], hi: bounds[1]}
	switch ann["bounds"] {
	case "open":
		r.loOpen, r.hiOpen = true, true
	case "leftOpen":
		r.loOpen = true
	case "rightOpen":
		r.hiOpen = true
	}
	return r, nil
}

// rangeBound reads a bound of range(): a number, Infinity or -Infinity (any case; the lexer
// reads -Infinity as one identifier).
func (p *parser) rangeBound() (float64, error) {
	t := p.next()
	switch {
	case t.kind == tokIdent && strings.EqualFold(t.text, "infinity"):
		return math.Inf(1), nil
	case t.kind == tokIdent && strings.EqualFold(t.text, "-infinity"):
		return math.Inf(-1), nil
	case t.kind != tokNumber:
		return 0, p.errorf(t, "mismatched input '%s' expecting a number", t)
	}
	return p.number(t)
}

// annotations parses {key: value, ...}; values are numbers (float64), strings, booleans, or
// nested arrays/objects.
func (p *parser) annotations() (annotations, error) {
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	if err := p.expectPunct("{"); err != nil {
		return nil, err
	}
	out := annotations{}
	err := p.list("}", func() error {
		k := p.next()
		if k.kind != tokIdent && k.kind != tokString {
			return p.errorf(k, "mismatched input '%s' expecting {IDENTIFIER, STRING}", k)
		}
		if err := p.expectPunct(":"); err != nil {
			return err
		}
		v, err := p.annotationValue()
		if err != nil {
			return err
		}
		out[k.text] = v
		return nil
	})
	return out, err
}

func (p *parser) annotationValue() (any, error) {
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	t := p.next()
	switch {
	case t.kind == tokNumber:
		v, err := p.number(t)
		if err != nil {
			return nil, err
		}
		return v, nil
	case t.kind == tokString:
		return t.text, nil
	case t.kind == tokIdent && strings.EqualFold(t.text, "true"):
		return true, nil
	case t.kind == tokIdent && strings.EqualFold(t.text, "false"):
		return false, nil
	case t.kind == tokIdent:
		return t.text, nil
	case t.kind == tokPunct && t.text == "[":
		arr, err := listOf(p, "]", p.annotationValue)
		if err != nil {
			return nil, err
		}
		return arr, nil
	case t.kind == tokPunct && t.text == "{":
		p.i--
		return p.annotations()
	}
	return nil, p.errorf(t, "mismatched input '%s' expecting an annotation value", t)
}

// number reads the number token t as a float64 (an optional L suffix marks a long).
// numberNode returns the comparison of field with the number literal t.
func (p *parser) numberNode(field, op string, t token) (compareNode, error) {
	f, err := p.number(t)
	if err != nil {
		return compareNode{}, err
	}
	c := compareNode{field: field, op: op, num: f}
	c.inum, err = strconv.ParseInt(strings.TrimSuffix(strings.TrimSuffix(t.text, "L"), "l"), 10, 64)
	c.isInt = err == nil
	return c, nil
}

func (p *parser) number(t token) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(t.text, "L"), "l"), 64)
	if err != nil {
		return 0, p.errorf(t, "invalid number '%s'", t.text)
	}
	return f, nil
}
