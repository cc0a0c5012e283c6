package feed

import (
	"encoding/binary"
	"math/bits"
)

// This file reads one operation object in a single pass over its bytes: it
// finds the object's end, validates it as strictly as encoding/json.Valid
// (string escapes and control bytes, the number grammar, literals, nesting
// up to the same depth), and picks out the operation's keys — put, update,
// remove or id, condition, create, fields — without building any value.
//
// It only ever says "this is a well-formed operation" or "not sure". For
// anything else (invalid JSON, a key the operation may not have, a duplicate,
// escapes in a top-level key, an object that does not fit in the bytes at
// hand) the reader takes its framing path (reader_scan.go, then
// encoding/json and decodeOperation), so every error reads as it always did.

// scanStatus is how the one-pass scan of an object ended.
type scanStatus uint8

const (
	scanOK      scanStatus = iota // a valid object and a well-formed operation
	scanMore                      // the bytes ended before the object did
	scanInvalid                   // not valid JSON
	scanNotOp                     // valid JSON, but not a well-formed operation
)

// maxNestingDepth is encoding/json's limit on nested arrays and objects; its
// Valid rejects deeper input, and so does the scanner.
const maxNestingDepth = 10000

// scan states: what may come next.
const (
	wantValue        = iota // after ':' and after ',' in an array
	wantValueOrClose        // after '['
	wantKey                 // after ',' in an object
	wantKeyOrClose          // after '{'
	wantColon               // after a key
	wantCommaOrClose        // after a value
)

// strPlain marks the bytes a JSON string holds as they are: everything but
// '"', '\\' and the control bytes below 0x20 (which encoding/json rejects;
// it does not check UTF-8, so neither does the scanner).
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return c-'0' < 10 || (c|0x20)-'a' < 6
}

// Negative results of the value scanners.
const (
	endMore    = -1 // the bytes ended inside the value
	endInvalid = -2 // not a valid value
)

// failed returns the status of a scan that ended at the negative result j.
func failed(j int) scanStatus {
	if j == endMore {
		return scanMore
	}
	return scanInvalid
}

// scanString returns the index just past the string whose opening quote is
// at b[i-1], and whether it holds an escape; or endInvalid or endMore.
func scanString(b []byte, i int) (int, bool) {
	esc := false
	for {
		i = skipPlain(b, i)
		if i >= len(b) {
			return endMore, esc
		}
		switch b[i] {
		case '"':
			return i + 1, esc
		case '\\':
			esc = true
			if i+1 >= len(b) {
				return endMore, esc
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(b) {
						return endMore, esc
					}
					if !isHex(b[k]) {
						return endInvalid, esc
					}
				}
				i += 6
			default:
				return endInvalid, esc
			}
		default: // a control byte
			return endInvalid, esc
		}
	}
}

// SWAR constants: a byte's value in each of a word's eight bytes.
const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = 0x2222222222222222
	bslash = 0x5c5c5c5c5c5c5c5c
	spaces = 0x2020202020202020
)

// skipPlain returns the index of the first byte of b at or after i that is
// not plain string content (see strPlain). It looks at eight bytes at a
// time: x-ones&^x has the high bit of the first zero byte of x set (a
// borrow may mark bytes after it, never one before), and a byte below 0x20
// is found the same way.
func skipPlain(b []byte, i int) int {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^quotes, x^bslash
		if m := ((q - ones) &^ q) | ((s - ones) &^ s) | ((x - spaces) &^ x); m&highs != 0 {
			return i + bits.TrailingZeros64(m&highs)/8
		}
		i += 8
	}
	for i < len(b) && strPlain[b[i]] {
		i++
	}
	return i
}

// scanDigits returns the index of the first non-digit of b at or after i.
// It looks at eight bytes at a time: a byte is a digit when its high nibble
// is 3 and adding 6 does not carry out of its low nibble. (A carry out of a
// byte that is no digit may spoil the bytes after it, never the first.)
func scanDigits(b []byte, i int) int {
	const (
		high   = 0xf0f0f0f0f0f0f0f0
		threes = 0x3030303030303030
		sixes  = 0x0606060606060606
	)
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		if nd := (x&high ^ threes) | ((x+sixes)&high ^ threes); nd != 0 {
			return i + bits.TrailingZeros64(nd)/8
		}
		i += 8
	}
	for i < len(b) && b[i]-'0' < 10 {
		i++
	}
	return i
}

// scanNumber returns the index just past the number that starts at b[i], or
// endInvalid or endMore. A number is never the last byte of an object, so
// one that reaches the end of b may go on.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
		if i >= len(b) {
			return endMore
		}
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c-'1' < 9:
		i = scanDigits(b, i+1)
	default:
		return endInvalid
	}
	if i >= len(b) {
		return endMore
	}
	if b[i] == '.' {
		if i = scanSomeDigits(b, i+1); i < 0 {
			return i
		}
	}
	if b[i]|0x20 == 'e' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = scanSomeDigits(b, i); i < 0 {
			return i
		}
	}
	return i
}

// scanSomeDigits returns the index just past the one or more digits that
// start at b[i] (a fraction's or an exponent's), or endInvalid when there is
// none, or endMore when they reach the end of b (the number may go on).
func scanSomeDigits(b []byte, i int) int {
	if i >= len(b) {
		return endMore
	}
	if b[i]-'0' >= 10 {
		return endInvalid
	}
	if i = scanDigits(b, i+1); i >= len(b) {
		return endMore
	}
	return i
}

// scanLiteral returns the index just past the literal word at b[i], or
// endInvalid or endMore.
func scanLiteral(b []byte, i int, word string) int {
	rest := b[i:]
	if len(rest) < len(word) {
		if string(rest) == word[:len(rest)] {
			return endMore
		}
		return endInvalid
	}
	if string(rest[:len(word)]) != word {
		return endInvalid
	}
	return i + len(word)
}

// span is a value's place in the object: b[start:end].
type span struct {
	start, end int
	esc        bool // a string with an escape
}

// opKeys collects the top-level keys of an operation object.
type opKeys struct {
	kind       opKind
	id         span
	cond       span
	fields     span
	haveCond   bool
	haveCreate bool
	haveFields bool
	create     bool
	// bad is set by anything decodeOperation would reject: the reader then
	// decodes the object the slow way, for the error it always gave.
	bad bool
}

// add takes the top-level pair key: b[vs:ve].
func (k *opKeys) add(b []byte, key span, vs, ve int, esc bool) {
	if !key.esc {
		k.addNamed(string(b[key.start+1:key.end-1]), b, span{vs, ve, esc})
		return
	}
	name, err := unquote(b[key.start:key.end])
	if err != nil {
		k.bad = true
		return
	}
	k.addNamed(name, b, span{vs, ve, esc})
}

// addNamed takes the top-level pair name: b[v.start:v.end].
func (k *opKeys) addNamed(name string, b []byte, v span) {
	c := b[v.start]
	switch name {
	case "put", "id":
		k.setID(kindPut, c, v)
	case "update":
		k.setID(kindUpdate, c, v)
	case "remove":
		k.setID(kindRemove, c, v)
	case "condition":
		switch {
		case k.haveCond:
			k.bad = true
		case c == '"':
			k.cond = v
		case c != 'n': // null is no condition
			k.bad = true
		}
		k.haveCond = true
	case "create":
		switch {
		case k.haveCreate:
			k.bad = true
		case c == 't':
			k.create = true
		case c != 'f' && c != 'n':
			k.bad = true
		}
		k.haveCreate = true
	case "fields":
		if k.haveFields || c != '{' {
			k.bad = true
		}
		k.fields, k.haveFields = v, true
	default:
		k.bad = true
	}
}

// setID takes the document ID of an operation of kind; c is the value's
// first byte.
func (k *opKeys) setID(kind opKind, c byte, v span) {
	if k.kind != 0 || c != '"' {
		k.bad = true
	}
	k.kind, k.id = kind, v
}

// ok reports whether the keys make a well-formed operation.
func (k *opKeys) ok() bool {
	if k.bad || k.kind == 0 || k.id.end-k.id.start <= 2 {
		return false
	}
	return k.haveFields == (k.kind != kindRemove)
}

// stringOf returns the string value at s, decoded as decodeOperation does.
func stringOf(b []byte, s span) (string, bool) {
	if !s.esc {
		return string(b[s.start+1 : s.end-1]), true
	}
	v, err := unquote(b[s.start:s.end])
	return v, err == nil
}

// opScanner reads operation objects in one pass. Its stack is kept between
// objects, so that nesting costs no allocation once it is as deep as the
// feed's.
type opScanner struct {
	stack []byte // the open arrays and objects: '[' or '{'
}

// scan reads the operation object at the start of b, which is '{'. On
// scanOK it returns the object's length, the newlines in it and the
// operation (without its line and offset); on scanNotOp the length and the
// newlines.
func (s *opScanner) scan(b []byte) (st scanStatus, n, lines int, op rawOp) {
	stack := append(s.stack[:0], '{')
	defer func() { s.stack = stack[:0] }()
	var keys opKeys
	var key span
	valStart := 0
	state := wantKeyOrClose
	i := 1
	for {
		if i >= len(b) {
			return scanMore, 0, 0, op
		}
		c := b[i]
		if c <= ' ' {
			for {
				switch c {
				case '\n':
					lines++
				case ' ', '\t', '\r':
				default:
					return scanInvalid, 0, 0, op
				}
				i++
				if i >= len(b) {
					return scanMore, 0, 0, op
				}
				if c = b[i]; c > ' ' {
					break
				}
			}
		}
		switch state {
		case wantCommaOrClose:
			top := stack[len(stack)-1]
			switch {
			case c == ',' && top == '{':
				i++
				state = wantKey
				continue
			case c == ',':
				// In an array; read a run of numbers (a vector) here.
				i++
				state = wantValue
				for i < len(b) && (b[i]-'0' < 10 || b[i] == '-') {
					j := scanNumber(b, i)
					if j < 0 {
						return failed(j), 0, 0, op
					}
					i = j
					if b[i] != ',' {
						state = wantCommaOrClose
						break
					}
					i++
				}
				continue
			case c == '}' && top == '{', c == ']' && top == '[':
				// handled below
			default:
				return scanInvalid, 0, 0, op
			}
		case wantColon:
			if c != ':' {
				return scanInvalid, 0, 0, op
			}
			i++
			state = wantValue
			continue
		case wantKey, wantKeyOrClose:
			if c == '"' {
				j, esc := scanString(b, i+1)
				if j < 0 {
					return failed(j), 0, 0, op
				}
				if len(stack) == 1 {
					key = span{i, j, esc}
				}
				i = j
				state = wantColon
				continue
			}
			if c != '}' || state != wantKeyOrClose {
				return scanInvalid, 0, 0, op
			}
		default: // wantValue, wantValueOrClose
			if c == ']' && state == wantValueOrClose {
				break // handled below
			}
			if len(stack) == 1 {
				valStart = i
			}
			j := 0
			esc := false
			switch c {
			case '{', '[':
				if len(stack) == maxNestingDepth {
					return scanInvalid, 0, 0, op
				}
				stack = append(stack, c)
				i++
				state = wantKeyOrClose
				if c == '[' {
					state = wantValueOrClose
				}
				continue
			case '"':
				j, esc = scanString(b, i+1)
			case 't':
				j = scanLiteral(b, i, "true")
			case 'f':
				j = scanLiteral(b, i, "false")
			case 'n':
				j = scanLiteral(b, i, "null")
			default:
				j = scanNumber(b, i)
			}
			if j < 0 {
				return failed(j), 0, 0, op
			}
			i = j
			state = wantCommaOrClose
			if len(stack) == 1 {
				keys.add(b, key, valStart, i, esc)
			}
			continue
		}
		// c closes the innermost array or object.
		i++
		stack = stack[:len(stack)-1]
		state = wantCommaOrClose
		switch len(stack) {
		case 0:
			return s.finish(b[:i], &keys, lines)
		case 1:
			keys.add(b, key, valStart, i, false)
		}
	}
}

// finish returns the operation of the valid object b.
func (s *opScanner) finish(b []byte, keys *opKeys, lines int) (scanStatus, int, int, rawOp) {
	if !keys.ok() {
		return scanNotOp, len(b), lines, rawOp{}
	}
	op := rawOp{kind: keys.kind, create: keys.create}
	var ok bool
	if op.id, ok = stringOf(b, keys.id); !ok {
		return scanNotOp, len(b), lines, rawOp{}
	}
	if keys.cond.end > 0 {
		if op.condition, ok = stringOf(b, keys.cond); !ok {
			return scanNotOp, len(b), lines, rawOp{}
		}
	}
	if keys.haveFields {
		op.body = wrapFields(b[keys.fields.start:keys.fields.end])
	}
	return scanOK, len(b), lines, op
}
