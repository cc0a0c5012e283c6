package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/docid"
	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/tensor"
)

// Kind is the shape of a field type.
type Kind int

const (
	KindAny Kind = iota // unknown type (struct, lenient mode): any JSON
	kindString
	KindInt  // int, long, byte
	kindReal // float, double
	kindBool
	KindArray
	KindWset
	KindMap
	KindTensor
	kindPosition
	KindStruct // a declared struct type: Fields
)

// FieldType is a parsed Vespa type text.
type FieldType struct {
	Kind   Kind
	Name   string // the base name, e.g. "int" or "float"
	Elem   *FieldType
	key    *FieldType
	Tensor *tensor.Type
	target string // a reference's document type
	// Fields are a struct's member types, when ResolveStructs found its declaration.
	Fields map[string]*FieldType
}

// ResolveStructs returns t with the struct types it names (itself, or as
// an element, a map value) that structs declares made KindStruct with their
// member types; other names stay KindAny (stored unchecked). t is not
// changed.
func (t *FieldType) ResolveStructs(structs map[string][]Field) *FieldType {
	return t.resolve(structs, 0)
}

func (t *FieldType) resolve(structs map[string][]Field, depth int) *FieldType {
	if t == nil || len(structs) == 0 || depth > 16 {
		return t
	}
	c := *t
	c.Elem = t.Elem.resolve(structs, depth+1)
	c.key = t.key.resolve(structs, depth+1)
	if fs, ok := structs[t.Name]; ok && t.Kind == KindAny {
		c.Kind = KindStruct
		c.Fields = map[string]*FieldType{}
		for _, f := range fs {
			ft, err := ParseFieldType(f.Type)
			if err != nil {
				continue
			}
			c.Fields[f.Name] = ft.resolve(structs, depth+1)
		}
	}
	return &c
}

func ParseFieldType(s string) (*FieldType, error) {
	s = strings.TrimSpace(s)
	base, arg, hasArg := strings.Cut(s, "<")
	base = strings.TrimSpace(base)
	if strings.HasPrefix(s, "tensor") {
		tt, err := tensor.ParseType(s)
		if err != nil {
			return nil, err
		}
		return &FieldType{Kind: KindTensor, Name: "tensor", Tensor: tt}, nil
	}
	if hasArg {
		if !strings.HasSuffix(arg, ">") {
			return nil, fmt.Errorf("malformed type %q", s)
		}
		arg = strings.TrimSuffix(arg, ">")
	}
	switch base {
	case "string", "uri", "predicate", "raw", "reference":
		ft := &FieldType{Kind: kindString, Name: base}
		if base == "reference" {
			if !hasArg {
				return nil, fmt.Errorf("reference needs a document type")
			}
			ft.target = strings.TrimSpace(arg)
		}
		return ft, nil
	case "int", "long", "byte":
		return &FieldType{Kind: KindInt, Name: base}, nil
	case "float", "double":
		return &FieldType{Kind: kindReal, Name: base}, nil
	case "bool":
		return &FieldType{Kind: kindBool, Name: base}, nil
	case "position":
		return &FieldType{Kind: kindPosition, Name: base}, nil
	case "array", "weightedset":
		if !hasArg {
			return nil, fmt.Errorf("%s needs an element type", base)
		}
		elem, err := ParseFieldType(arg)
		if err != nil {
			return nil, err
		}
		k := KindArray
		if base == "weightedset" {
			k = KindWset
		}
		return &FieldType{Kind: k, Name: base, Elem: elem}, nil
	case "map":
		if !hasArg {
			return nil, fmt.Errorf("map needs key and value types")
		}
		k, v, ok := splitTopComma(arg)
		if !ok {
			return nil, fmt.Errorf("malformed map type %q", s)
		}
		kt, err := ParseFieldType(k)
		if err != nil {
			return nil, err
		}
		vt, err := ParseFieldType(v)
		if err != nil {
			return nil, err
		}
		return &FieldType{Kind: KindMap, Name: base, key: kt, Elem: vt}, nil
	case "":
		return nil, fmt.Errorf("empty type")
	}
	// A struct or another type the emulator does not model.
	return &FieldType{Kind: KindAny, Name: base}, nil
}

// splitTopComma splits "a,b" at the comma that is not nested in <>.
func splitTopComma(s string) (string, string, bool) {
	depth := 0
	for i, c := range s {
		switch c {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), true
			}
		}
	}
	return "", "", false
}

// Normalize checks a field value against its type and returns the value to
// store, or ok=false for a value Vespa treats as "no value" (empty string,
// array, map or weighted set; empty raw is kept).
func (t *FieldType) Normalize(raw json.RawMessage) (json.RawMessage, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	switch t.Kind {
	case KindAny:
		if IsEmptyJSON(raw) {
			return nil, false, nil
		}
		return compactJSON(raw), true, nil
	case kindString:
		s, err := stringOf(raw)
		if err != nil {
			return nil, false, err
		}
		if s == "" && t.Name != "raw" {
			return nil, false, nil
		}
		switch t.Name {
		case "predicate":
			// Stored as Vespa's Java Predicate.toString writes it, which a get returns.
			p, err := ParsePredicate(s)
			if err != nil {
				return nil, false, err
			}
			return jsonx.String(p.String()), true, nil
		case "raw":
			// Empty raw is a value: a get writes it as "" (document
			// JsonWriter), where a docsum leaves it out.
			b, err := rawOf(s)
			if err != nil {
				return nil, false, err
			}
			return jsonx.String(b), true, nil
		case "reference":
			id, err := docid.Parse(s)
			if err != nil {
				return nil, false, err
			}
			if id.DocType != t.target {
				// document ReferenceFieldValue.verifyCompatibleDocumentType
				return nil, false, fmt.Errorf("Can't assign document ID '%s' (of type '%s') to reference of document type '%s'", s, id.DocType, t.target)
			}
		}
		return jsonx.String(s), true, nil
	case KindInt, kindReal:
		v, err := NumberOf(raw, t.Kind == KindInt)
		if err != nil {
			return nil, false, err
		}
		if t.Kind == KindInt {
			if err := intInRange(t.Name, v); err != nil {
				return nil, false, err
			}
		}
		return json.RawMessage(v), true, nil
	case kindBool:
		// BoolFieldValue takes any scalar's text through Boolean.parseBoolean:
		// "true" in any case is true, anything else false.
		text, err := stringOf(raw)
		if err != nil {
			return nil, false, fmt.Errorf("expected a boolean, got %s", jsonx.Clip(raw))
		}
		if strings.EqualFold(text, "true") {
			return json.RawMessage("true"), true, nil
		}
		return json.RawMessage("false"), true, nil
	case kindPosition:
		return positionOf(raw)
	case KindStruct:
		// document json/readers StructReader: every member must be a field of
		// the struct type, its value read as that field's type.
		return normalizeObject(raw, "a struct", func(key string, val json.RawMessage) (json.RawMessage, bool, error) {
			ft, ok := t.Fields[key]
			if !ok {
				return nil, false, fmt.Errorf("Field '%s' is not defined in struct type '%s'", key, t.Name)
			}
			v, ok, err := ft.Normalize(val)
			if err != nil {
				return nil, false, fmt.Errorf("In document 'null': Could not parse field '%s' of type %s: %w", key, ft.Text(), err)
			}
			return v, ok, nil
		})
	case KindArray:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, false, fmt.Errorf("expected an array, got %s", jsonx.Clip(raw))
		}
		out := make([]json.RawMessage, 0, len(items))
		for _, it := range items {
			v, ok, err := t.Elem.Normalize(it)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				v = json.RawMessage(`""`)
				if t.Elem.Kind != kindString {
					v = it
				}
			}
			out = append(out, v)
		}
		if len(out) == 0 {
			return nil, false, nil
		}
		b, _ := json.Marshal(out)
		return b, true, nil
	case KindWset:
		// An array of keys means weight 1 each... only in some readers; reject.
		return normalizeObject(raw, "a weighted set", func(key string, val json.RawMessage) (json.RawMessage, bool, error) {
			w, err := NumberOf(val, true)
			if err != nil {
				return nil, false, fmt.Errorf("weight of %q: %w", key, err)
			}
			return json.RawMessage(w), true, nil
		})
	case KindMap:
		if b := bytes.TrimSpace(raw); len(b) > 0 && b[0] == '[' {
			// The array form, [{"key": k, "value": v}, ...], which Vespa's JSON
			// reader also takes (document json readers MapReader).
			obj, err := mapFromEntries(b)
			if err != nil {
				return nil, false, err
			}
			raw = obj
		}
		return normalizeObject(raw, "a map", func(_ string, val json.RawMessage) (json.RawMessage, bool, error) {
			return t.Elem.Normalize(val)
		})
	case KindTensor:
		if out, ok := t.Tensor.NormalizeVector(raw); ok {
			return out, true, nil
		}
		tv, err := tensor.Parse(t.Tensor, raw)
		if err != nil {
			return nil, false, err
		}
		return tv.Render(tensor.Short), true, nil
	}
	return compactJSON(raw), true, nil
}

// normalizeObject normalizes a weighted set or a map, what names it in the error for a value that
// is not an object: each member's value becomes what value returns for it (ok=false drops the
// member), and an object left empty is "no value".
func normalizeObject(raw json.RawMessage, what string, value func(key string, val json.RawMessage) (json.RawMessage, bool, error)) (json.RawMessage, bool, error) {
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, false, fmt.Errorf("expected %s object, got %s", what, jsonx.Clip(raw))
	}
	out := obj[:0]
	for _, kv := range obj {
		v, ok, err := value(kv.Key, kv.Val)
		if err != nil {
			return nil, false, err
		}
		if ok {
			out = append(out, jsonx.Member{Key: kv.Key, Val: v})
		}
	}
	if len(out) == 0 {
		return nil, false, nil
	}
	return out.Marshal(), true, nil
}

// NumberOf reads a JSON number, or a string holding one, as Vespa's JSON
// reader does, and returns its canonical JSON text.
func NumberOf(raw json.RawMessage, integer bool) (string, error) {
	text := string(raw)
	if strings.HasPrefix(text, `"`) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		text = s
	}
	if integer {
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(text, 64)
			if ferr != nil || f != math.Trunc(f) || f >= math.MaxInt64 || f < math.MinInt64 {
				// out of range too: Long.parseLong refuses what a long cannot hold
				return "", fmt.Errorf("For input string: \"%s\"", text)
			}
			n = int64(f)
		}
		return strconv.FormatInt(n, 10), nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return "", fmt.Errorf("For input string: \"%s\"", text)
	}
	return jsonx.FormatFloat(f), nil
}

func IsEmptyJSON(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case `""`, `[]`, `{}`:
		return true
	}
	return false
}

func compactJSON(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return json.RawMessage(raw)
	}
	return b.Bytes()
}

// Text is the type's name as Vespa's DataType.getName writes it in the
// JSON reader's errors: a tensor's full type, Array<int>,
// WeightedSet<string>, Map<string,person>, Reference<artist>, or the name.
func (t *FieldType) Text() string {
	switch {
	case t.Kind == KindTensor:
		return t.Tensor.String()
	case t.Kind == KindArray && t.Elem != nil:
		return "Array<" + t.Elem.Text() + ">"
	case t.Kind == KindWset && t.Elem != nil:
		return "WeightedSet<" + t.Elem.Text() + ">"
	case t.Kind == KindMap && t.key != nil && t.Elem != nil:
		return "Map<" + t.key.Text() + "," + t.Elem.Text() + ">"
	case t.Name == "reference" && t.target != "":
		return "Reference<" + t.target + ">"
	}
	return t.Name
}

// unknownLeaf returns the first type name in t that is neither built in nor
// in known (structs and document types), "" when there is none.
func (t *FieldType) unknownLeaf(known map[string]bool) string {
	if t == nil {
		return ""
	}
	if t.Kind == KindAny && !known[t.Name] {
		return t.Name
	}
	if n := t.key.unknownLeaf(known); n != "" {
		return n
	}
	return t.Elem.unknownLeaf(known)
}
