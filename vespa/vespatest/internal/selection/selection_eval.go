package selection

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

type orNode struct{ l, r selNode }
type andNode struct{ l, r selNode }
type notNode struct{ n selNode }

func (n orNode) eval(d *selDoc) tri { return max(n.l.eval(d), n.r.eval(d)) }

func (n andNode) eval(d *selDoc) tri { return min(n.l.eval(d), n.r.eval(d)) }

func (n notNode) eval(d *selDoc) tri {
	switch n.n.eval(d) {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triInvalid
}

// valueNode yields values: nil, string, int64, float64, bool, or []any for
// multi-value fields (a comparison holds if it holds for any element).
type valueNode interface {
	values(*selDoc) (any, bool) // ok=false: invalid (e.g. another document type)
	asBool() (selNode, error)
}

type literal struct{ v any }

func (l literal) values(*selDoc) (any, bool) { return l.v, true }
func (l literal) asBool() (selNode, error) {
	if b, ok := l.v.(bool); ok {
		return constNode(triOf(b)), nil
	}
	return nil, fmt.Errorf("a literal is not a boolean expression: %v", l.v)
}

type constNode tri

func (c constNode) eval(*selDoc) tri { return tri(c) }

type docTypeNode struct{ name string }

func (n docTypeNode) eval(d *selDoc) tri { return triOf(d.id.DocType == n.name) }
func (n docTypeNode) values(d *selDoc) (any, bool) {
	return nil, false
}
func (n docTypeNode) asBool() (selNode, error) { return n, nil }

type idNode struct{ part string }

func (n idNode) asBool() (selNode, error) {
	return nil, fmt.Errorf("id is not a boolean expression")
}

func (n idNode) values(d *selDoc) (any, bool) {
	id := d.id
	switch n.part {
	case "":
		return id.Full, true
	case "namespace":
		return id.Namespace, true
	case "type":
		return id.DocType, true
	case "scheme":
		return "id", true
	case "specific":
		return id.User, true
	case "user":
		if !id.HasNumber {
			return nil, false
		}
		return id.Number, true
	case "group":
		if !id.HasGroup {
			return nil, false
		}
		return id.Group, true
	}
	return nil, false
}

type fieldNode struct {
	docType string
	path    []string
}

func (n fieldNode) asBool() (selNode, error) {
	return compareNode{op: "!=", left: n, right: literal{nil}}, nil
}

func (n fieldNode) values(d *selDoc) (any, bool) {
	if d.id.DocType != n.docType {
		return nil, false
	}
	raw, ok := d.field(n.path[0])
	if !ok {
		return nil, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	for _, sub := range n.path[1:] {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, true
		}
		v = m[sub]
	}
	if m, ok := v.(map[string]any); ok {
		// Weighted sets and maps compare on their keys.
		keys := make([]any, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		return keys, true
	}
	if list, ok := v.([]any); ok {
		for i, e := range list {
			list[i] = jsonNumber(e)
		}
		return list, true
	}
	return jsonNumber(v), true
}

// jsonNumber makes a JSON number an int64 when it is an integer, else a
// float64; other values pass through.
func jsonNumber(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64() // a json.Number from the decoder is always a valid number
	return f
}

// boolValue is a boolean expression in parentheses used as a value:
// "(music.year > 2000) == true".
type boolValue struct{ n selNode }

func (b boolValue) values(d *selDoc) (any, bool) {
	switch b.n.eval(d) {
	case triTrue:
		return true, true
	case triFalse:
		return false, true
	}
	return nil, false
}

func (b boolValue) asBool() (selNode, error) { return b.n, nil }

// nowNode is now(): the current time in whole seconds since the epoch, as
// Vespa's CurrentTimeValueNode (and Java's NowNode) give it.
type nowNode struct{}

func (nowNode) values(*selDoc) (any, bool) { return time.Now().Unix(), true }
func (nowNode) asBool() (selNode, error) {
	return nil, fmt.Errorf("expected field spec, doctype, bool or comparison")
}

// arithNode is l op r, op one of + - * / %. Integers stay integers (division
// truncates); a float makes the result a float; + joins two strings. Any
// other operand (null, a missing field, a multi-value field, division by
// integer zero) makes the value invalid, as Vespa's ArithmeticValueNode.
type arithNode struct {
	op   byte
	l, r valueNode
}

func (n arithNode) asBool() (selNode, error) {
	return nil, fmt.Errorf("expected field spec, doctype, bool or comparison")
}

func (n arithNode) values(d *selDoc) (any, bool) {
	l, ok := singleValue(n.l, d)
	if !ok {
		return nil, false
	}
	r, ok := singleValue(n.r, d)
	if !ok {
		return nil, false
	}
	if ls, isStr := l.(string); isStr {
		rs, ok := r.(string)
		return ls + rs, ok && n.op == '+'
	}
	li, lInt := l.(int64)
	ri, rInt := r.(int64)
	if lInt && rInt {
		if ri == 0 && (n.op == '/' || n.op == '%') {
			return nil, false
		}
		return arith(n.op, li, ri, func(a, b int64) int64 { return a % b })
	}
	lf, ok := toFloat(l)
	if !ok {
		return nil, false
	}
	rf, ok := toFloat(r)
	if !ok {
		return nil, false
	}
	return arith(n.op, lf, rf, math.Mod)
}

// arith is a op b for the operators of arithNode; mod is the type's remainder (% or math.Mod).
func arith[N int64 | float64](op byte, a, b N, mod func(N, N) N) (any, bool) {
	switch op {
	case '+':
		return a + b, true
	case '-':
		return a - b, true
	case '*':
		return a * b, true
	case '/':
		return a / b, true
	case '%':
		return mod(a, b), true
	}
	return nil, false
}

// singleValue evaluates v to one non-null value; a one-element list counts
// as its element.
func singleValue(v valueNode, d *selDoc) (any, bool) {
	x, ok := v.values(d)
	if list, isList := x.([]any); isList {
		if len(list) != 1 {
			return nil, false
		}
		x = list[0]
	}
	return x, ok && x != nil
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

type compareNode struct {
	op          string
	left, right valueNode
	re          *regexp.Regexp
}

func (n compareNode) eval(d *selDoc) tri {
	l, ok := n.left.values(d)
	if !ok {
		return triInvalid
	}
	r, ok := n.right.values(d)
	if !ok {
		return triInvalid
	}
	if list, isList := l.([]any); isList {
		res := triFalse // the or of the comparisons, ending at the first true
		for _, e := range list {
			if res = max(res, n.compare(e, r)); res == triTrue {
				break
			}
		}
		return res
	}
	return n.compare(l, r)
}

func (n compareNode) compare(l, r any) tri {
	if l == nil || r == nil {
		switch n.op {
		case "==", "=":
			return triOf(l == nil && r == nil)
		case "!=":
			return triOf(!(l == nil && r == nil))
		}
		return triInvalid
	}
	if n.re != nil {
		s, ok := l.(string)
		if !ok {
			return triInvalid
		}
		return triOf(n.re.MatchString(s))
	}
	switch lv := l.(type) {
	case string:
		rv, ok := r.(string)
		if !ok {
			return triInvalid
		}
		return ordered(n.op, strings.Compare(lv, rv))
	case int64, float64:
		if li, ok := lv.(int64); ok {
			if ri, ok := r.(int64); ok {
				return ordered(n.op, cmp.Compare(li, ri))
			}
		}
		lf, _ := toFloat(lv)
		rf, ok := toFloat(r)
		if !ok {
			return triInvalid
		}
		return ordered(n.op, cmp.Compare(lf, rf))
	case bool:
		rv, ok := r.(bool)
		if !ok || (n.op != "==" && n.op != "!=") {
			return triInvalid
		}
		return triOf((lv == rv) == (n.op == "=="))
	}
	return triInvalid
}

func ordered(op string, c int) tri {
	switch op {
	case "==", "=":
		return triOf(c == 0)
	case "!=":
		return triOf(c != 0)
	case "<":
		return triOf(c < 0)
	case "<=":
		return triOf(c <= 0)
	case ">":
		return triOf(c > 0)
	case ">=":
		return triOf(c >= 0)
	}
	return triInvalid
}
