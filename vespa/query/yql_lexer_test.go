package query

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// token is one lexical token of a YQL statement, as Vespa's lexer
// (yqlplus.g4) splits it. It exists only to check the builder's output.
type token struct {
	kind string // "id", "str", "num", "punct"
	text string // for "str": the unescaped value
}

// lexYQL splits s into tokens following Vespa's lexer rules for the subset
// the builder emits. It fails on anything it does not understand, such as
// an unknown escape or an unterminated string.
func lexYQL(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '"' || c == '\'':
			v, n, err := lexString(s[i:])
			if err != nil {
				return nil, fmt.Errorf("at %d: %w", i, err)
			}
			out = append(out, token{"str", v})
			i += n
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_':
			j := i + 1
			for j < len(s) && (isIDChar(s[j])) {
				j++
			}
			out = append(out, token{"id", s[i:j]})
			i = j
		case c >= '0' && c <= '9' || c == '-' && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '.'):
			j := i + 1
			for j < len(s) && strings.IndexByte("0123456789.eE+-Ll", s[j]) >= 0 {
				if (s[j] == '+' || s[j] == '-') && s[j-1] != 'e' && s[j-1] != 'E' {
					break
				}
				j++
			}
			out = append(out, token{"num", s[i:j]})
			i = j
		case c == '<' || c == '>' || c == '!' || c == '=':
			if i+1 < len(s) && s[i+1] == '=' {
				out = append(out, token{"punct", s[i : i+2]})
				i += 2
			} else {
				out = append(out, token{"punct", s[i : i+1]})
				i++
			}
		case strings.IndexByte("(){}[],:*@|.;-", c) >= 0:
			out = append(out, token{"punct", s[i : i+1]})
			i++
		default:
			return nil, fmt.Errorf("at %d: unexpected %q", i, c)
		}
	}
	return out, nil
}

func isIDChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// lexString reads one quoted string at the start of s, returning its value
// and length, with the unescaping of Vespa's StringUnescaper (\uXXXX is one
// UTF-16 code unit, so surrogate pairs are joined).
func lexString(s string) (string, int, error) {
	q := s[0]
	var units []uint16
	var b strings.Builder
	flush := func() {
		if len(units) > 0 {
			b.WriteString(string(utf16.Decode(units)))
			units = units[:0]
		}
	}
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == q:
			flush()
			return b.String(), i + 1, nil
		case c == '\\':
			if i+1 >= len(s) {
				return "", 0, fmt.Errorf("dangling backslash")
			}
			e := s[i+1]
			if e == 'u' {
				if i+6 > len(s) {
					return "", 0, fmt.Errorf("short \\u escape")
				}
				v, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
				if err != nil {
					return "", 0, fmt.Errorf("bad \\u escape %q", s[i:i+6])
				}
				units = append(units, uint16(v))
				i += 6
				continue
			}
			flush()
			r, ok := map[byte]byte{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', '"': '"', '\'': '\'', '\\': '\\', '/': '/'}[e]
			if !ok {
				return "", 0, fmt.Errorf("unknown escape \\%c", e)
			}
			b.WriteByte(r)
			i += 2
		default:
			flush()
			r, n := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r)
			i += n
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// shape returns the token kinds and the non-string texts, the structure of a
// statement with its string values masked.
func shape(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		if t.kind == "str" {
			b.WriteString("<str> ")
			continue
		}
		b.WriteString(t.text)
		b.WriteByte(' ')
	}
	return b.String()
}
