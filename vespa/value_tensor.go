package vespa

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
)

// CellValue is the Go type of a tensor's cells: float32 for Vespa's float
// and bfloat16 cells, float64 for double, int8 for int8.
type CellValue interface{ ~float32 | ~float64 | ~int8 }

// DenseTensor is the value of a tensor field with one indexed dimension,
// such as tensor<float>(x[384]): its cells in order. It is written in
// Vespa's short form, {"values": [...]}, and read from that (with or without
// the "type" Vespa renders), from the bare array (format.tensors=short-value)
// and from the verbose cells, {"cells": [{"address": {"x": "0"}, "value":
// …}]} or the bare array of them (long, long-value). The number of cells is
// not checked here: the schema knows it (see package schema).
type DenseTensor[T CellValue] []T

// MarshalJSON writes {"values": [...]}; a nil tensor is null.
func (t DenseTensor[T]) MarshalJSON() ([]byte, error) {
	return shortForm(`{"values":`, []T(t), "dense tensor")
}

// UnmarshalJSON reads any of the forms of [DenseTensor].
func (t *DenseTensor[T]) UnmarshalJSON(data []byte) error { return readTensor(t, data, readDense[T]) }

// readDense reads a dense tensor from data, trimmed and not null.
func readDense[T CellValue](data []byte) (DenseTensor[T], error) {
	var w struct {
		Values json.RawMessage `json:"values"`
		Cells  json.RawMessage `json:"cells"`
	}
	if len(data) > 0 && data[0] == '{' {
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("vespa: dense tensor: %w", err)
		}
	} else {
		w.Values = data
	}
	switch {
	case len(w.Values) > 0 && w.Values[0] == '"':
		return nil, fmt.Errorf("vespa: dense tensor: hex cell values are not read; ask Vespa for format.tensors=short")
	case len(w.Values) > 0 && isVerbose(w.Values):
		w.Cells, w.Values = w.Values, nil
	}
	if len(w.Values) > 0 {
		var cs []cell[T]
		if err := json.Unmarshal(w.Values, &cs); err != nil {
			return nil, fmt.Errorf("vespa: dense tensor values: %w", err)
		}
		vs := make(DenseTensor[T], len(cs))
		for i, c := range cs {
			vs[i] = c.v
		}
		return vs, nil
	}
	if len(w.Cells) == 0 {
		return nil, fmt.Errorf("vespa: dense tensor %s: want values or cells", quoteJSON(data))
	}
	return readDenseCells[T](w.Cells)
}

// isVerbose reports whether an array holds verbose cells (objects).
func isVerbose(arr []byte) bool {
	rest := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(arr), []byte("[")))
	return len(rest) > 0 && rest[0] == '{'
}

// readDenseCells reads verbose cells of one indexed dimension, in any order.
func readDenseCells[T CellValue](raw []byte) (DenseTensor[T], error) {
	cells, err := verboseCells[T](raw, "dense tensor")
	if err != nil {
		return nil, err
	}
	vs := make(DenseTensor[T], len(cells))
	seen := make([]bool, len(cells))
	for _, c := range cells {
		label, err := c.label("dense tensor")
		if err != nil {
			return nil, err
		}
		i, err := strconv.Atoi(label)
		if err != nil || i < 0 || i >= len(vs) || seen[i] {
			return nil, fmt.Errorf("vespa: dense tensor cell address %q: not an index in 0..%d, or given twice", label, len(vs)-1)
		}
		vs[i], seen[i] = c.Value.v, true
	}
	return vs, nil
}

// MappedTensor is the value of a tensor field with one mapped dimension,
// such as tensor<float>(cat{}): label to cell value. It is written in
// Vespa's short form, {"cells": {"a": 1.0}}, and read from that (with or
// without "type"), from the bare object (short-value) and from the verbose
// cells, {"cells": [{"address": {"cat": "a"}, "value": 1.0}]} or the bare
// array of them.
type MappedTensor[T CellValue] map[string]T

// MarshalJSON writes {"cells": {...}} with the labels sorted; a nil tensor
// is null.
func (t MappedTensor[T]) MarshalJSON() ([]byte, error) {
	return shortForm(`{"cells":`, map[string]T(t), "mapped tensor") // encoding/json sorts map keys
}

// UnmarshalJSON reads any of the forms of [MappedTensor].
func (t *MappedTensor[T]) UnmarshalJSON(data []byte) error { return readTensor(t, data, readMapped[T]) }

// readMapped reads a mapped tensor from data, trimmed and not null.
func readMapped[T CellValue](data []byte) (MappedTensor[T], error) {
	cells := data
	if len(data) > 0 && data[0] == '{' {
		var o map[string]json.RawMessage
		if err := json.Unmarshal(data, &o); err != nil {
			return nil, fmt.Errorf("vespa: mapped tensor: %w", err)
		}
		if wrapper(o) {
			cells = o["cells"]
		}
	}
	cells = bytes.TrimSpace(cells)
	if len(cells) > 0 && cells[0] == '[' {
		return readMappedCells[T](cells)
	}
	var cs map[string]cell[T]
	if err := json.Unmarshal(cells, &cs); err != nil {
		return nil, fmt.Errorf("vespa: mapped tensor cells: %w", err)
	}
	m := make(MappedTensor[T], len(cs))
	for label, c := range cs {
		m[label] = c.v
	}
	return m, nil
}

// wrapper reports whether o is Vespa's wrapper {"type": "...", "cells":
// {...} or [...]}, not the labels of the short form: as Vespa's
// TensorReader.fillTensor reads it, "cells" holding a number and "type"
// holding other than a string are labels.
func wrapper(o map[string]json.RawMessage) bool {
	c, ok := o["cells"]
	if !ok || len(c) == 0 || c[0] != '{' && c[0] != '[' {
		return false
	}
	for k, v := range o {
		if k != "cells" && (k != "type" || len(v) == 0 || v[0] != '"') {
			return false
		}
	}
	return true
}

// readMappedCells reads verbose cells of one mapped dimension.
func readMappedCells[T CellValue](raw []byte) (MappedTensor[T], error) {
	cells, err := verboseCells[T](raw, "mapped tensor")
	if err != nil {
		return nil, err
	}
	m := make(MappedTensor[T], len(cells))
	for _, c := range cells {
		label, err := c.label("mapped tensor")
		if err != nil {
			return nil, err
		}
		m[label] = c.Value.v
	}
	return m, nil
}

// shortForm writes a tensor in Vespa's short form: prefix ({"values": or
// {"cells":), cells as encoding/json writes them, and the closing brace.
// Nil cells are null.
func shortForm(prefix string, cells any, what string) ([]byte, error) {
	b, err := json.Marshal(cells)
	if err != nil {
		return nil, fmt.Errorf("vespa: %s: %w", what, err)
	}
	if string(b) == "null" {
		return b, nil
	}
	return append(append([]byte(prefix), b...), '}'), nil
}

// readTensor sets *t from data: nil for JSON null, else what read makes of
// the trimmed data. On an error *t is left as it was.
func readTensor[X any](t *X, data []byte, read func([]byte) (X, error)) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		var null X // a nil slice or map
		*t = null
		return nil
	}
	v, err := read(data)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// verboseCell is a cell of Vespa's verbose tensor form,
// {"address": {"x": "0"}, "value": 1.0}.
type verboseCell[T CellValue] struct {
	Address map[string]string `json:"address"`
	Value   cell[T]           `json:"value"`
}

// verboseCells reads an array of verbose cells; what names the tensor in
// errors.
func verboseCells[T CellValue](raw []byte, what string) ([]verboseCell[T], error) {
	var cells []verboseCell[T]
	if err := json.Unmarshal(raw, &cells); err != nil {
		return nil, fmt.Errorf("vespa: %s cells: %w", what, err)
	}
	return cells, nil
}

// label returns the label of a cell of a tensor of one dimension; an
// address of other than one dimension is an error naming what tensor.
func (c verboseCell[T]) label(what string) (string, error) {
	if len(c.Address) != 1 {
		return "", fmt.Errorf("vespa: %s cell address %v: want one dimension", what, c.Address)
	}
	for _, l := range c.Address {
		return l, nil
	}
	return "", nil // not reached: the address has one label
}

// Labels returns the tensor's labels, sorted.
func (t MappedTensor[T]) Labels() []string {
	ls := make([]string, 0, len(t))
	for l := range t {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	return ls
}

// cell is one cell value as JSON has it. Vespa renders every cell of a
// query result or a get as a double (JsonFormat writes the cells of an int8
// tensor as 5.0), so an int8 cell is read from any number that is a whole
// number in range; float cells are read as encoding/json reads them, and
// null as NaN: Vespa writes a NaN or infinite cell as null
// (com.yahoo.slime.JsonFormat) and reads null as NaN
// (com.yahoo.tensor.serialization.JsonFormat.decodeNumeric).
type cell[T CellValue] struct{ v T }

// UnmarshalJSON reads a cell value.
func (c *cell[T]) UnmarshalJSON(data []byte) error {
	if reflect.TypeFor[T]().Kind() != reflect.Int8 {
		if string(data) == "null" {
			c.v = T(math.NaN())
			return nil
		}
		return json.Unmarshal(data, &c.v)
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	if string(data) == "null" || f != math.Trunc(f) || f < math.MinInt8 || f > math.MaxInt8 {
		return fmt.Errorf("cell value %s is not an int8", data)
	}
	c.v = T(f)
	return nil
}
