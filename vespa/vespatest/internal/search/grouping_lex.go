package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/govespa/govespa/vespa/vespatest/internal/scan"
)

// This file is the lexer of the grouping language, as GroupingParser.jj's tokens: identifiers
// ([A-Za-z][A-Za-z0-9_@]*, dotted), numbers, strings in double or single quotes, punctuation.

// gToken is a token of the grouping language.
type gToken struct {
	kind byte // 'i' identifier, 'n' number, 's' string, 'p' punctuation, 0 end
	text string
	pos  int
}

// gLex splits grouping text into tokens.
func gLex(s string) ([]gToken, error) {
	var out []gToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(s) && (isIdentByte(s[j]) || s[j] == '@' ||
				s[j] == '.' && j+1 < len(s) && (s[j+1] >= 'a' && s[j+1] <= 'z' || s[j+1] >= 'A' && s[j+1] <= 'Z')) {
				j++
			}
			out = append(out, gToken{'i', s[i:j], i})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				(s[j] == '+' || s[j] == '-') && (s[j-1] == 'e' || s[j-1] == 'E') || s[j] == 'L' || s[j] == 'l') {
				j++
			}
			out = append(out, gToken{'n', s[i:j], i})
			i = j
		case c == '"' || c == '\'':
			v, n, err := gString(s[i:])
			if err != nil {
				return nil, fmt.Errorf("at %d: %w", i, err)
			}
			out = append(out, gToken{'s', v, i})
			i += n
		case strings.IndexByte("()[]<>,-+*/%$=;{}", c) >= 0:
			out = append(out, gToken{'p', s[i : i+1], i})
			i++
		default:
			return nil, fmt.Errorf("at %d: unexpected character %q", i, c)
		}
	}
	return append(out, gToken{pos: len(s)}), nil
}

// gString reads a quoted string as UnicodeUtilities.unquote does: \f \n \r \t, \uXXXX, and a
// backslash before any other character keeps that character.
func gString(s string) (string, int, error) {
	q := s[0]
	var b []uint16
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return string(utf16.Decode(b)), i + 1, nil
		case c == '\\' && i+1 < len(s):
			i++
			switch ctl, isCtl := scan.ControlEscape(s[i]); {
			case isCtl:
				b = append(b, uint16(ctl))
			case s[i] == 'u':
				if i+5 > len(s) {
					return "", 0, errors.New("invalid \\u escape")
				}
				v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
				if err != nil {
					return "", 0, errors.New("invalid \\u escape")
				}
				b = append(b, uint16(v))
				i += 4
			default:
				b = append(b, uint16(s[i]))
			}
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			b = utf16.AppendRune(b, r)
			i += n - 1
		}
	}
	return "", 0, errors.New("unterminated string")
}
