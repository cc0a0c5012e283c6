package jsonx

import (
	"encoding/json"
	"errors"
)

// A byte scanner for the JSON the write path reads: it validates as
// encoding/json's scanner does (which accepts any byte at or above 0x20 inside
// strings) but several times faster, which matters for documents holding
// large tensors. On anything it rejects, parseObject falls back to
// encoding/json, which then phrases the error.

// maxScanDepth bounds nesting, as encoding/json does.
const maxScanDepth = 10000

var errScan = errors.New("vespatest: not scannable")

// ScanObject splits a JSON object into its members, keeping key order; a
// repeated key keeps its first position and its last value.
func ScanObject(raw []byte) (Object, error) {
	i := SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, errScan
	}
	var obj Object
	i = SkipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		if SkipWS(raw, i+1) != len(raw) {
			return nil, errScan
		}
		return obj, nil
	}
	for i < len(raw) {
		if raw[i] != '"' {
			return nil, errScan
		}
		kEnd := scanString(raw, i)
		if kEnd < 0 {
			return nil, errScan
		}
		key, err := decodeKey(raw[i:kEnd])
		if err != nil {
			return nil, errScan
		}
		i = SkipWS(raw, kEnd)
		if i >= len(raw) || raw[i] != ':' {
			return nil, errScan
		}
		i = SkipWS(raw, i+1)
		vEnd := scanValue(raw, i, 1)
		if vEnd < 0 {
			return nil, errScan
		}
		obj = obj.Set(key, json.RawMessage(raw[i:vEnd]))
		i = SkipWS(raw, vEnd)
		if i >= len(raw) {
			return nil, errScan
		}
		switch raw[i] {
		case ',':
			i = SkipWS(raw, i+1)
		case '}':
			if SkipWS(raw, i+1) != len(raw) {
				return nil, errScan
			}
			return obj, nil
		default:
			return nil, errScan
		}
	}
	return nil, errScan
}

// decodeKey returns the text of a JSON string; plain ASCII takes a short path.
func decodeKey(quoted []byte) (string, error) {
	for _, c := range quoted[1 : len(quoted)-1] {
		if c == '\\' || c >= 0x80 {
			var s string
			err := json.Unmarshal(quoted, &s)
			return s, err
		}
	}
	return string(quoted[1 : len(quoted)-1]), nil
}

// scanValue returns the end of the valid JSON value at raw[i], or -1.
func scanValue(raw []byte, i, depth int) int {
	if i >= len(raw) || depth > maxScanDepth {
		return -1
	}
	switch c := raw[i]; {
	case c == '"':
		return scanString(raw, i)
	case c == '-' || c >= '0' && c <= '9':
		return NumberEnd(raw, i)
	case c == 't':
		return literalEnd(raw, i, "true")
	case c == 'f':
		return literalEnd(raw, i, "false")
	case c == 'n':
		return literalEnd(raw, i, "null")
	case c == '[':
		i = SkipWS(raw, i+1)
		if i < len(raw) && raw[i] == ']' {
			return i + 1
		}
		for {
			next, end := afterElement(raw, scanValue(raw, i, depth+1), ']')
			if next < 0 {
				return end
			}
			i = next
		}
	case c == '{':
		i = SkipWS(raw, i+1)
		if i < len(raw) && raw[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(raw) || raw[i] != '"' {
				return -1
			}
			end := scanString(raw, i)
			if end < 0 {
				return -1
			}
			i = SkipWS(raw, end)
			if i >= len(raw) || raw[i] != ':' {
				return -1
			}
			next, end := afterElement(raw, scanValue(raw, SkipWS(raw, i+1), depth+1), '}')
			if next < 0 {
				return end
			}
			i = next
		}
	}
	return -1
}

func literalEnd(raw []byte, i int, lit string) int {
	if len(raw)-i < len(lit) || string(raw[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// StringEnd returns the index after the JSON string starting at raw[i] (a
// quote), or -1 when it does not end. It skips escapes without checking
// them: for JSON already known to be valid, such as a stored document.
func StringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// scanString returns the end of the valid JSON string at raw[i], or -1.
func scanString(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch c := raw[j]; {
		case c == '"':
			return j + 1
		case c < 0x20:
			return -1
		case c == '\\':
			j++
			if j >= len(raw) {
				return -1
			}
			switch raw[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(raw) {
					return -1
				}
				for _, h := range raw[j+1 : j+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				j += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// NumberEnd returns the end of the JSON number at raw[i], or -1 if none is
// there: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func NumberEnd(raw []byte, i int) int {
	if i < len(raw) && raw[i] == '-' {
		i++
	}
	if i >= len(raw) {
		return -1
	}
	if raw[i] == '0' {
		i++
	} else if i = digitsEnd(raw, i); i < 0 {
		return -1
	}
	if i < len(raw) && raw[i] == '.' {
		if i = digitsEnd(raw, i+1); i < 0 {
			return -1
		}
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		if i = digitsEnd(raw, i); i < 0 {
			return -1
		}
	}
	return i
}

func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// digitsEnd returns the end of the run of at least one digit at raw[i], or -1.
func digitsEnd(raw []byte, i int) int {
	j := i
	for j < len(raw) && raw[j] >= '0' && raw[j] <= '9' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// afterElement reads what follows an array element or object member that
// ends at end (-1: it did not parse): a comma, after which the next one
// starts at next, or the closing byte, where the container ends (next -1,
// end its end); anything else is an error (next -1, end -1).
func afterElement(raw []byte, end int, closing byte) (next, containerEnd int) {
	if end < 0 {
		return -1, -1
	}
	i := SkipWS(raw, end)
	switch {
	case i >= len(raw):
		return -1, -1
	case raw[i] == ',':
		return SkipWS(raw, i+1), 0
	case raw[i] == closing:
		return -1, i + 1
	}
	return -1, -1
}
