package docapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

var updateOps = map[string]bool{
	"assign": true, "add": true, "remove": true, "increment": true, "decrement": true,
	"multiply": true, "divide": true, "match": true, "modify": true,
}

// parseUpdate validates the "fields" of an update body: each field (or field
// path) maps to an object of operations.
func parseUpdate(sch *schema.Schema, raw json.RawMessage, ignoreUndefined bool) (jsonx.Object, bool, error) {
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, false, fmt.Errorf("failed parsing document: %w", err)
	}
	out := make(jsonx.Object, 0, len(obj))
	ignored := false
	for _, m := range obj {
		base, _ := splitFieldPath(m.Key)
		if _, known, err := fieldTypeOf(sch, base); err != nil {
			return nil, false, err
		} else if !known {
			if ignoreUndefined {
				ignored = true
				continue
			}
			return nil, false, fmt.Errorf("Error in '%s': No field named '%s' in document type '%s'", m.Key, base, sch.Name)
		}
		ops, err := jsonx.ParseObject(m.Val)
		if err != nil {
			return nil, false, fmt.Errorf("failed parsing document: update of field '%s' must be an object of operations", m.Key)
		}
		for _, op := range ops {
			if !updateOps[op.Key] {
				return nil, false, fmt.Errorf("Unknown operation '%s' on field '%s'", op.Key, m.Key)
			}
		}
		out = append(out, m)
	}
	return out, ignored, nil
}

// splitFieldPath splits "m{key}", "arr[3]" or "s.sub" into the field name and
// the accessor ("" for a plain field).
func splitFieldPath(key string) (string, string) {
	if i := strings.IndexAny(key, ".[{"); i > 0 {
		return key[:i], key[i:]
	}
	return key, ""
}

// applyUpdate applies validated update operations to stored fields.
func applyUpdate(sch *schema.Schema, stored []byte, update jsonx.Object) ([]byte, error) {
	doc, err := jsonx.ParseObject(stored)
	if err != nil {
		return nil, err
	}
	for _, m := range update {
		base, accessor := splitFieldPath(m.Key)
		ft, _, err := fieldTypeOf(sch, base)
		if err != nil {
			return nil, err
		}
		ops, _ := jsonx.ParseObject(m.Val)
		cur, _ := doc.Get(base)
		var next json.RawMessage
		if accessor != "" {
			next, err = applyPathOps(ft, cur, accessor, ops)
		} else {
			next, err = applyFieldOps(ft, cur, ops)
		}
		if err != nil {
			return nil, fmt.Errorf("Error in '%s': %w", m.Key, err)
		}
		if next == nil || schema.IsEmptyJSON(next) {
			doc = doc.Del(base)
		} else {
			doc = doc.Set(base, next)
		}
	}
	return doc.Marshal(), nil
}

// applyFieldOps applies the operations on one whole field. A nil result clears it.
func applyFieldOps(ft *schema.FieldType, cur json.RawMessage, ops jsonx.Object) (json.RawMessage, error) {
	var err error
	for _, op := range ops {
		switch op.Key {
		case "assign":
			var ok bool
			cur, ok, err = ft.Normalize(op.Val)
			if !ok {
				cur = nil
			}
		case "increment", "decrement", "multiply", "divide":
			cur, err = arithmetic(ft, cur, op.Key, op.Val)
		case "add":
			cur, err = addTo(ft, cur, op.Val)
		case "remove":
			cur, err = removeFrom(ft, cur, op.Val)
		case "match":
			cur, err = matchOp(ft, cur, op.Val)
		case "modify":
			cur, err = tensorModify(ft, cur, op.Val)
		}
		if err != nil {
			return nil, err
		}
	}
	return cur, nil
}

func arithmetic(ft *schema.FieldType, cur json.RawMessage, op string, arg json.RawMessage) (json.RawMessage, error) {
	var x float64
	if err := json.Unmarshal(arg, &x); err != nil {
		return nil, fmt.Errorf("%s needs a number, got %s", op, jsonx.Clip(arg))
	}
	if cur == nil {
		return nil, nil // arithmetic on a field without a value does nothing
	}
	var v float64
	if err := json.Unmarshal(cur, &v); err != nil {
		return nil, fmt.Errorf("%s on a non-numeric value", op)
	}
	switch op {
	case "increment":
		v += x
	case "decrement":
		v -= x
	case "multiply":
		v *= x
	case "divide":
		if x == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		v /= x
	}
	integer := ft.Kind == schema.KindInt || ft.Kind == schema.KindWset ||
		(ft.Kind == schema.KindAny && !bytes.ContainsAny(cur, ".eE"))
	if integer {
		return json.RawMessage(strconv.FormatInt(int64(math.Trunc(v)), 10)), nil
	}
	return json.RawMessage(jsonx.FormatFloat(v)), nil
}

// containerKind guesses array or weighted set in lenient mode from the values.
func containerKind(ft *schema.FieldType, cur, arg json.RawMessage) schema.Kind {
	if ft.Kind != schema.KindAny {
		return ft.Kind
	}
	probe := bytes.TrimSpace(cur)
	if len(probe) == 0 {
		probe = bytes.TrimSpace(arg)
	}
	if len(probe) > 0 && probe[0] == '{' {
		return schema.KindWset
	}
	return schema.KindArray
}

func elemType(ft *schema.FieldType) *schema.FieldType {
	if ft.Elem != nil {
		return ft.Elem
	}
	return anyType
}

func addTo(ft *schema.FieldType, cur, arg json.RawMessage) (json.RawMessage, error) {
	switch containerKind(ft, cur, arg) {
	case schema.KindArray:
		var items, add []json.RawMessage
		if cur != nil {
			if err := json.Unmarshal(cur, &items); err != nil {
				return nil, fmt.Errorf("add on a value that is not an array")
			}
		}
		if err := json.Unmarshal(arg, &add); err != nil {
			return nil, fmt.Errorf("add on an array needs an array")
		}
		for _, a := range add {
			v, ok, err := elemType(ft).Normalize(a)
			if err != nil {
				return nil, err
			}
			if ok {
				items = append(items, v)
			}
		}
		b, _ := json.Marshal(items)
		return b, nil
	case schema.KindWset:
		set, add, err := objects(cur, arg)
		if err != nil {
			return nil, err
		}
		for _, m := range add {
			w, err := schema.NumberOf(m.Val, true)
			if err != nil {
				return nil, err
			}
			set = set.Set(m.Key, json.RawMessage(w))
		}
		return set.Marshal(), nil
	case schema.KindMap:
		set, add, err := objects(cur, arg)
		if err != nil {
			return nil, err
		}
		for _, m := range add {
			set = set.Set(m.Key, m.Val)
		}
		return set.Marshal(), nil
	case schema.KindTensor:
		return tensorAdd(ft, cur, arg)
	}
	return nil, fmt.Errorf("add is not supported on type %s", ft.Text())
}

func objects(cur, arg json.RawMessage) (jsonx.Object, jsonx.Object, error) {
	var set jsonx.Object
	if cur != nil {
		var err error
		if set, err = jsonx.ParseObject(cur); err != nil {
			return nil, nil, fmt.Errorf("stored value is not an object")
		}
	}
	add, err := jsonx.ParseObject(arg)
	if err != nil {
		return nil, nil, fmt.Errorf("expected an object of keys")
	}
	return set, add, nil
}

func removeFrom(ft *schema.FieldType, cur, arg json.RawMessage) (json.RawMessage, error) {
	if ft.Kind == schema.KindTensor {
		return tensorRemove(ft, cur, arg)
	}
	if cur == nil {
		return nil, nil
	}
	switch containerKind(ft, cur, arg) {
	case schema.KindArray:
		var items, rm []json.RawMessage
		if err := json.Unmarshal(cur, &items); err != nil {
			return nil, fmt.Errorf("remove on a value that is not an array")
		}
		if err := json.Unmarshal(arg, &rm); err != nil {
			return nil, fmt.Errorf("remove on an array needs an array of values")
		}
		out := items[:0]
		for _, it := range items {
			keep := true
			for _, r := range rm {
				if jsonEqual(it, r) {
					keep = false
				}
			}
			if keep {
				out = append(out, it)
			}
		}
		b, _ := json.Marshal(out)
		return b, nil
	default:
		set, err := jsonx.ParseObject(cur)
		if err != nil {
			return nil, fmt.Errorf("stored value is not an object")
		}
		var keys []string
		if rm, err := jsonx.ParseObject(arg); err == nil {
			for _, m := range rm {
				keys = append(keys, m.Key)
			}
		} else if err := json.Unmarshal(arg, &keys); err != nil {
			return nil, fmt.Errorf("remove needs an object or array of keys")
		}
		for _, k := range keys {
			set = set.Del(k)
		}
		return set.Marshal(), nil
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// matchOp applies {"element": k, "<op>": v} to one element of an array (by
// index) or weighted set/map (by key).
func matchOp(ft *schema.FieldType, cur, arg json.RawMessage) (json.RawMessage, error) {
	obj, err := jsonx.ParseObject(arg)
	if err != nil {
		return nil, fmt.Errorf("match needs an object")
	}
	el, ok := obj.Get("element")
	if !ok {
		return nil, fmt.Errorf("match needs an 'element'")
	}
	ops := obj.Del("element")
	if cur == nil {
		return nil, nil
	}
	var key string
	if err := json.Unmarshal(el, &key); err != nil {
		key = string(bytes.TrimSpace(el))
	}
	return applyAccess(ft, cur, key, containerKind(ft, cur, nil) == schema.KindArray, ops)
}

// applyAccess applies ops to one element of cur, addressed by key or index.
func applyAccess(ft *schema.FieldType, cur json.RawMessage, key string, index bool, ops jsonx.Object) (json.RawMessage, error) {
	et := elemType(ft)
	if ft.Kind == schema.KindWset {
		et = &schema.FieldType{Kind: schema.KindInt, Name: "int"}
	}
	if index {
		var items []json.RawMessage
		if err := json.Unmarshal(cur, &items); err != nil {
			return nil, fmt.Errorf("not an array")
		}
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(items) {
			return cur, nil //nolint:nilerr // Vespa ignores unparsable and out-of-range indexes
		}
		removed := false
		for _, op := range ops {
			if op.Key == "remove" {
				removed = true
			}
		}
		if removed {
			items = append(items[:i], items[i+1:]...)
		} else {
			v, err := applyFieldOps(et, items[i], ops)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		b, _ := json.Marshal(items)
		return b, nil
	}
	var set jsonx.Object
	if cur != nil {
		var err error
		if set, err = jsonx.ParseObject(cur); err != nil {
			return nil, fmt.Errorf("not an object")
		}
	}
	old, _ := set.Get(key)
	for _, op := range ops {
		if op.Key == "remove" {
			return set.Del(key).Marshal(), nil
		}
	}
	v, err := applyFieldOps(et, old, ops)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return set.Del(key).Marshal(), nil
	}
	return set.Set(key, v).Marshal(), nil
}

// applyPathOps applies ops to a field path below a field: m{key}, arr[i],
// s.sub, and any chain of them such as m{key}.sub or arr[0].name (Vespa's
// FieldPath, document module FieldPathIteratorHandler). A missing map entry
// or struct field on the way is created, as an assign's path is; an index
// out of range leaves the field as it is.
func applyPathOps(ft *schema.FieldType, cur json.RawMessage, accessor string, ops jsonx.Object) (json.RawMessage, error) {
	steps, err := pathSteps(accessor)
	if err != nil {
		return nil, err
	}
	return applyPath(ft, cur, steps, ops)
}

// structFieldType is the type of a struct's member name, or any type for
// a struct the schema does not declare.
func structFieldType(ft *schema.FieldType, name string) *schema.FieldType {
	if ft != nil && ft.Kind == schema.KindStruct {
		if sub, ok := ft.Fields[name]; ok {
			return sub
		}
	}
	return anyType
}

// pathStep is one step of a field path: a map key or weighted-set item
// ({key}), an array index ([i]) or a struct field (.name).
type pathStep struct {
	kind byte // '{', '[' or '.'
	key  string
}

// pathSteps splits "{k}.sub[2]" into its steps.
func pathSteps(accessor string) ([]pathStep, error) {
	var steps []pathStep
	for rest := accessor; rest != ""; {
		switch rest[0] {
		case '{', '[':
			end := byte('}')
			if rest[0] == '[' {
				end = ']'
			}
			i := 1
			if rest[0] == '{' && len(rest) > 1 && rest[1] == '"' {
				// a quoted key may hold any character but an unescaped quote
				j := strings.IndexByte(rest[2:], '"')
				if j < 0 {
					return nil, fmt.Errorf("unterminated quoted key in field path %q", accessor)
				}
				i = j + 3
			}
			j := strings.IndexByte(rest[i:], end)
			if j < 0 {
				return nil, fmt.Errorf("missing '%c' in field path %q", end, accessor)
			}
			key := rest[1 : i+j]
			if rest[0] == '{' {
				key = strings.Trim(key, `"`)
			}
			steps = append(steps, pathStep{kind: rest[0], key: key})
			rest = rest[i+j+1:]
		case '.':
			j := strings.IndexAny(rest[1:], ".[{")
			if j < 0 {
				j = len(rest) - 1
			}
			if j == 0 {
				return nil, fmt.Errorf("empty struct field name in field path %q", accessor)
			}
			steps = append(steps, pathStep{kind: '.', key: rest[1 : j+1]})
			rest = rest[j+1:]
		default:
			return nil, fmt.Errorf("malformed field path %q", accessor)
		}
	}
	return steps, nil
}

// applyPath applies ops at the end of steps below cur, whose type is ft.
func applyPath(ft *schema.FieldType, cur json.RawMessage, steps []pathStep, ops jsonx.Object) (json.RawMessage, error) {
	st := steps[0]
	if len(steps) == 1 {
		switch st.kind {
		case '{':
			return applyAccess(ft, cur, st.key, false, ops)
		case '[':
			if cur == nil {
				return nil, nil
			}
			return applyAccess(ft, cur, st.key, true, ops)
		default:
			// applyAccess reads the member's type as the element type
			return applyAccess(&schema.FieldType{Kind: schema.KindAny, Elem: structFieldType(ft, st.key)}, cur, st.key, false, ops)
		}
	}
	if st.kind == '[' {
		var items []json.RawMessage
		if cur == nil {
			return nil, nil
		}
		if err := json.Unmarshal(cur, &items); err != nil {
			return nil, fmt.Errorf("not an array")
		}
		i, err := strconv.Atoi(st.key)
		if err != nil || i < 0 || i >= len(items) {
			return cur, nil //nolint:nilerr // Vespa ignores unparsable and out-of-range indexes
		}
		next, err := applyPath(elemType(ft), items[i], steps[1:], ops)
		if err != nil {
			return nil, err
		}
		if next == nil {
			items = append(items[:i], items[i+1:]...)
		} else {
			items[i] = next
		}
		b, _ := json.Marshal(items)
		return b, nil
	}
	var obj jsonx.Object
	if cur != nil {
		var err error
		if obj, err = jsonx.ParseObject(cur); err != nil {
			return nil, fmt.Errorf("not an object")
		}
	}
	childType := structFieldType(ft, st.key)
	if st.kind == '{' {
		childType = elemType(ft)
	}
	child, _ := obj.Get(st.key)
	next, err := applyPath(childType, child, steps[1:], ops)
	if err != nil {
		return nil, err
	}
	if next == nil || schema.IsEmptyJSON(next) {
		return obj.Del(st.key).Marshal(), nil
	}
	return obj.Set(st.key, next).Marshal(), nil
}
