package search

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// docView is a document decoded for evaluation: its fields in stored order, split and decoded
// lazily, so that a query touching one field (a nearestNeighbor over cached vectors) does not
// scan every document's bytes.
type docView struct {
	Document
	split bool // names and raws are set
	names []string
	raws  []json.RawMessage
	vals  map[string]any
}

func newDocView(d Document) *docView { return &docView{Document: d} }

// fieldNames returns the names of the document's top-level fields in stored order.
func (v *docView) fieldNames() []string {
	v.ensure()
	return v.names
}

// ensure splits the top-level object of Fields into its fields, keeping their order. A document
// whose fields are not a valid JSON object has no fields.
func (v *docView) ensure() *docView {
	if v.split {
		return v
	}
	v.split = true
	b := v.Fields
	i := jsonx.SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return v
	}
	i = jsonx.SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return v
	}
	for i < len(b) {
		if b[i] != '"' {
			return v.reset()
		}
		end := valueEnd(b, i)
		if end < 0 {
			return v.reset()
		}
		var name string
		if json.Unmarshal(b[i:end], &name) != nil {
			return v.reset()
		}
		i = jsonx.SkipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return v.reset()
		}
		i = jsonx.SkipWS(b, i+1)
		end = valueEnd(b, i)
		if end < 0 {
			return v.reset()
		}
		v.names = append(v.names, name)
		v.raws = append(v.raws, b[i:end])
		i = jsonx.SkipWS(b, end)
		if i < len(b) && b[i] == ',' {
			i = jsonx.SkipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return v
		}
		return v.reset()
	}
	return v.reset()
}

func (v *docView) reset() *docView {
	v.names, v.raws = nil, nil
	return v
}

// valueEnd returns the end of the JSON value starting at b[i], or -1. It only finds the extent;
// json.Valid on the stored document (the store validates on write) vouches for the content.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return jsonx.StringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := valueEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// value returns the decoded value of a top-level field (numbers as json.Number).
func (v *docView) value(name string) (any, bool) {
	if x, ok := v.vals[name]; ok {
		return x, true
	}
	v.ensure()
	for i, n := range v.names {
		if n != name {
			continue
		}
		x, ok := decodeValue(v.raws[i])
		if !ok {
			return nil, false
		}
		if v.vals == nil {
			v.vals = map[string]any{}
		}
		v.vals[name] = x
		return x, true
	}
	return nil, false
}

// decodeValue decodes one JSON value, numbers as json.Number; scalars take a short path.
func decodeValue(raw json.RawMessage) (any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	switch c := raw[0]; {
	case c == '-' || c >= '0' && c <= '9':
		if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
			return nil, false
		}
		return json.Number(raw), true
	case c == 't' && string(raw) == "true":
		return true, true
	case c == 'f' && string(raw) == "false":
		return false, true
	case c == '"' && bytes.IndexByte(raw, '\\') < 0:
		return string(raw[1 : len(raw)-1]), true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if dec.Decode(&x) != nil {
		return nil, false
	}
	return x, true
}

// docType returns the document type: Type, or the type part of the ID.
func (v *docView) docType() string {
	if v.Type != "" {
		return v.Type
	}
	// id:ns:type:kv:user
	parts := strings.SplitN(v.ID, ":", 4)
	if len(parts) >= 3 {
		return parts[2]
	}
	return ""
}

// leaves resolves a dotted path (struct fields, map key/value, array elements) to leaf values.
func (v *docView) leaves(path string) []any {
	top, rest, _ := strings.Cut(path, ".")
	x, ok := v.value(top)
	if !ok {
		return nil
	}
	return resolvePath(x, rest, nil, 0)
}

func resolvePath(x any, path string, out []any, depth int) []any {
	if depth > 32 {
		return out
	}
	if arr, ok := x.([]any); ok {
		for _, e := range arr {
			out = resolvePath(e, path, out, depth+1)
		}
		return out
	}
	if path == "" {
		return append(out, x)
	}
	seg, rest, _ := strings.Cut(path, ".")
	obj, ok := x.(map[string]any)
	if !ok {
		return out
	}
	if sub, ok := obj[seg]; ok {
		return resolvePath(sub, rest, out, depth+1)
	}
	switch seg {
	case "key":
		for k := range obj {
			out = resolvePath(k, rest, out, depth+1)
		}
	case "value":
		for _, e := range obj {
			out = resolvePath(e, rest, out, depth+1)
		}
	}
	return out
}

// tokenize lower-cases text and splits it into words of letters and digits, the emulator's
// stand-in for Vespa's linguistics.
func tokenize(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
