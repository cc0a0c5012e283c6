package search

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// docView is a document decoded for evaluation: its fields in stored order, decoded lazily.
type docView struct {
	Document
	names []string
	raws  []json.RawMessage
	vals  map[string]any
}

// newDocView decodes the top-level object of d.Fields, keeping the field order. A document whose
// fields are not a JSON object has no fields.
func newDocView(d Document) *docView {
	v := &docView{Document: d}
	dec := json.NewDecoder(bytes.NewReader(d.Fields))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return v
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return v
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return v
		}
		v.names = append(v.names, name)
		v.raws = append(v.raws, raw)
	}
	return v
}

// value returns the decoded value of a top-level field (numbers as json.Number).
func (v *docView) value(name string) (any, bool) {
	if x, ok := v.vals[name]; ok {
		return x, true
	}
	for i, n := range v.names {
		if n != name {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(v.raws[i]))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) != nil {
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
