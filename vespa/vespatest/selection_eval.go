package vespatest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

type orNode struct{ l, r selNode }
type andNode struct{ l, r selNode }
type notNode struct{ n selNode }

func (n orNode) eval(d *selDoc) tri {
	a, b := n.l.eval(d), n.r.eval(d)
	switch {
	case a == triTrue || b == triTrue:
		return triTrue
	case a == triInvalid || b == triInvalid:
		return triInvalid
	}
	return triFalse
}

func (n andNode) eval(d *selDoc) tri {
	a, b := n.l.eval(d), n.r.eval(d)
	switch {
	case a == triFalse || b == triFalse:
		return triFalse
	case a == triInvalid || b == triInvalid:
		return triInvalid
	}
	return triTrue
}

func (n notNode) eval(d *selDoc) tri {
	switch n.n.eval(d) {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triInvalid
}

// valueNode yields values: nil, string, float64, bool, or []any for
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

func (n docTypeNode) eval(d *selDoc) tri { return triOf(d.id.docType == n.name) }
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
		return id.full, true
	case "namespace":
		return id.namespace, true
	case "type":
		return id.docType, true
	case "scheme":
		return "id", true
	case "specific":
		return id.user, true
	case "user":
		if !id.hasNumber {
			return nil, false
		}
		return float64(id.number), true
	case "group":
		if !id.hasGroup {
			return nil, false
		}
		return id.group, true
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
	if d.id.docType != n.docType {
		return nil, false
	}
	raw, ok := d.field(n.path[0])
	if !ok {
		return nil, true
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
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
	return v, true
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
		res := triFalse
		for _, e := range list {
			switch n.compare(e, r) {
			case triTrue:
				return triTrue
			case triInvalid:
				res = triInvalid
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
	case float64:
		rv, ok := r.(float64)
		if !ok {
			return triInvalid
		}
		c := 0
		if lv < rv {
			c = -1
		} else if lv > rv {
			c = 1
		}
		return ordered(n.op, c)
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
