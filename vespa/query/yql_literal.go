package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds the lexical layer of the YQL builder: string literals,
// numbers, identifiers and parameter references. It follows the lexer of
// Vespa's YQL parser (container-search src/main/antlr4/.../yqlplus.g4 and
// StringUnescaper, as of Vespa 8.738):
//
//	STRING  : '"' ( ESC_SEQ | ~('\\' | '"') )* '"'
//	ESC_SEQ : '\\' ('b'|'t'|'n'|'f'|'r'|'"'|'\''|'\\'|'/') | '\\' 'u' HEX HEX HEX HEX
//	ID      : ('a'..'z'|'A'..'Z'|'_') ('a'..'z'|'A'..'Z'|'0'..'9'|'_'|'-')*
//	INT     : '-'? DIGIT+        (read as a 32-bit int when it fits)
//	LONG_INT: '-'? DIGIT+ ('L'|'l')
//
// Keywords are matched without regard to case. The grammar dropped ':' from
// identifiers in December 2021, so "a:b" is not a name. A parameter is
// AT ident: @ and an identifier, with no dots.

// ErrInvalidYQL is returned (wrapped) by [Builder.YQL] when a part of the
// statement cannot be rendered safely: a bad identifier, an unsupported value,
// invalid UTF-8, a non-finite number or a malformed grouping expression.
var ErrInvalidYQL = errors.New("query: invalid YQL")

// Param refers to a request parameter from inside a YQL statement: it renders
// as @name and its value travels separately, in [Request.Params], so it is
// never parsed as YQL. A Param may stand wherever a literal value is accepted
// (comparisons, in, annotations).
type Param string

// reserved holds the lexer tokens that may not be used as a field or source
// name: they are keywords the grammar does not accept as identifiers (its
// keyword_as_ident rule lets select, limit, offset, where, order, by, desc,
// output, count, sources, matches and like through, so they are not here).
var reserved = map[string]bool{
	"and": true, "or": true, "in": true, "contains": true, "true": true, "false": true,
	"null": true, "from": true, "as": true, "timeout": true, "asc": true,
	// "not" followed by " in" lexes as the NOT_IN operator.
	"not": true,
	// "all" or "each" followed by a bracket lexes as a VESPA_GROUPING token:
	// all < 5 and b > 3 would swallow everything up to the '>'.
	"all": true, "each": true,
}

// quoteString renders s as a double-quoted YQL string literal. Quotes and
// backslashes are escaped, control characters and the line and paragraph
// separators become \uXXXX (or their short escapes), and every other
// character is written as UTF-8. s must be valid UTF-8.
func quoteString(b *strings.Builder, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: string %q is not valid UTF-8", ErrInvalidYQL, s)
	}
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x7f {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != '\u2028' && r != '\u2029' {
				i += size
				continue
			}
			b.WriteString(s[start:i])
			fmt.Fprintf(b, `\u%04x`, r)
			i += size
			start = i
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			fmt.Fprintf(b, `\u%04x`, c)
		}
		i++
		start = i
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
	return nil
}

// checkIdent validates one identifier segment against the YQL lexer's ID rule
// and the reserved keywords.
func checkIdent(s string) error {
	if s == "" {
		return fmt.Errorf("%w: empty identifier", ErrInvalidYQL)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return fmt.Errorf("%w: identifier %q: character %q not allowed", ErrInvalidYQL, s, rune(c))
		}
	}
	if reserved[strings.ToLower(s)] {
		return fmt.Errorf("%w: identifier %q is a YQL keyword", ErrInvalidYQL, s)
	}
	return nil
}

// checkName validates a field or source name: identifiers joined by dots
// (struct fields and map keys such as "person.name").
func checkName(s string) error {
	if s == "" {
		return fmt.Errorf("%w: empty field name", ErrInvalidYQL)
	}
	for seg := range strings.SplitSeq(s, ".") {
		if err := checkIdent(seg); err != nil {
			return err
		}
	}
	return nil
}

// writeInt writes an integer literal; values outside the 32-bit range get the
// L suffix so every Vespa version reads them as a long.
func writeInt(b *strings.Builder, v int64) {
	b.WriteString(strconv.FormatInt(v, 10))
	if v < math.MinInt32 || v > math.MaxInt32 {
		b.WriteByte('L')
	}
}

// writeFloat writes a finite float literal in a form the YQL lexer reads as a
// FLOAT (always with a '.' or an exponent).
func writeFloat(b *strings.Builder, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%w: number %v is not finite", ErrInvalidYQL, f)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	b.WriteString(s)
	return nil
}

// writeLiteral renders a Go value as a YQL scalar literal or parameter
// reference. Supported: string, bool, all integer and float kinds,
// json.Number (validated), and Param.
func writeLiteral(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case string:
		return quoteString(b, x)
	case Param:
		if err := checkIdent(string(x)); err != nil {
			return err
		}
		b.WriteByte('@')
		b.WriteString(string(x))
		return nil
	case bool:
		b.WriteString(strconv.FormatBool(x))
		return nil
	case int, int8, int16, int32, int64:
		writeInt(b, reflect.ValueOf(x).Int())
	case uint, uint8, uint16, uint32, uint64:
		return writeUint(b, reflect.ValueOf(x).Uint())
	case float32:
		return writeFloat(b, float64(x))
	case float64:
		return writeFloat(b, x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			writeInt(b, i)
			return nil
		}
		f, err := x.Float64()
		if err != nil {
			return fmt.Errorf("%w: number %q: %w", ErrInvalidYQL, string(x), err)
		}
		return writeFloat(b, f)
	case nil:
		return fmt.Errorf("%w: nil value", ErrInvalidYQL)
	default:
		return fmt.Errorf("%w: unsupported value type %T", ErrInvalidYQL, v)
	}
	return nil
}

func writeUint(b *strings.Builder, v uint64) error {
	if v > math.MaxInt64 {
		return fmt.Errorf("%w: integer %d does not fit in a signed 64-bit long", ErrInvalidYQL, v)
	}
	writeInt(b, int64(v))
	return nil
}
