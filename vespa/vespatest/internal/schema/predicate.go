package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Predicate is a parsed value of a predicate field, in the grammar of
// Vespa's predicate-search-core parser (antlr3 Predicate.g): disjunctions of
// conjunctions of "key [not] in [v, ...]", "key [not] in [from..to]",
// "[not] (...)", true and false. Range partitions (written by Vespa's
// optimiser, never by a feed) are not read.
type Predicate struct {
	kind     byte // 's' feature set, 'r' range, 'n' negation, '&' conjunction, '|' disjunction, 'b' boolean
	key      string
	values   []string // a feature set's, sorted (FeatureSet keeps a TreeSet)
	from, to *int64   // a range's bounds, nil when open
	operands []*Predicate
	truth    bool
}

// ParsePredicate parses a predicate field's value.
func ParsePredicate(s string) (*Predicate, error) {
	p := &predParser{src: s}
	if err := p.lex(); err != nil {
		return nil, err
	}
	n, err := p.disjunction()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, fmt.Errorf("predicate %q: unexpected %q", s, p.toks[p.pos].text)
	}
	return n, nil
}

// String writes p as Vespa's Java Predicate.toString does, the form a get
// returns: keys and values quoted only when they hold anything but letters
// and digits, values separated by ", ", a disjunction inside a conjunction
// (and the reverse) in parentheses, a negated feature set as "k not in [...]"
// and any other negation as "not (...)".
func (p *Predicate) String() string {
	var b strings.Builder
	p.writeJava(&b)
	return b.String()
}

func (p *Predicate) writeJava(b *strings.Builder) {
	switch p.kind {
	case 's':
		p.writeJavaSet(b, "in")
	case 'r':
		javaQuote(b, p.key)
		b.WriteString(" in [")
		writeRange(b, p)
	case 'n':
		if op := p.operands[0]; op.kind == 's' {
			op.writeJavaSet(b, "not in")
			return
		}
		b.WriteString("not (")
		p.operands[0].writeJava(b)
		b.WriteByte(')')
	case '&', '|':
		sep, paren := " and ", byte('|')
		if p.kind == '|' {
			sep, paren = " or ", '&'
		}
		for i, op := range p.operands {
			if i > 0 {
				b.WriteString(sep)
			}
			if op.kind == paren {
				b.WriteByte('(')
				op.writeJava(b)
				b.WriteByte(')')
			} else {
				op.writeJava(b)
			}
		}
	case 'b':
		b.WriteString(strconv.FormatBool(p.truth))
	}
}

func (p *Predicate) writeJavaSet(b *strings.Builder, in string) {
	javaQuote(b, p.key)
	b.WriteString(" " + in + " [")
	for i, v := range p.values {
		if i > 0 {
			b.WriteString(", ")
		}
		javaQuote(b, v)
	}
	b.WriteByte(']')
}

func writeRange(b *strings.Builder, p *Predicate) {
	if p.from != nil {
		b.WriteString(strconv.FormatInt(*p.from, 10))
	}
	b.WriteString("..")
	if p.to != nil {
		b.WriteString(strconv.FormatInt(*p.to, 10))
	}
	b.WriteByte(']')
}

// DocsumString writes p as the content node writes it into a summary, the
// form a query hit holds: document's C++ PredicatePrinter
// (predicate_printer.cpp) quotes every key and value in single quotes,
// separates values with ",", puts every conjunction and disjunction in
// parentheses, and carries a negation down to the features ("'k' not in
// [...]") or the next operator ("not (...)"). The text ends with a newline:
// the docsum holds PredicateFieldValue::toString, which is print(), the
// printer's text and "\n" (searchsummary slime_filler.cpp;
// slime_filler_test.cpp insert_predicate expects "'foo' in ['bar']\n").
func (p *Predicate) DocsumString() string {
	var b strings.Builder
	p.writeDocsum(&b, false)
	b.WriteByte('\n')
	return b.String()
}

func (p *Predicate) writeDocsum(b *strings.Builder, negated bool) {
	in := " in ["
	if negated {
		in = " not in ["
	}
	switch p.kind {
	case 's':
		cQuote(b, p.key)
		b.WriteString(in)
		for i, v := range p.values {
			if i > 0 {
				b.WriteByte(',')
			}
			cQuote(b, v)
		}
		b.WriteByte(']')
	case 'r':
		cQuote(b, p.key)
		b.WriteString(in)
		writeRange(b, p)
	case 'n':
		p.operands[0].writeDocsum(b, !negated)
	case '&', '|':
		if negated {
			b.WriteString("not ")
		}
		sep := " and "
		if p.kind == '|' {
			sep = " or "
		}
		b.WriteByte('(')
		for i, op := range p.operands {
			if i > 0 {
				b.WriteString(sep)
			}
			op.writeDocsum(b, false)
		}
		b.WriteByte(')')
	case 'b':
		b.WriteString(strconv.FormatBool(p.truth)) // PredicatePrinter.visitTrue ignores negation
	}
}

// javaQuote writes s as Predicate.appendQuotedTo: bare when it is all ASCII
// letters and digits, else in single quotes with escapes. (Java tests the
// ASCII-encoded text for a character that is no letter or digit, and the
// encoder writes a non-ASCII character as an escape with a backslash, so a
// letter such as Cyrillic 'е' is quoted too.)
func javaQuote(b *strings.Builder, s string) {
	bare := s != ""
	for _, r := range s {
		if r >= utf8.RuneSelf || !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			bare = false
			break
		}
	}
	if bare {
		b.WriteString(s)
		return
	}
	cQuote(b, s)
}

// cQuote writes s in single quotes, escaping the quote, the backslash and
// control characters (vespalib StringUtil::escape with '\”).
func cQuote(b *strings.Builder, s string) {
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\x%02X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('\'')
}

// predTok is a token of the predicate language.
type predTok struct {
	kind byte // 'v' value (word or integer), 'q' quoted string, or the punctuation itself ('[', ']', '(', ')', ',', '.')
	text string
}

type predParser struct {
	src  string
	toks []predTok
	pos  int
}

func (p *predParser) lex() error {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '[' || c == ']' || c == '(' || c == ')' || c == ',':
			p.toks = append(p.toks, predTok{kind: c, text: string(c)})
			i++
		case c == '.' && i+1 < len(s) && s[i+1] == '.':
			p.toks = append(p.toks, predTok{kind: '.', text: ".."})
			i += 2
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					switch s[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case 'r':
						b.WriteByte('\r')
					case 'f':
						b.WriteByte('\f')
					case 'x':
						if j+2 < len(s) {
							if v, err := strconv.ParseUint(s[j+1:j+3], 16, 8); err == nil {
								b.WriteByte(byte(v))
								j += 2
								continue
							}
						}
						b.WriteByte('x')
					default:
						b.WriteByte(s[j])
					}
					continue
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return fmt.Errorf("predicate %q: unterminated string at %d", s, i)
			}
			p.toks = append(p.toks, predTok{kind: 'q', text: b.String()})
			i = j + 1
		case c == '-' || c == '+' || c == '_' || c < 0x80 && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))):
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] < 0x80 && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])))) {
				j++
			}
			p.toks = append(p.toks, predTok{kind: 'v', text: s[i:j]})
			i = j
		default:
			return fmt.Errorf("predicate %q: unexpected %q at %d", s, c, i)
		}
	}
	return nil
}

func (p *predParser) peek() (predTok, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return predTok{}, false
}

// word reports whether the next token is the keyword w (either case, as
// the grammar's OR/or).
func (p *predParser) word(w string) bool {
	t, ok := p.peek()
	return ok && t.kind == 'v' && (t.text == w || t.text == strings.ToUpper(w))
}

func (p *predParser) expect(kind byte) error {
	t, ok := p.peek()
	if !ok || t.kind != kind {
		return fmt.Errorf("predicate %q: expected %q", p.src, string(kind))
	}
	p.pos++
	return nil
}

func (p *predParser) disjunction() (*Predicate, error) {
	return p.operator('|', "or", p.conjunction)
}

func (p *predParser) conjunction() (*Predicate, error) {
	return p.operator('&', "and", p.unary)
}

func (p *predParser) operator(kind byte, word string, next func() (*Predicate, error)) (*Predicate, error) {
	first, err := next()
	if err != nil {
		return nil, err
	}
	ops := []*Predicate{first}
	for p.word(word) {
		p.pos++
		n, err := next()
		if err != nil {
			return nil, err
		}
		ops = append(ops, n)
	}
	if len(ops) == 1 {
		return first, nil
	}
	return &Predicate{kind: kind, operands: ops}, nil
}

func (p *predParser) unary() (*Predicate, error) {
	neg := false
	if p.word("not") && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == '(' {
		neg = true
		p.pos++
	}
	if t, ok := p.peek(); ok && t.kind == '(' {
		p.pos++
		d, err := p.disjunction()
		if err != nil {
			return nil, err
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
		if neg {
			d = &Predicate{kind: 'n', operands: []*Predicate{d}}
		}
		return d, nil
	}
	return p.leaf()
}

func (p *predParser) leaf() (*Predicate, error) {
	t, ok := p.peek()
	if !ok || (t.kind != 'v' && t.kind != 'q') {
		return nil, fmt.Errorf("predicate %q: expected a feature, true or false", p.src)
	}
	p.pos++
	if t.kind == 'v' && (p.pos >= len(p.toks) || p.toks[p.pos].kind != 'v') {
		switch t.text {
		case "true", "TRUE":
			return &Predicate{kind: 'b', truth: true}, nil
		case "false", "FALSE":
			return &Predicate{kind: 'b'}, nil
		}
	}
	neg := false
	if p.word("not") {
		neg = true
		p.pos++
	}
	if !p.word("in") {
		return nil, fmt.Errorf("predicate %q: expected 'in' after %q", p.src, t.text)
	}
	p.pos++
	if err := p.expect('['); err != nil {
		return nil, err
	}
	n := &Predicate{key: t.text}
	if err := p.feature(n); err != nil {
		return nil, err
	}
	if neg {
		n = &Predicate{kind: 'n', operands: []*Predicate{n}}
	}
	return n, nil
}

// feature reads what follows "key in [": a range or a list of values.
func (p *predParser) feature(n *Predicate) error {
	bound := func() (*int64, error) {
		t, ok := p.peek()
		if !ok || t.kind != 'v' {
			return nil, nil
		}
		v, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("predicate %q: range bound %q is not an integer", p.src, t.text)
		}
		p.pos++
		return &v, nil
	}
	isRange := p.pos+1 < len(p.toks) && (p.toks[p.pos].kind == '.' || p.toks[p.pos+1].kind == '.')
	if isRange {
		n.kind = 'r'
		var err error
		if n.from, err = bound(); err != nil {
			return err
		}
		if err := p.expect('.'); err != nil {
			return err
		}
		if n.to, err = bound(); err != nil {
			return err
		}
		return p.expect(']')
	}
	n.kind = 's'
	for {
		t, ok := p.peek()
		if !ok || (t.kind != 'v' && t.kind != 'q') {
			return fmt.Errorf("predicate %q: expected a value in the list of %q", p.src, n.key)
		}
		p.pos++
		n.values = append(n.values, t.text)
		if t, ok := p.peek(); ok && t.kind == ',' {
			p.pos++
			continue
		}
		break
	}
	slices.Sort(n.values)
	n.values = slices.Compact(n.values)
	return p.expect(']')
}
