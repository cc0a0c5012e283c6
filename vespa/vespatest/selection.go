package vespatest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The document selection language subset: true, false, document type names,
// <type>.<field> and id, id.namespace, id.type, id.user, id.group,
// id.specific compared with == != < <= > >= =~ (regex) and = (glob) against
// string and number literals and null; and, or, not and parentheses.
// Evaluation is three-valued as in Vespa: comparing what is not comparable
// (a missing field with a number, a field of another document type) is
// "invalid", which selects nothing and stays invalid under not.

type tri int

const (
	triFalse tri = iota
	triTrue
	triInvalid
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

// selection is a parsed document selection.
type selection struct {
	root selNode
}

type selNode interface {
	eval(*selDoc) tri
}

// selDoc is the document a selection is evaluated on.
type selDoc struct {
	id     docID
	raw    []byte
	fields object
	parsed bool
}

func (d *selDoc) field(name string) (json.RawMessage, bool) {
	if !d.parsed {
		d.parsed = true
		d.fields, _ = parseObject(d.raw)
	}
	return d.fields.get(name)
}

// matches evaluates the selection on one document.
func (s *selection) matches(id docID, fields []byte) (bool, error) {
	return s.root.eval(&selDoc{id: id, raw: fields}) == triTrue, nil
}

func parseSelection(text string) (*selection, error) {
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
	return &selection{root: n}, nil
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
		case c >= '0' && c <= '9' || c == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				(s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
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
			for _, cand := range []string{"==", "!=", "<=", ">=", "=~", "<", ">", "="} {
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
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
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

func (p *selParser) or() (selNode, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for isKeyword(p.peek(), "or") {
		p.next()
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		left = orNode{left, right}
	}
	return left, nil
}

func (p *selParser) and() (selNode, error) {
	left, err := p.not()
	if err != nil {
		return nil, err
	}
	for isKeyword(p.peek(), "and") {
		p.next()
		right, err := p.not()
		if err != nil {
			return nil, err
		}
		left = andNode{left, right}
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
		return notNode{n}, nil
	}
	return p.comparison()
}

func (p *selParser) comparison() (selNode, error) {
	if p.peek().kind == tokLParen {
		// A parenthesised expression, unless it is a value compared below.
		p.next()
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tokRParen {
			return nil, p.unexpected(t)
		}
		return n, nil
	}
	left, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tokOp {
		return left.asBool()
	}
	op := p.next().text
	right, err := p.value()
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

// value parses an operand: a literal, id or id.x, a type name, or type.field.
func (p *selParser) value() (valueNode, error) {
	t := p.next()
	switch t.kind {
	case tokString:
		return literal{t.text}, nil
	case tokNumber:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, p.unexpected(t)
		}
		return literal{f}, nil
	case tokIdent:
	default:
		return nil, p.unexpected(t)
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
	return fieldNode{docType: t.text, path: path}, nil
}
