package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// notImplementedError reports valid Vespa input that the emulator does not implement. The
// handler answers it with HTTP 501 and an error saying so, never with a silently wrong result.
type notImplementedError struct{ what string }

func (e *notImplementedError) Error() string {
	return "the vespatest emulator does not implement " + e.what
}

// unimplementedFuncs are YQL operators Vespa has and the emulator rejects explicitly.
var unimplementedFuncs = map[string]bool{
	"near": true, "onear": true, "equiv": true, "uri": true, "fuzzy": true, "wand": true,
	"weightedset": true, "dotproduct": true, "predicate": true, "geolocation": true,
	"text": true, "select": true,
}

// parser is a recursive-descent parser over the tokens of one YQL statement.
type parser struct {
	src   string
	toks  []token
	i     int
	depth int // nesting depth, bounded by maxDepth so that hostile input cannot exhaust the stack
}

// maxDepth bounds the nesting of parentheses, negations and annotations.
const maxDepth = 200

// enter counts one level of nesting and fails beyond maxDepth; the caller defers p.leave().
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf(p.peek(), "query nested deeper than %d levels", maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// parseYQL parses a YQL select statement. Errors are *syntaxError (Vespa answers 400, code 3) or
// *notImplementedError.
func parseYQL(src string) (*statement, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	st, err := p.statement()
	if err != nil {
		return nil, err
	}
	return st, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tokPunct && t.text == s
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return &syntaxError{pos: t.pos, msg: fmt.Sprintf("query:L%d:%d ", lineOf(p.src, t.pos), colOf(p.src, t.pos)) +
		fmt.Sprintf(format, args...)}
}

func (p *parser) mismatch(expecting string) error {
	t := p.peek()
	return p.errorf(t, "mismatched input '%s' expecting %s", t, expecting)
}

func (p *parser) expectKeyword(kw string) error {
	if !p.isKeyword(kw) {
		return p.mismatch(strings.ToUpper(kw))
	}
	p.next()
	return nil
}

func (p *parser) expectPunct(s string) error {
	if !p.isPunct(s) {
		return p.mismatch("'" + s + "'")
	}
	p.next()
	return nil
}

func (p *parser) statement() (*statement, error) {
	st := &statement{}
	if err := p.expectKeyword("select"); err != nil {
		return nil, err
	}
	if p.isPunct("*") {
		p.next()
	} else {
		fields, err := separated(p, ",", p.name)
		if err != nil {
			return nil, err
		}
		st.fields = fields
	}
	if err := p.expectKeyword("from"); err != nil {
		return nil, err
	}
	if err := p.sources(st); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("where"); err != nil {
		return nil, err
	}
	w, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	st.where = w
	if err := p.tail(st); err != nil {
		return nil, err
	}
	for p.isPunct("|") {
		p.next()
		t := p.next()
		switch {
		case t.kind == tokGrouping:
			g, err := parseGrouping(t.text)
			if err != nil {
				var ni *notImplementedError
				if errors.As(err, &ni) {
					return nil, err
				}
				return nil, p.errorf(t, "could not parse grouping '%s': %v", t.text, err)
			}
			st.groupings = append(st.groupings, g)
		case t.kind == tokPunct && (t.text == "{" || t.text == "["):
			// {...}all(...) or [{...}]all(...): continuations and other grouping annotations.
			return nil, &notImplementedError{what: "annotations on grouping pipe steps (continuations)"}
		case t.kind == tokIdent && (strings.EqualFold(t.text, "all") || strings.EqualFold(t.text, "each")):
			// all( or each( that did not lex as a VESPA_GROUPING token: its brackets do not
			// balance.
			return nil, p.errorf(t, "mismatched input '%s' expecting VESPA_GROUPING (the grouping's brackets do not balance)", t)
		case t.kind == tokIdent:
			return nil, &notImplementedError{what: "the YQL pipe step '" + t.text + "' (only grouping is a pipe step the emulator knows)"}
		default:
			return nil, p.errorf(t, "mismatched input '%s' expecting {VESPA_GROUPING, IDENTIFIER}", t)
		}
	}
	if p.isPunct(";") {
		p.next()
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.errorf(t, "extraneous input '%s' expecting <EOF>", t)
	}
	return st, nil
}

func (p *parser) sources(st *statement) error {
	if p.isKeyword("sources") {
		p.next()
		if p.isPunct("*") {
			p.next()
			return nil
		}
		sources, err := separated(p, ",", p.name)
		st.sources = sources
		return err
	}
	t := p.next()
	if t.kind != tokIdent {
		return p.errorf(t, "mismatched input '%s' expecting {SOURCES, IDENTIFIER}", t)
	}
	st.sources = []string{t.text}
	return nil
}

// name reads a field or source name of select ... from: an identifier.
func (p *parser) name() (string, error) {
	t := p.next()
	if t.kind != tokIdent {
		return "", p.errorf(t, "mismatched input '%s' expecting {'*', IDENTIFIER}", t)
	}
	return t.text, nil
}

// orderTerm reads one term of order by: a field, then asc or desc.
func (p *parser) orderTerm() (orderSpec, error) {
	if p.isPunct("{") {
		return orderSpec{}, &notImplementedError{what: "annotations on order by (sort functions)"}
	}
	t := p.next()
	if t.kind != tokIdent {
		return orderSpec{}, p.errorf(t, "mismatched input '%s' expecting IDENTIFIER", t)
	}
	o := orderSpec{field: t.text}
	if p.isKeyword("desc") {
		p.next()
		o.desc = true
	} else if p.isKeyword("asc") {
		p.next()
	}
	return o, nil
}

func (p *parser) tail(st *statement) error {
	if p.isKeyword("order") {
		p.next()
		if err := p.expectKeyword("by"); err != nil {
			return err
		}
		order, err := separated(p, ",", p.orderTerm)
		if err != nil {
			return err
		}
		st.orderBy = order
	}
	for _, kw := range []string{"limit", "offset", "timeout"} {
		if !p.isKeyword(kw) {
			continue
		}
		p.next()
		t := p.next()
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(t.text, "L"), "l"))
		if t.kind != tokNumber || err != nil || n < 0 {
			return p.errorf(t, "mismatched input '%s' expecting INTEGER", t)
		}
		switch kw {
		case "limit":
			st.limit = &n
		case "offset":
			st.offset = &n
		default:
			st.timeout = &n
		}
	}
	return nil
}

func (p *parser) orExpr() (node, error) {
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	kids, err := separated(p, "or", p.andExpr)
	if err != nil || len(kids) == 1 {
		return first(kids), err
	}
	return orNode{kids: kids}, nil
}

func (p *parser) andExpr() (node, error) {
	kids, err := separated(p, "and", p.unary)
	if err != nil || len(kids) == 1 {
		return first(kids), err
	}
	return andNode{kids: kids}, nil
}

// separated reads item (sep item)*, one item or more, where sep is a keyword (and, or) or a
// punctuation (","): the operands of and and of or, and the comma-separated lists of
// names, order-by terms and arguments.
func separated[T any](p *parser, sep string, item func() (T, error)) ([]T, error) {
	var out []T
	for {
		v, err := item()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !p.isKeyword(sep) && !p.isPunct(sep) {
			return out, nil
		}
		p.next()
	}
}

// first returns the first node of kids, nil if there is none.
func first(kids []node) node {
	if len(kids) == 0 {
		return nil
	}
	return kids[0]
}

// list reads a comma-separated list of items up to the punctuation close,
// and close: item reads one item. The list may be empty, and may end with
// a comma.
func (p *parser) list(close string, item func() error) error {
	for !p.isPunct(close) {
		if err := item(); err != nil {
			return err
		}
		if !p.isPunct(",") {
			break
		}
		p.next()
	}
	return p.expectPunct(close)
}

// listOf reads a list as [parser.list] does and returns its items.
func listOf[T any](p *parser, close string, item func() (T, error)) ([]T, error) {
	var out []T
	err := p.list(close, func() error {
		v, err := item()
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (p *parser) unary() (node, error) {
	if p.isPunct("!") {
		p.next()
		defer p.leave()
		if err := p.enter(); err != nil {
			return nil, err
		}
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		return notNode{kid: n}, nil
	}
	return p.primary()
}

func (p *parser) primary() (node, error) {
	if p.isPunct("(") {
		p.next()
		n, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		return n, nil
	}
	var ann annotations
	if p.isPunct("{") {
		a, err := p.annotations()
		if err != nil {
			return nil, err
		}
		ann = a
		if p.isPunct("(") {
			defer p.leave()
			if err := p.enter(); err != nil {
				return nil, err
			}
			return p.primary() // annotations on a parenthesised expression are accepted and ignored
		}
	}
	t := p.peek()
	switch {
	case t.kind == tokIdent && (strings.EqualFold(t.text, "true") || strings.EqualFold(t.text, "false")) &&
		!p.isOperatorAt(p.i+1):
		p.next()
		return boolNode{val: strings.EqualFold(t.text, "true")}, nil
	case t.kind == tokIdent && p.toks[p.i+1].kind == tokPunct && p.toks[p.i+1].text == "(":
		return p.call(ann)
	case t.kind == tokIdent:
		return p.relation(ann)
	case t.kind == tokNumber:
		return p.reversedCompare()
	}
	return nil, p.errorf(t, "no viable alternative at input '%s'", t)
}

// isOperatorAt reports whether the token at i is a relational operator or keyword.
func (p *parser) isOperatorAt(i int) bool {
	t := p.toks[i]
	if t.kind == tokPunct {
		switch t.text {
		case "=", "<", "<=", ">", ">=":
			return true
		}
	}
	return t.kind == tokIdent && (strings.EqualFold(t.text, "contains") || strings.EqualFold(t.text, "matches") ||
		strings.EqualFold(t.text, "in"))
}

// relation parses field contains ..., field op value, field matches "re", field in (...).
func (p *parser) relation(ann annotations) (node, error) {
	field := p.next().text
	t := p.next()
	switch {
	case t.kind == tokIdent && strings.EqualFold(t.text, "contains"):
		return p.containsRHS(field, ann)
	case t.kind == tokIdent && strings.EqualFold(t.text, "matches"):
		return nil, &notImplementedError{what: "the YQL 'matches' operator"}
	case t.kind == tokIdent && strings.EqualFold(t.text, "in"):
		return p.inRHS(field)
	case t.kind == tokPunct && (t.text == "=" || t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">="):
		v := p.next()
		c := compareNode{field: field, op: t.text}
		switch {
		case v.kind == tokNumber:
			var err error
			if c, err = p.numberNode(field, t.text, v); err != nil {
				return nil, err
			}
		case v.kind == tokString && t.text == "=":
			c.str, c.isStr = v.text, true
		case v.kind == tokIdent && t.text == "=" && (strings.EqualFold(v.text, "true") || strings.EqualFold(v.text, "false")):
			c.isB, c.b = true, strings.EqualFold(v.text, "true")
		default:
			return nil, p.errorf(v, "mismatched input '%s' expecting a number", v)
		}
		return c, nil
	}
	return nil, p.errorf(t, "mismatched input '%s' expecting {CONTAINS, MATCHES, IN, '=', '<', '<=', '>', '>='}", t)
}

// reversedCompare parses number op field (2015 < year).
func (p *parser) reversedCompare() (node, error) {
	v := p.next()
	if _, err := p.number(v); err != nil {
		return nil, err
	}
	op := p.next()
	flip := map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
	o, ok := flip[op.text]
	if op.kind != tokPunct || !ok {
		return nil, p.errorf(op, "mismatched input '%s' expecting {'=', '<', '<=', '>', '>='}", op)
	}
	ft := p.next()
	if ft.kind != tokIdent {
		return nil, p.errorf(ft, "mismatched input '%s' expecting IDENTIFIER", ft)
	}
	return p.numberNode(ft.text, o, v)
}

func (p *parser) inRHS(field string) (node, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	kids, err := separated(p, ",", func() (node, error) {
		v := p.next()
		switch v.kind {
		case tokNumber:
			return p.numberNode(field, "=", v)
		case tokString:
			return compareNode{field: field, op: "=", str: v.text, isStr: true}, nil
		}
		return nil, p.errorf(v, "mismatched input '%s' expecting {STRING, INTEGER}", v)
	})
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	return orNode{kids: kids}, nil
}

func (p *parser) containsRHS(field string, ann annotations) (node, error) {
	if p.isPunct("(") { // field contains ({annotations}"term")
		p.next()
		defer p.leave()
		if err := p.enter(); err != nil {
			return nil, err
		}
		n, err := p.containsRHS(field, ann)
		if err != nil {
			return nil, err
		}
		return n, p.expectPunct(")")
	}
	if p.isPunct("{") {
		a, err := p.annotations()
		if err != nil {
			return nil, err
		}
		ann = a
	}
	t := p.next()
	switch {
	case t.kind == tokString:
		return containsNode{field: field, term: t.text, ann: ann}, nil
	case t.kind == tokIdent && p.isPunct("("):
		name := strings.ToLower(t.text)
		switch name {
		case "phrase":
			p.next()
			words, err := p.stringArgs()
			if err != nil {
				return nil, err
			}
			return containsNode{field: field, phrase: words, ann: ann}, nil
		case "sameelement":
			p.next()
			conds, err := separated(p, ",", p.orExpr)
			if err != nil {
				return nil, err
			}
			if err := p.expectPunct(")"); err != nil {
				return nil, err
			}
			return containsNode{field: field, same: conds, ann: ann}, nil
		}
		return nil, &notImplementedError{what: fmt.Sprintf("'contains %s(...)'", t.text)}
	}
	return nil, p.errorf(t, "mismatched input '%s' expecting {STRING, PHRASE, SAMEELEMENT, '('}", t)
}

// stringArgs parses "a", "b")  — the arguments of phrase(...), closing parenthesis included.
func (p *parser) stringArgs() ([]string, error) {
	words, err := separated(p, ",", func() (string, error) {
		if p.isPunct("{") {
			if _, err := p.annotations(); err != nil {
				return "", err
			}
		}
		t := p.next()
		if t.kind != tokString {
			return "", p.errorf(t, "mismatched input '%s' expecting STRING", t)
		}
		return t.text, nil
	})
	if err != nil {
		return nil, err
	}
	return words, p.expectPunct(")")
}
