package vespa

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Update is a partial update of a document, built from field operations:
//
//	u := vespa.NewUpdate().
//		Assign("title", "Viva la Vida").
//		Increment("plays", 1).
//		Add("tags", []string{"live"})
//
// It encodes as Vespa's update JSON, {"fields": {...}}. Operations on the same
// field key are combined into one object, in the order given; the same
// operation twice on one key is an error. Errors in building (a non-numeric
// increment, an invalid match operation) are kept and returned by
// [Update.MarshalJSON] and so by [Client.Update]. The zero value is an empty
// update; an empty update cannot be sent. An Update is not safe for
// concurrent modification.
type Update struct {
	fields []string             // keys in first-use order
	ops    map[string][]fieldOp // per key, in order
	err    error
}

type fieldOp struct {
	name  string // assign, add, remove, increment, ..., match, modify
	value any
}

// NewUpdate returns an empty update.
func NewUpdate() *Update { return &Update{} }

// Assign sets field to value, replacing the whole value. A nil value clears
// the field (JSON null). field may be a field path such as "mystruct.sub",
// "arr[3]" or a map entry ([MapEntryPath]).
func (u *Update) Assign(field string, value any) *Update { return u.add(field, "assign", value) }

// Clear removes the value of field (assign null).
func (u *Update) Clear(field string) *Update { return u.add(field, "assign", nil) }

// Add appends values to an array (values is a slice) or adds keys with
// weights to a weighted set (values is a map such as map[string]int).
func (u *Update) Add(field string, values any) *Update { return u.add(field, "add", values) }

// Remove removes elements by value from an array (values is a slice) or keys
// from a weighted set (values is a map whose weights are ignored, such as
// map[string]int{"k": 0}).
func (u *Update) Remove(field string, values any) *Update { return u.add(field, "remove", values) }

// Increment adds n to a numeric field. n is a Go number or a json.Number.
func (u *Update) Increment(field string, n any) *Update { return u.arith(field, "increment", n) }

// Decrement subtracts n from a numeric field.
func (u *Update) Decrement(field string, n any) *Update { return u.arith(field, "decrement", n) }

// Multiply multiplies a numeric field by n.
func (u *Update) Multiply(field string, n any) *Update { return u.arith(field, "multiply", n) }

// Divide divides a numeric field by n.
func (u *Update) Divide(field string, n any) *Update { return u.arith(field, "divide", n) }

// AssignMapEntry sets the entry key of the map (or weighted set) field to
// value, through the field path field{"key"}.
func (u *Update) AssignMapEntry(field, key string, value any) *Update {
	return u.add(MapEntryPath(field, key), "assign", value)
}

// RemoveMapEntry removes the entry key from the map field, through the field
// path field{"key"}.
func (u *Update) RemoveMapEntry(field, key string) *Update {
	return u.add(MapEntryPath(field, key), "remove", 0)
}

// AssignElement sets element index of the array field to value. The element
// must exist; use [Update.Add] to append.
func (u *Update) AssignElement(field string, index int, value any) *Update {
	if index < 0 {
		u.fail(fmt.Errorf("vespa: update of %q: negative array index %d", field, index))
		return u
	}
	return u.Match(field, index, "assign", value)
}

// Match applies one operation to one element of an array (element is an
// index) or weighted set (element is a key): op is "assign", "increment",
// "decrement", "multiply" or "divide", with the operand value.
func (u *Update) Match(field string, element any, op string, value any) *Update {
	switch op {
	case "assign":
	case "increment", "decrement", "multiply", "divide":
		if !isNumber(value) {
			u.fail(fmt.Errorf("vespa: update of %q: %s operand %v (%T) is not a number", field, op, value, value))
			return u
		}
	default:
		u.fail(fmt.Errorf("vespa: update of %q: unknown match operation %q", field, op))
		return u
	}
	return u.add(field, "match", matchOp{element: element, op: op, value: value})
}

// TensorOperation is the operation of a tensor modify update.
type TensorOperation string

// The operations of [TensorModify].
const (
	// TensorReplace replaces each addressed cell's value.
	TensorReplace TensorOperation = "replace"
	// TensorAdd adds to each addressed cell's value.
	TensorAdd TensorOperation = "add"
	// TensorMultiply multiplies each addressed cell's value.
	TensorMultiply TensorOperation = "multiply"
)

// TensorAddress is the address of a tensor cell: dimension name to label
// (indexed dimensions take the index as a decimal string).
type TensorAddress map[string]string

// TensorCell is one tensor cell in Vespa's verbose form.
type TensorCell struct {
	// Address names the cell: a label for every dimension of the tensor.
	Address TensorAddress `json:"address"`
	// Value is the cell's value, the operand of the update's operation.
	Value float64 `json:"value"`
}

// TensorBlock is a dense subspace of a mixed tensor, addressed by its mapped
// dimensions.
type TensorBlock struct {
	// Address names the block: a label for each mapped dimension, and none
	// for the indexed ones.
	Address TensorAddress `json:"address"`
	// Values are the block's cells in the order of its indexed dimensions
	// (the last one varying fastest); their number is the product of those
	// dimensions' sizes.
	Values []float64 `json:"values"`
}

// TensorModify is a tensor modify update: Operation applied to the cells
// given in exactly one of Addresses, Cells and Blocks.
type TensorModify struct {
	// Operation is replace, add or multiply.
	Operation TensorOperation
	// Create creates missing cells first (starting at 0 for replace and
	// add, 1 for multiply); otherwise updates of missing cells are ignored.
	Create bool
	// Addresses lists fully addressed cells (any tensor type).
	Addresses []TensorCell
	// Cells is the short form for a tensor with one mapped dimension:
	// label to value.
	Cells map[string]float64
	// Blocks is the short form for a mixed tensor with one mapped dimension:
	// label to the values of the dense subspace.
	Blocks map[string][]float64
}

// ModifyTensor modifies cells of the tensor field.
func (u *Update) ModifyTensor(field string, m TensorModify) *Update {
	switch m.Operation {
	case TensorReplace, TensorAdd, TensorMultiply:
	default:
		u.fail(fmt.Errorf("vespa: update of %q: unknown tensor operation %q", field, m.Operation))
		return u
	}
	n := 0
	for _, set := range []bool{m.Addresses != nil, m.Cells != nil, m.Blocks != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		u.fail(fmt.Errorf("vespa: update of %q: a tensor modify needs exactly one of Addresses, Cells and Blocks", field))
		return u
	}
	v := map[string]any{"operation": string(m.Operation)}
	if m.Create {
		v["create"] = true
	}
	switch {
	case m.Addresses != nil:
		v["addresses"] = m.Addresses
	case m.Cells != nil:
		v["cells"] = m.Cells
	default:
		v["blocks"] = m.Blocks
	}
	return u.add(field, "modify", orderedModify{v})
}

// AddTensorCells adds (or overwrites) cells of a mapped or mixed tensor
// field, in verbose form.
func (u *Update) AddTensorCells(field string, cells ...TensorCell) *Update {
	return u.add(field, "add", map[string]any{"cells": cells})
}

// AddTensorBlocks adds (or overwrites) dense subspaces of a mixed tensor
// field.
func (u *Update) AddTensorBlocks(field string, blocks ...TensorBlock) *Update {
	return u.add(field, "add", map[string]any{"blocks": blocks})
}

// RemoveTensorCells removes the cells of a mapped or mixed tensor field
// that match the addresses; an address may name only some of the mapped
// dimensions, removing every matching cell.
func (u *Update) RemoveTensorCells(field string, addresses ...TensorAddress) *Update {
	return u.add(field, "remove", map[string]any{"addresses": addresses})
}

// MapEntryPath returns the field path of the entry key in the map or weighted
// set field: field{"key"}, with '"' and '\' in key escaped by a backslash.
func MapEntryPath(field, key string) string {
	var b strings.Builder
	b.WriteString(field)
	b.WriteString(`{"`)
	for _, r := range key {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteString(`"}`)
	return b.String()
}

// Err returns the first error made while building the update, if any.
func (u *Update) Err() error { return u.err }

// Len returns the number of field keys the update touches.
func (u *Update) Len() int { return len(u.fields) }

// MarshalJSON encodes the update as {"fields": {...}}. It returns the first
// building error, or an error for an empty update.
func (u Update) MarshalJSON() ([]byte, error) {
	if u.err != nil {
		return nil, u.err
	}
	if len(u.fields) == 0 {
		return nil, errors.New("vespa: empty update")
	}
	b := []byte(`{"fields":{`)
	for i, key := range u.fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSON(b, key)
		b = append(b, ":{"...)
		for j, op := range u.ops[key] {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, op.name)
			b = append(b, ':')
			v, err := json.Marshal(op.value)
			if err != nil {
				return nil, fmt.Errorf("vespa: update of %q: encoding %s: %w", key, op.name, err)
			}
			b = append(b, v...)
		}
		b = append(b, '}')
	}
	return append(b, "}}"...), nil
}

func (u *Update) add(key, op string, value any) *Update {
	if u.err != nil {
		return u
	}
	if key == "" {
		u.fail(fmt.Errorf("vespa: update: empty field name in %s", op))
		return u
	}
	if u.ops == nil {
		u.ops = map[string][]fieldOp{}
	}
	for _, o := range u.ops[key] {
		if o.name == op {
			u.fail(fmt.Errorf("vespa: update of %q: %s given twice", key, op))
			return u
		}
	}
	if _, ok := u.ops[key]; !ok {
		u.fields = append(u.fields, key)
	}
	u.ops[key] = append(u.ops[key], fieldOp{op, value})
	return u
}

func (u *Update) arith(field, op string, n any) *Update {
	if !isNumber(n) {
		u.fail(fmt.Errorf("vespa: update of %q: %s operand %v (%T) is not a number", field, op, n, n))
		return u
	}
	return u.add(field, op, n)
}

func (u *Update) fail(err error) {
	if u.err == nil {
		u.err = err
	}
}

func isNumber(v any) bool {
	switch n := v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32:
		return true
	case float64:
		return n == n && n-n == 0 // not NaN or ±Inf
	case json.Number:
		_, err := strconv.ParseFloat(string(n), 64)
		return err == nil
	}
	return false
}

// matchOp encodes as {"element": e, "<op>": value}, element first.
type matchOp struct {
	element any
	op      string
	value   any
}

// MarshalJSON implements json.Marshaler.
func (m matchOp) MarshalJSON() ([]byte, error) {
	e, err := json.Marshal(m.element)
	if err != nil {
		return nil, err
	}
	v, err := json.Marshal(m.value)
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"element":`), e...)
	b = append(b, ',')
	b = appendJSON(b, m.op)
	b = append(b, ':')
	b = append(b, v...)
	return append(b, '}'), nil
}

// orderedModify encodes a modify object with "operation" first, then
// "create", then the cells.
type orderedModify struct{ v map[string]any }

// MarshalJSON implements json.Marshaler.
func (o orderedModify) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for _, k := range []string{"operation", "create", "addresses", "cells", "blocks"} {
		v, ok := o.v[k]
		if !ok {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendJSON(b, k)
		b = append(b, ':')
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b = append(b, enc...)
	}
	return append(b, '}'), nil
}

// appendJSON appends s as a JSON string.
func appendJSON(b []byte, s string) []byte {
	enc, _ := json.Marshal(s) // a string always encodes
	return append(b, enc...)
}
