package feed

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// opKind is the kind of a feed-file operation.
type opKind uint8

const (
	kindPut opKind = iota + 1
	kindUpdate
	kindRemove
)

// String returns "put", "update" or "remove".
func (k opKind) String() string {
	switch k {
	case kindPut:
		return "put"
	case kindUpdate:
		return "update"
	case kindRemove:
		return "remove"
	}
	return "unknown"
}

// rawOp is one decoded feed-file operation before its document ID is parsed.
type rawOp struct {
	kind      opKind
	id        string
	body      []byte // {"fields":<the input's bytes>}; nil for remove
	condition string
	create    bool
	line      int
	offset    int64
	element   int // see ParseError.Element
}

// fieldsPrefix and fieldsSuffix wrap a raw fields object into the request
// body /document/v1 expects.
const (
	fieldsPrefix = `{"fields":`
	fieldsSuffix = `}`
)

// wrapFields returns {"fields":<fields>} in one allocation.
func wrapFields(fields []byte) []byte {
	b := make([]byte, 0, len(fieldsPrefix)+len(fields)+len(fieldsSuffix))
	b = append(b, fieldsPrefix...)
	b = append(b, fields...)
	return append(b, fieldsSuffix...)
}

// decodeOperation reads the keys of one operation object b, which is valid
// JSON. The "fields" value is kept as it is in the input. On error, the
// returned rawOp still carries the ID when one was read.
func decodeOperation(b []byte) (rawOp, error) {
	var op rawOp
	var fields []byte
	haveFields, haveCondition, haveCreate := false, false, false
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return op, errors.New("an operation must be a JSON object")
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return op, errors.New("no document ID: the operation has no put, update, remove or id key")
	}
	for i < len(b) {
		keyEnd := skipValue(b, i)
		key, err := unquote(b[i:keyEnd])
		if err != nil {
			return op, err
		}
		i = skipWS(b, keyEnd)
		i = skipWS(b, i+1) // ':'
		vEnd := skipValue(b, i)
		v := b[i:vEnd]
		switch key {
		case "put", "id", "update", "remove":
			k := kindPut
			if key == "update" {
				k = kindUpdate
			} else if key == "remove" {
				k = kindRemove
			}
			if op.kind != 0 {
				return op, fmt.Errorf("more than one of put, update, remove and id in one operation (%q after %q)", key, op.kind)
			}
			s, err := stringValue(key, v)
			if err != nil {
				return op, err
			}
			op.kind, op.id = k, s
		case "condition":
			if haveCondition {
				return op, errors.New(`duplicate key "condition" in an operation`)
			}
			haveCondition = true
			if len(v) > 0 && v[0] == 'n' { // null
				break
			}
			s, err := stringValue(key, v)
			if err != nil {
				return op, err
			}
			op.condition = s
		case "create":
			if haveCreate {
				return op, errors.New(`duplicate key "create" in an operation`)
			}
			haveCreate = true
			switch string(v) {
			case "true":
				op.create = true
			case "false", "null":
			default:
				return op, fmt.Errorf(`"create" must be true or false, not %.40s`, v)
			}
		case "fields":
			if haveFields {
				return op, errors.New(`duplicate key "fields" in an operation`)
			}
			if len(v) == 0 || v[0] != '{' {
				return op, fmt.Errorf(`"fields" must be a JSON object, not %.40s`, v)
			}
			fields, haveFields = v, true
		default:
			return op, fmt.Errorf("unknown key %q in an operation", key)
		}
		i = skipWS(b, vEnd)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		break // '}'
	}
	switch {
	case op.kind == 0:
		return op, errors.New("no document ID: the operation has no put, update, remove or id key")
	case op.id == "":
		return op, fmt.Errorf("empty document ID in %s", op.kind)
	case op.kind == kindRemove && haveFields:
		return op, errors.New(`a remove takes no "fields"`)
	case op.kind != kindRemove && !haveFields:
		return op, fmt.Errorf(`a %s needs "fields"`, op.kind)
	}
	if haveFields {
		op.body = wrapFields(fields)
	}
	return op, nil
}

// stringValue returns the JSON string v, or an error naming key.
func stringValue(key string, v []byte) (string, error) {
	if len(v) == 0 || v[0] != '"' {
		return "", fmt.Errorf("%q must be a string, not %.40s", key, v)
	}
	return unquote(v)
}

// unquote decodes the JSON string literal s.
func unquote(s []byte) (string, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", fmt.Errorf("expected a string, found %.40s", s)
	}
	inner := s[1 : len(s)-1]
	for _, c := range inner {
		if c == '\\' {
			// encoding/json would put U+FFFD in place of bytes that are not
			// UTF-8: refuse them, as the unescaped path's callers do.
			if !utf8.Valid(inner) {
				return "", errors.New("a string that is not valid UTF-8")
			}
			var out string
			if err := json.Unmarshal(s, &out); err != nil {
				return "", fmt.Errorf("bad string %.40s: %w", s, err)
			}
			return out, nil
		}
	}
	return string(inner), nil
}

// skipWS returns the index of the first non-space byte of b at or after i.
func skipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value that starts at b[i].
// b is valid JSON, so only strings and nesting need care.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(b)
	case '{', '[':
		for j, depth := i, 0; j < len(b); {
			switch c := b[j]; {
			case c == '"':
				j = skipValue(b, j)
				continue
			case c == '{' || c == '[':
				depth++
			case (c == '}' || c == ']') && depth == 1:
				return j + 1
			case c == '}' || c == ']':
				depth--
			}
			j++
		}
		return len(b)
	default:
		j := i
		for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		return j
	}
}
