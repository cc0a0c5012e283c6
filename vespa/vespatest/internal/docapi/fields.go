package docapi

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
	"github.com/govespa/govespa/vespa/vespatest/internal/tensor"
)

// NormalizeFields validates a put's fields against the schema (nil: lenient)
// and returns the JSON object to store. Unknown fields are an error, or
// dropped when ignoreUndefined is set (ignored reports that).
func NormalizeFields(sch *schema.Schema, raw json.RawMessage, ignoreUndefined bool) (stored []byte, ignored bool, err error) {
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, false, fmt.Errorf("failed parsing document: %w", err)
	}
	out := make(jsonx.Object, 0, len(obj))
	for _, m := range obj {
		ft, known, err := fieldTypeOf(sch, m.Key)
		if err != nil {
			return nil, false, err
		}
		if !known {
			if ignoreUndefined {
				ignored = true
				continue
			}
			// Vespa's JSON reader for puts (checked against its DocumentV1ApiHandler, see
			// integration/differential_test.go).
			return nil, false, fmt.Errorf("Field '%s' is not defined in document type '%s'", m.Key, sch.Name)
		}
		v, ok, err := ft.Normalize(m.Val)
		if err != nil {
			return nil, false, &fieldValueError{fmt.Errorf("Could not parse field '%s' of type %s: %w", m.Key, ft.Text(), err)}
		}
		if ok {
			out = append(out, jsonx.Member{Key: m.Key, Val: v})
		}
	}
	return out.Marshal(), ignored, nil
}

// fieldValueError is a field value of the wrong type in a put; Vespa names
// the document before it ("In document 'id:...': Could not parse field ...").
type fieldValueError struct{ err error }

func (e *fieldValueError) Error() string { return e.err.Error() }
func (e *fieldValueError) Unwrap() error { return e.err }

var anyType = &schema.FieldType{Kind: schema.KindAny}

// fieldTypeOf returns the type of a field; lenient mode accepts any field.
func fieldTypeOf(sch *schema.Schema, name string) (*schema.FieldType, bool, error) {
	if sch == nil {
		return anyType, true, nil
	}
	f, ok := sch.Field(name)
	if !ok {
		return nil, false, nil
	}
	ft, err := schema.ParseFieldType(f.Type)
	if err != nil {
		return nil, false, err
	}
	return ft.ResolveStructs(sch.Structs), true, nil
}

// fieldSet is a parsed fieldSet parameter.
type fieldSet struct {
	none   bool                // [id]
	fields map[string]struct{} // nil: all document fields
}

func (fs fieldSet) includes(name string) bool {
	if fs.none {
		return false
	}
	if fs.fields == nil {
		return true
	}
	_, ok := fs.fields[name]
	return ok
}

func (d *docReq) fieldSet(sch *schema.Schema, docType string) (fieldSet, error) {
	v, ok, err := d.params.get("fieldSet")
	if err != nil || !ok {
		return fieldSet{}, err
	}
	return parseFieldSet(v, sch)
}

func parseFieldSet(v string, sch *schema.Schema) (fieldSet, error) {
	switch v {
	case "[all]", "[document]":
		return fieldSet{}, nil
	case "[id]", "[none]":
		return fieldSet{none: true}, nil
	}
	typ, list, ok := strings.Cut(v, ":")
	if !ok {
		// A field set name declared in the schema (e.g. "default"): not modelled.
		return fieldSet{}, nil
	}
	if sch != nil && typ != sch.Name {
		return fieldSet{}, badParam("Field set '%s' does not match document type '%s'", v, sch.Name)
	}
	if list == "[document]" || list == "[all]" {
		return fieldSet{}, nil
	}
	fs := fieldSet{fields: map[string]struct{}{}}
	for f := range strings.SplitSeq(list, ",") {
		f = strings.TrimSpace(f)
		if sch != nil {
			if _, ok := sch.Field(f); !ok {
				return fieldSet{}, badParam("No field with name '%s'", f)
			}
		}
		fs.fields[f] = struct{}{}
	}
	return fs, nil
}

// renderFields renders stored fields for a response.
func renderFields(sch *schema.Schema, stored []byte, fs fieldSet, tf tensor.Format) json.RawMessage {
	if fs.none {
		return json.RawMessage("{}")
	}
	if fs.fields == nil && (tf == tensor.Short || sch == nil) {
		return json.RawMessage(stored)
	}
	obj, err := jsonx.ParseObject(stored)
	if err != nil {
		return json.RawMessage(stored)
	}
	out := obj[:0]
	for _, m := range obj {
		if !fs.includes(m.Key) {
			continue
		}
		if tf != tensor.Short && sch != nil {
			if ft, ok, _ := fieldTypeOf(sch, m.Key); ok && ft.Kind == schema.KindTensor {
				m.Val = tensor.RenderStored(ft.Tensor, m.Val, tf)
			}
		}
		out = append(out, m)
	}
	return out.Marshal()
}
