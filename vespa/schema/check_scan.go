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
		return containerEnd(b, i)
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

// containerEnd returns the index just after the object or array at b[i].
func containerEnd(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); j++ {
		c := b[j]
		if !structural[c] {
			continue
		}
		if c == '"' {
			end, err := stringEnd(b, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
			continue
		}
		if c == '[' {
			if end, ok := flatArrayEnd(b, j); ok {
				j = end - 1 // a flat array opens and closes: depth stays
				if depth == 0 {
					return end, nil
				}
				continue
			}
		}
		if c == '{' || c == '[' {
			depth++
		} else if depth--; depth == 0 {
			return j + 1, nil
		}
	}
	return 0, errJSON
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
	j := i + 1
	for j < len(b) {
		c := b[j]
		if c == '"' {
			return j + 1, nil
		}
		j++
		if c == '\\' {
			j++ // the escaped byte
		}
	}
	return 0, errJSON
}

// open skips the opening byte of a container v and returns the index of
// its first item, or done when it is empty.
func open(v []byte, opening, closing byte) (i int, done bool, err error) {
	i = skipSpace(v, 0)
	if i >= len(v) || v[i] != opening {
		return 0, false, errJSON
	}
	i = skipSpace(v, i+1)
	return i, i < len(v) && v[i] == closing, nil
}

// next returns the index of the item after the one ending at end, or done
// at the container's closing byte.
func next(v []byte, end int, closing byte) (i int, done bool, err error) {
	i = skipSpace(v, end)
	switch {
	case i >= len(v):
		return 0, false, errJSON
	case v[i] == closing:
		return i, true, nil
	case v[i] != ',':
		return 0, false, errJSON
	}
	return skipSpace(v, i+1), false, nil
}

// eachElem calls fn with each element of the JSON array v.
func eachElem(v []byte, fn func(i int, e []byte) error) error {
	i, done, err := open(v, '[', ']')
	for n := 0; err == nil && !done; n++ {
		var end int
		if end, err = valueEnd(v, i); err != nil {
			break
		}
		if err = fn(n, v[i:end]); err != nil {
			break
		}
		i, done, err = next(v, end, ']')
	}
	return err
}

// eachMember calls fn with each member of the JSON object v: its key
// (unquoted) and its value.
func eachMember(v []byte, fn func(key string, val []byte) error) error {
	_, err := members(v, fn)
	return err
}

// members is eachMember that also returns the index of the object's
// closing brace.
func members(v []byte, fn func(key string, val []byte) error) (int, error) {
	i, done, err := open(v, '{', '}')
	for err == nil && !done {
		if i >= len(v) || v[i] != '"' {
			return 0, errJSON
		}
		var kend, end int
		if kend, err = stringEnd(v, i); err != nil {
			break
		}
		key := unquote(v[i:kend])
		if i = skipSpace(v, kend); i >= len(v) || v[i] != ':' {
			return 0, errJSON
		}
		i = skipSpace(v, i+1)
		if end, err = valueEnd(v, i); err != nil {
			break
		}
		if err = fn(key, v[i:end]); err != nil {
			break
		}
		i, done, err = next(v, end, '}')
	}
	return i, err
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
