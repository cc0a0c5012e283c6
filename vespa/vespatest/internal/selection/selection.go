// Package selection parses and evaluates Vespa's document selection language
// (the subset the emulator knows) and checks test-and-set conditions as a
// content node does.
package selection

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/docid"
	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/scan"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

// The document selection language subset (Vespa's grammar:
// document/src/vespa/document/select/grammar/parser.yy, the content node's,
// and document/src/main/javacc/SelectParser.jj): true, false, document type
// names, <type>.<field> and id, id.namespace, id.type, id.user, id.group,
// id.specific, now() (seconds since the epoch), integer (decimal, 0x hex,
// 0 octal) and float literals, strings and null; arithmetic with + - * / %
// (* / % before + -, left to right; + also joins strings); comparisons with
// == != < <= > >= =~ (regex) and = (glob); and, or, not and parentheses.
// Evaluation is three-valued as in Vespa: comparing what is not comparable
// (a missing field with a number, a field of another document type) is
// "invalid", which selects nothing and stays invalid under not.

// tri is a three-valued result. The values are ordered false < invalid < true, so that "and" is
// the smaller of its operands and "or" the larger, as in Kleene's three-valued logic.
type tri int

const (
	triFalse tri = iota
	triInvalid
	triTrue
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

// Selection is a parsed document selection.
type Selection struct {
	root selNode
	refs []selRef // the document types and fields it names, in order
}

// selRef is a document type (field "") or a field of one named in a
// selection, at byte offset pos.
type selRef struct {
	docType, field string
	pos            int
}

type selNode interface {
	eval(*selDoc) tri
}

// selDoc is the document a selection is evaluated on.
type selDoc struct {
	id     docid.ID
	raw    []byte
	fields jsonx.Object
	parsed bool
}

func (d *selDoc) field(name string) (json.RawMessage, bool) {
	if !d.parsed {
		d.parsed = true
		d.fields, _ = jsonx.ParseObject(d.raw)
	}
	return d.fields.Get(name)
}

// Matches evaluates the selection on one document.
func (s *Selection) Matches(id docid.ID, fields []byte) (bool, error) {
	return s.root.eval(&selDoc{id: id, raw: fields}) == triTrue, nil
}

func Parse(text string) (*Selection, error) {
	toks, err := lexSelection(text)
	if err != nil {
		return nil, err
	}
	p := &selParser{toks: toks, text: text}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t)
	}
	if n, err = p.boolean(n); err != nil {
		return nil, err
	}
	return &Selection{root: n, refs: p.refs}, nil
}

// ---- lexer ----

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokString
	tokNumber
	tokOp
	tokLParen
	tokRParen
	tokDot
)

type token struct {
	kind tokKind
	text string // identifier, operator, or decoded string
	pos  int
}

func lexSelection(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(':
			toks = append(toks, token{tokLParen, "(", i})
			i++
		case c == ')':
			toks = append(toks, token{tokRParen, ")", i})
			i++
		case c == '.':
			toks = append(toks, token{tokDot, ".", i})
			i++
		case c == '"' || c == '\'':
			str, n, err := lexString(s[i:])
			if err != nil {
				return nil, fmt.Errorf("%w at column %d", err, i+1)
			}
			toks = append(toks, token{tokString, str, i})
			i += n
		case c >= '0' && c <= '9':
			j := lexNumber(s, i)
			toks = append(toks, token{tokNumber, s[i:j], i})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			toks = append(toks, token{tokIdent, s[i:j], i})
			i = j
		default:
			op := ""
			for _, cand := range []string{"==", "!=", "<=", ">=", "=~", "<", ">", "=", "+", "-", "*", "/", "%"} {
				if strings.HasPrefix(s[i:], cand) {
					op = cand
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("Lexical error at column %d: unexpected character '%c'", i+1, rune(c))
			}
			toks = append(toks, token{tokOp, op, i})
			i += len(op)
		}
	}
	return append(toks, token{tokEOF, "<EOF>", len(s)}), nil
}

// lexNumber returns the end of the number starting at s[i]: an INTEGER
// (decimal, 0x hex or 0 octal, with an optional l) or a FLOAT (digits, an
// optional fraction and exponent, an optional f or d), as SelectParser.jj.
func lexNumber(s string, i int) int {
	j := i
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X") {
		j += 2
		for j < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
			j++
		}
	} else {
		j = scan.DecimalEnd(s, j)
	}
	if j < len(s) && strings.IndexByte("lLfFdD", s[j]) >= 0 {
		j++
	}
	return j
}

// numberLiteral reads a number token as SelectParser.jj does: an INTEGER
// (decodeLong: 0x hex, 0 octal, decimal) is an int64, anything else a
// float64.
func numberLiteral(text string, negative bool) (any, bool) {
	t := strings.TrimRight(text, "lL")
	isFloat := strings.ContainsAny(text, ".eEfFdD") && !strings.HasPrefix(text, "0x") && !strings.HasPrefix(text, "0X")
	if !isFloat && t == text[:len(t)] {
		base, digits := 10, t
		switch {
		case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
			base, digits = 16, t[2:]
		case len(t) > 1 && t[0] == '0':
			base, digits = 8, t[1:]
		}
		if negative {
			digits = "-" + digits
		}
		n, err := strconv.ParseInt(digits, base, 64)
		return n, err == nil
	}
	f, err := strconv.ParseFloat(strings.TrimRight(text, "fFdD"), 64)
	if negative {
		f = -f
	}
	return f, err == nil
}

func lexString(s string) (string, int, error) {
	quote := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == quote:
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(s):
			i++
			if ctl, ok := scan.ControlEscape(s[i]); ok {
				b.WriteByte(ctl)
				continue
			}
			switch s[i] {
			case 'x':
				if i+2 < len(s) {
					if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
						b.WriteByte(byte(v))
						i += 2
						continue
					}
				}
				return "", 0, fmt.Errorf("bad \\x escape")
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// ---- parser ----

type selParser struct {
	toks []token
	pos  int
	text string
	refs []selRef
}

func (p *selParser) peek() token { return p.toks[p.pos] }
func (p *selParser) next() token {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

func (p *selParser) unexpected(t token) error {
	return fmt.Errorf("Encountered \"%s\" at column %d in document selection '%s'", t.text, t.pos+1, p.text)
}

func isKeyword(t token, kw string) bool { return t.kind == tokIdent && strings.EqualFold(t.text, kw) }

// bare is a value standing where a boolean is expected. Whether it is one
// is known only once its context is: inside parentheses it may be an operand
// of arithmetic, "(music.year + 1) * 2"; elsewhere [selParser.boolean]
// replaces it with the boolean it means.
type bare struct{ v valueNode }

func (bare) eval(*selDoc) tri { return triInvalid } // never evaluated: boolean replaces it

// boolean returns the boolean n means: a bare field is "not null", true and
// false are constants, a document type matches its documents; any other
// bare value is an error.
func (p *selParser) boolean(n selNode) (selNode, error) {
	if b, ok := n.(bare); ok {
		return b.v.asBool()
	}
	return n, nil
}

func (p *selParser) or() (selNode, error) {
	return p.joined("or", p.and, func(l, r selNode) selNode { return orNode{l, r} })
}

func (p *selParser) and() (selNode, error) {
	return p.joined("and", p.not, func(l, r selNode) selNode { return andNode{l, r} })
}

// joined parses operands joined by the keyword kw, left to right; each
// joined operand must be a boolean.
func (p *selParser) joined(kw string, operand func() (selNode, error), join func(l, r selNode) selNode) (selNode, error) {
	left, err := operand()
	if err != nil {
		return nil, err
	}
	for isKeyword(p.peek(), kw) {
		p.next()
		right, err := operand()
		if err != nil {
			return nil, err
		}
		if left, err = p.boolean(left); err != nil {
			return nil, err
		}
		if right, err = p.boolean(right); err != nil {
			return nil, err
		}
		left = join(left, right)
	}
	return left, nil
}

func (p *selParser) not() (selNode, error) {
	if isKeyword(p.peek(), "not") {
		p.next()
		n, err := p.not()
		if err != nil {
			return nil, err
		}
		if n, err = p.boolean(n); err != nil {
			return nil, err
		}
		return notNode{n}, nil
	}
	return p.comparison()
}

func isComparison(t token) bool {
	if t.kind != tokOp {
		return false
	}
	switch t.text {
	case "==", "!=", "<=", ">=", "=~", "<", ">", "=":
		return true
	}
	return false
}

func (p *selParser) comparison() (selNode, error) {
	left, err := p.arith(1)
	if err != nil {
		return nil, err
	}
	if !isComparison(p.peek()) {
		return bare{left}, nil
	}
	op := p.next().text
	right, err := p.arith(1)
	if err != nil {
		return nil, err
	}
	cmp := compareNode{op: op, left: left, right: right}
	if op == "=~" {
		lit, ok := right.(literal)
		s, isStr := lit.v.(string)
		if !ok || !isStr {
			return nil, fmt.Errorf("regular expression must be a string literal in document selection '%s'", p.text)
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("invalid regular expression '%s': %w", s, err)
		}
		cmp.re = re
	}
	if op == "=" {
		lit, ok := right.(literal)
		if s, isStr := lit.v.(string); ok && isStr {
			cmp.re = globRegexp(s)
		}
	}
	return cmp, nil
}

// arithPrec is the precedence of an arithmetic operator in Vespa's grammar
// (parser.yy: %left PLUS MINUS, %left MULTIPLY DIVIDE, %left MODULO); 0 for
// any other token.
func arithPrec(t token) int {
	if t.kind != tokOp {
		return 0
	}
	switch t.text {
	case "+", "-":
		return 1
	case "*", "/":
		return 2
	case "%":
		return 3
	}
	return 0
}

// arith parses operands joined by operators of at least precedence min,
// left-associative (precedence climbing).
func (p *selParser) arith(min int) (valueNode, error) {
	left, err := p.operand()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		prec := arithPrec(t)
		if prec == 0 || prec < min {
			return left, nil
		}
		p.next()
		right, err := p.arith(prec + 1)
		if err != nil {
			return nil, err
		}
		left = arithNode{op: t.text[0], l: left, r: right}
	}
}

// operand is a value, or a signed number literal ("-5", "+1.5").
func (p *selParser) operand() (valueNode, error) {
	if t := p.peek(); t.kind == tokOp && (t.text == "-" || t.text == "+") && p.toks[p.pos+1].kind == tokNumber {
		p.next()
		num := p.next()
		v, ok := numberLiteral(num.text, t.text == "-")
		if !ok {
			return nil, p.unexpected(num)
		}
		return literal{v}, nil
	}
	return p.value()
}

func globRegexp(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// value parses an operand: a literal, a parenthesised expression, now(), id
// or id.x, a type name, or type.field.
func (p *selParser) value() (valueNode, error) {
	t := p.next()
	switch t.kind {
	case tokString:
		return literal{t.text}, nil
	case tokNumber:
		v, ok := numberLiteral(t.text, false)
		if !ok {
			return nil, p.unexpected(t)
		}
		return literal{v}, nil
	case tokLParen:
		inner, err := p.or()
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tokRParen {
			return nil, p.unexpected(t)
		}
		if b, ok := inner.(bare); ok {
			return b.v, nil
		}
		return boolValue{inner}, nil
	case tokIdent:
	default:
		return nil, p.unexpected(t)
	}
	if strings.EqualFold(t.text, "now") && p.peek().kind == tokLParen && p.toks[p.pos+1].kind == tokRParen {
		p.next()
		p.next()
		return nowNode{}, nil
	}
	switch strings.ToLower(t.text) {
	case "null":
		return literal{nil}, nil
	case "true":
		return literal{true}, nil
	case "false":
		return literal{false}, nil
	}
	if t.text == "id" {
		if p.peek().kind != tokDot {
			return idNode{""}, nil
		}
		p.next()
		part := p.next()
		switch part.text {
		case "namespace", "type", "user", "group", "specific", "scheme":
			return idNode{part.text}, nil
		}
		return nil, p.unexpected(part)
	}
	if p.peek().kind != tokDot {
		p.refs = append(p.refs, selRef{docType: t.text, pos: t.pos})
		return docTypeNode{t.text}, nil
	}
	path := []string{}
	for p.peek().kind == tokDot {
		p.next()
		f := p.next()
		if f.kind != tokIdent {
			return nil, p.unexpected(f)
		}
		path = append(path, f.text)
	}
	p.refs = append(p.refs, selRef{docType: t.text, field: path[0], pos: t.pos})
	return fieldNode{docType: t.text, path: path}, nil
}

// CheckCondition checks a test-and-set condition as a content node does
// before evaluating it (storage/src/vespa/storage/persistence/
// testandsethelper.cpp): the selection parses with the application's
// document types (parser.yy: "Document type '%s' not found"), and every field
// it names is a field of the document's own type (FieldVisitor), else
// "Condition field '%s' could not be found". Vespa answers either with
// ILLEGAL_PARAMETERS, which /document/v1 turns into a 500. A nil sch (lenient
// mode) has every field.
func CheckCondition(cond string, docTypes func(string) bool, sch *schema.Schema) (*Selection, error) {
	sel, err := Parse(cond)
	if err != nil {
		return nil, fmt.Errorf("Failed to parse test and set condition: %w", err)
	}
	for _, r := range sel.refs {
		if !docTypes(r.docType) {
			return nil, fmt.Errorf("Failed to parse test and set condition: Document type '%s' not found at column %d when parsing selection '%s'", r.docType, r.pos+1, cond)
		}
	}
	for _, r := range sel.refs {
		if sch == nil || r.field == "" {
			continue
		}
		if _, ok := sch.Field(r.field); !ok {
			return nil, fmt.Errorf("Condition field '%s' could not be found, or is an imported field. Imported fields are not supported in conditional mutations.", r.field)
		}
	}
	return sel, nil
}

// UnknownType returns the first document type the selection names that
// known does not know, with its column (1-based), as a content node's
// parser fails on it (parser.yy: "Document type '%s' not found").
func (s *Selection) UnknownType(known func(string) bool) (string, int, bool) {
	for _, r := range s.refs {
		if !known(r.docType) {
			return r.docType, r.pos + 1, true
		}
	}
	return "", 0, false
}
