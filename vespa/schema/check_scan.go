package schema

import (
	"bytes"
	"errors"
)

// errJSON is JSON the check cannot read; the caller names the field.
var errJSON = errors.New("malformed JSON")

// The check reads values in place, without decoding them into maps and
// slices: a 384-cell tensor costs a scan, not 384 allocations.

// skipSpace returns the index of the first non-blank byte of b at or
// after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just after the JSON value starting at b[i]
// (no blanks before it).
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			if !structural[b[j]] {
				continue
			}
			if b[j] == '[' {
				if end, ok := flatArrayEnd(b, j); ok {
					if depth == 0 {
						return end, nil
					}
					j = end - 1
					continue
				}
			}
			switch b[j] {
			case '"':
				end, err := stringEnd(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errJSON
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return 0, errJSON
	}
	return j, nil
}

// flatArrayEnd returns the index just after the array at b[i] when it
// holds no string, array or object (an array of numbers: a tensor's cells),
// found with fast byte searches.
func flatArrayEnd(b []byte, i int) (int, bool) {
	j := bytes.IndexByte(b[i+1:], ']')
	if j < 0 {
		return 0, false
	}
	seg := b[i+1 : i+1+j]
	if bytes.IndexByte(seg, '"') >= 0 || bytes.IndexByte(seg, '[') >= 0 || bytes.IndexByte(seg, '{') >= 0 {
		return 0, false
	}
	return i + 2 + j, true
}

// structural marks the bytes that valueEnd looks at inside a container.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// stringEnd returns the index just after the JSON string at b[i].
func stringEnd(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		if b[j] != '\\' && b[j] != '"' {
			continue
		}
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errJSON
}

// eachElem calls fn with each element of the JSON array v.
func eachElem(v []byte, fn func(i int, e []byte) error) error {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return errJSON
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == ']' {
		return nil
	}
	for n := 0; ; n++ {
		end, err := valueEnd(v, i)
		if err != nil {
			return err
		}
		if err := fn(n, v[i:end]); err != nil {
			return err
		}
		i = skipSpace(v, end)
		if i >= len(v) {
			return errJSON
		}
		if v[i] == ']' {
			return nil
		}
		if v[i] != ',' {
			return errJSON
		}
		i = skipSpace(v, i+1)
	}
}

// eachMember calls fn with each member of the JSON object v: its key
// (unquoted) and its value.
func eachMember(v []byte, fn func(key string, val []byte) error) error {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return errJSON
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return nil
	}
	for {
		if i >= len(v) || v[i] != '"' {
			return errJSON
		}
		kend, err := stringEnd(v, i)
		if err != nil {
			return err
		}
		key := unquote(v[i:kend])
		i = skipSpace(v, kend)
		if i >= len(v) || v[i] != ':' {
			return errJSON
		}
		i = skipSpace(v, i+1)
		end, err := valueEnd(v, i)
		if err != nil {
			return err
		}
		if err := fn(key, v[i:end]); err != nil {
			return err
		}
		i = skipSpace(v, end)
		if i >= len(v) {
			return errJSON
		}
		if v[i] == '}' {
			return nil
		}
		if v[i] != ',' {
			return errJSON
		}
		i = skipSpace(v, i+1)
	}
}

// isObject and isArray report the kind of the value v (no blanks before it).
func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }
func isArray(v []byte) bool  { return len(v) > 0 && v[0] == '[' }

// unquote returns the text of the JSON string q, quotes included in q.
func unquote(q []byte) string {
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1])
	}
	return scalarText(q)
}
