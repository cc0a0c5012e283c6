package search

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/govespa/govespa/vespa/vespatest/internal/scan"
)

// tokKind is the kind of a YQL token.
type tokKind int

const (
	tokEOF    tokKind = iota
	tokIdent          // select, title, my_field.key, sources
	tokString         // "text" or 'text', already unescaped
	tokNumber         // 12, -3.5, 7L, 1e3
	tokParam          // @name
	tokPunct          // ( ) { } [ ] , : ; * | ! = < <= > >=
	// tokGrouping is yqlplus.g4's VESPA_GROUPING: all or each, then a bracketed argument whose
	// ( [ < and ) ] > balance (strings are not looked at), optionally followed by as(...) and
	// where(...). Its text is the raw source of the token.
	tokGrouping
)

// token is one lexical token of a YQL statement.
type token struct {
	kind tokKind
	text string // the identifier, the unescaped string, the number text, the punctuation
	pos  int    // byte offset in the statement
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "<EOF>"
	case tokString:
		return strconv.Quote(t.text)
	case tokParam:
		return "@" + t.text
	}
	return t.text
}

// syntaxError is a YQL syntax error at a position of the statement.
type syntaxError struct {
	pos int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// lex splits a YQL statement into tokens. It never panics; malformed input gives a *syntaxError.
func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += w
		case r == '"' || r == '\'':
			str, n, err := lexString(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tokString, text: str, pos: i})
			i += n
		case r == '@':
			j := i + 1
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			if j == i+1 {
				return nil, lexErr(s, i, "expected a parameter name after '@'")
			}
			toks = append(toks, token{kind: tokParam, text: s[i+1 : j], pos: i})
			i = j
		case r >= '0' && r <= '9' || (r == '-' || r == '.') && i+1 < len(s) && isDigitOrDot(s[i+1]) && numberMayStart(toks):
			j := lexNumberEnd(s, i)
			toks = append(toks, token{kind: tokNumber, text: s[i:j], pos: i})
			i = j
		case (r == 'a' || r == 'A' || r == 'e' || r == 'E') && groupingEnd(s, i) > 0:
			j := groupingEnd(s, i)
			toks = append(toks, token{kind: tokGrouping, text: s[i:j], pos: i})
			i = j
		case r == '_' || unicode.IsLetter(r):
			j := i
			for j < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[j:])
				// yqlplus.g4's IDENTIFIER takes '-' after the first character (my-field).
				if r2 == '_' || r2 == '.' || r2 == '-' || unicode.IsLetter(r2) || unicode.IsDigit(r2) {
					j += w2
					continue
				}
				break
			}
			toks = append(toks, token{kind: tokIdent, text: s[i:j], pos: i})
			i = j
		case r == '-' && len(s)-i >= 9 && strings.EqualFold(s[i+1:i+9], "infinity"):
			toks = append(toks, token{kind: tokIdent, text: s[i : i+9], pos: i})
			i += 9
		case strings.ContainsRune("(){}[],:;*|!", r):
			toks = append(toks, token{kind: tokPunct, text: string(r), pos: i})
			i++
		case r == '<' || r == '>' || r == '=':
			if i+1 < len(s) && s[i+1] == '=' && r != '=' {
				toks = append(toks, token{kind: tokPunct, text: s[i : i+2], pos: i})
				i += 2
				continue
			}
			toks = append(toks, token{kind: tokPunct, text: string(r), pos: i})
			i++
		default:
			return nil, lexErr(s, i, fmt.Sprintf("token recognition error at: '%s'", string(r)))
		}
	}
	toks = append(toks, token{kind: tokEOF, pos: len(s)})
	return toks, nil
}

// groupingEnd returns the end of a VESPA_GROUPING token starting at s[i], or 0 when none starts
// there: ('all' | 'each') WS* ARG WS* ('as' WS* ARG WS*)? ('where' WS* ARG)?, where ARG is a
// bracketed text whose brackets balance. The lexer is case-insensitive, as Vespa's.
func groupingEnd(s string, i int) int {
	var j int
	switch {
	case len(s)-i >= 3 && strings.EqualFold(s[i:i+3], "all"):
		j = i + 3
	case len(s)-i >= 4 && strings.EqualFold(s[i:i+4], "each"):
		j = i + 4
	default:
		return 0
	}
	j = groupingArg(s, skipWS(s, j))
	if j < 0 {
		return 0
	}
	end := j
	k := skipWS(s, j)
	if len(s)-k >= 2 && strings.EqualFold(s[k:k+2], "as") {
		if a := groupingArg(s, skipWS(s, k+2)); a > 0 {
			end = a
			k = skipWS(s, a)
		}
	}
	if len(s)-k >= 5 && strings.EqualFold(s[k:k+5], "where") {
		if a := groupingArg(s, skipWS(s, k+5)); a > 0 {
			end = a
		}
	}
	return end
}

// groupingArg returns the end of a VESPA_GROUPING_ARG starting at s[i], or -1.
func groupingArg(s string, i int) int {
	if i >= len(s) || !strings.ContainsRune("([<", rune(s[i])) {
		return -1
	}
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '(', '[', '<':
			depth++
		case ')', ']', '>':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func isDigitOrDot(b byte) bool { return b >= '0' && b <= '9' || b == '.' }

// numberMayStart reports whether a leading '-' or '.' begins a number: it does unless the previous
// token is a value (then '-' would be a binary operator, which YQL does not have anyway).
func numberMayStart(toks []token) bool {
	if len(toks) == 0 {
		return true
	}
	p := toks[len(toks)-1]
	return p.kind == tokPunct && p.text != ")" && p.text != "]" && p.text != "}" || p.kind == tokIdent
}

func lexNumberEnd(s string, i int) int {
	j := i
	if s[j] == '-' {
		j++
	}
	j = scan.DecimalEnd(s, j)
	if j < len(s) && (s[j] == 'L' || s[j] == 'l') {
		j++
	}
	return j
}

// lexString reads a quoted literal starting at s[i] and returns its unescaped value and length.
func lexString(s string, i int) (string, int, error) {
	q := s[i]
	var b strings.Builder
	j := i + 1
	for j < len(s) {
		c := s[j]
		switch {
		case c == q:
			return b.String(), j + 1 - i, nil
		case c == '\\':
			if j+1 >= len(s) {
				return "", 0, lexErr(s, j, "unterminated escape in string literal")
			}
			e := s[j+1]
			switch ctl, isCtl := scan.ControlEscape(e); {
			case isCtl:
				b.WriteByte(ctl)
			case e == '"' || e == '\'' || e == '\\' || e == '/':
				b.WriteByte(e)
			case e == 'b':
				b.WriteByte('\b')
			case e == 'u':
				if j+6 > len(s) {
					return "", 0, lexErr(s, j, "invalid unicode escape in string literal")
				}
				v, err := strconv.ParseUint(s[j+2:j+6], 16, 16)
				if err != nil {
					return "", 0, lexErr(s, j, "invalid unicode escape in string literal")
				}
				b.WriteRune(rune(v))
				j += 4
			default:
				return "", 0, lexErr(s, j, fmt.Sprintf("invalid escape '\\%c' in string literal", e))
			}
			j += 2
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", 0, lexErr(s, i, "unterminated string literal")
}

func lexErr(s string, pos int, msg string) error {
	return &syntaxError{pos: pos, msg: fmt.Sprintf("query:L%d:%d %s", lineOf(s, pos), colOf(s, pos), msg)}
}

func lineOf(s string, pos int) int { return strings.Count(s[:min(pos, len(s))], "\n") + 1 }

func colOf(s string, pos int) int {
	pos = min(pos, len(s))
	return pos - (strings.LastIndexByte(s[:pos], '\n') + 1)
}
