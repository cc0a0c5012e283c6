// Package tensor reads, stores and renders Vespa tensors in their JSON forms
// (short, long, value, hex), as the document API writes them.
package tensor

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// Type is a parsed tensor type such as tensor<float>(cat{},x[3]).
type Type struct {
	cell string // double, float, bfloat16, int8
	dims []tensorDim
}

type tensorDim struct {
	name string
	size int // -1 for a mapped dimension
}

func (d tensorDim) mapped() bool { return d.size < 0 }

func ParseType(s string) (*Type, error) {
	s = strings.ReplaceAll(s, " ", "")
	rest, ok := strings.CutPrefix(s, "tensor")
	if !ok {
		return nil, fmt.Errorf("not a tensor type: %q", s)
	}
	tt := &Type{cell: "double"}
	if strings.HasPrefix(rest, "<") {
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return nil, fmt.Errorf("malformed tensor type %q", s)
		}
		tt.cell = rest[1:end]
		rest = rest[end+1:]
		switch tt.cell {
		case "double", "float", "bfloat16", "int8":
		default:
			return nil, fmt.Errorf("unknown tensor cell type %q", tt.cell)
		}
	}
	if !strings.HasPrefix(rest, "(") || !strings.HasSuffix(rest, ")") {
		return nil, fmt.Errorf("malformed tensor type %q", s)
	}
	rest = rest[1 : len(rest)-1]
	if rest == "" {
		return tt, nil
	}
	for d := range strings.SplitSeq(rest, ",") {
		switch {
		case strings.HasSuffix(d, "{}"):
			tt.dims = append(tt.dims, tensorDim{name: strings.TrimSuffix(d, "{}"), size: -1})
		case strings.HasSuffix(d, "]") && strings.Contains(d, "["):
			i := strings.IndexByte(d, '[')
			n, err := strconv.Atoi(d[i+1 : len(d)-1])
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("malformed dimension %q in %q", d, s)
			}
			tt.dims = append(tt.dims, tensorDim{name: d[:i], size: n})
		default:
			return nil, fmt.Errorf("malformed dimension %q in %q", d, s)
		}
	}
	slices.SortFunc(tt.dims, func(a, b tensorDim) int { return strings.Compare(a.name, b.name) })
	return tt, nil
}

// CellType is the type's cell type: double, float, bfloat16 or int8.
func (t *Type) CellType() string { return t.cell }

func (t *Type) String() string {
	var b strings.Builder
	b.WriteString("tensor")
	if t.cell != "double" {
		b.WriteString("<" + t.cell + ">")
	}
	b.WriteByte('(')
	for i, d := range t.dims {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d.name)
		if d.mapped() {
			b.WriteString("{}")
		} else {
			b.WriteString("[" + strconv.Itoa(d.size) + "]")
		}
	}
	b.WriteByte(')')
	return b.String()
}

func (t *Type) dense() bool {
	return !slices.ContainsFunc(t.dims, tensorDim.mapped)
}

func (t *Type) mappedDims() []tensorDim {
	return slices.DeleteFunc(slices.Clone(t.dims), func(d tensorDim) bool { return !d.mapped() })
}

func (t *Type) indexedDims() []tensorDim {
	return slices.DeleteFunc(slices.Clone(t.dims), tensorDim.mapped)
}

// denseSize is the number of cells of the indexed part.
func (t *Type) denseSize() int {
	n := 1
	for _, d := range t.indexedDims() {
		n *= d.size
	}
	return n
}

func (t *Type) round(v float64) float64 {
	switch t.cell {
	case "float":
		return float64(float32(v))
	case "bfloat16":
		bits := math.Float32bits(float32(v)) &^ 0xFFFF
		return float64(math.Float32frombits(bits))
	case "int8":
		return float64(int8(v))
	}
	return v
}

// Value is a tensor's cells, in insertion order (dense part in standard order).
type Value struct {
	typ   *Type
	Keys  []string // address keys, see addrKey
	Cells map[string]float64
}

func New(t *Type) *Value {
	return &Value{typ: t, Cells: map[string]float64{}}
}

// addrKey joins the labels of an address, in the type's dimension order.
func addrKey(labels []string) string { return strings.Join(labels, "\x00") }

func (v *Value) Set(labels []string, x float64) {
	k := addrKey(labels)
	if _, ok := v.Cells[k]; !ok {
		v.Keys = append(v.Keys, k)
	}
	v.Cells[k] = v.typ.round(x)
}

func (v *Value) Remove(k string) {
	if _, ok := v.Cells[k]; !ok {
		return
	}
	delete(v.Cells, k)
	v.Keys = slices.DeleteFunc(v.Keys, func(s string) bool { return s == k })
}

// Address converts {"dim":"label",...} to labels in dimension order.
func (v *Value) Address(raw json.RawMessage, partial bool) ([]string, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("tensor address must be an object: %w", err)
	}
	labels := make([]string, len(v.typ.dims))
	for i, d := range v.typ.dims {
		l, ok := m[d.name]
		if !ok {
			if partial {
				labels[i] = "\x01" // wildcard
				continue
			}
			return nil, fmt.Errorf("tensor address %s lacks dimension '%s'", raw, d.name)
		}
		label := fmt.Sprint(l)
		if !d.mapped() {
			n, err := strconv.Atoi(label)
			if err != nil || n < 0 || n >= d.size {
				return nil, fmt.Errorf("index %s out of range for dimension '%s'", label, d.name)
			}
		}
		labels[i] = label
		delete(m, d.name)
	}
	for k := range m {
		return nil, fmt.Errorf("tensor type %s has no dimension '%s'", v.typ, k)
	}
	return labels, nil
}

// denseLabels returns the indexed labels of the i-th cell of the dense part.
func (t *Type) denseLabels(i int) []string {
	idx := t.indexedDims()
	labels := make([]string, len(idx))
	for j := len(idx) - 1; j >= 0; j-- {
		labels[j] = strconv.Itoa(i % idx[j].size)
		i /= idx[j].size
	}
	return labels
}

// merge builds full labels from the mapped labels and the dense labels.
func (t *Type) merge(mapped, dense []string) []string {
	out := make([]string, len(t.dims))
	mi, di := 0, 0
	for i, d := range t.dims {
		if d.mapped() {
			out[i] = mapped[mi]
			mi++
		} else {
			out[i] = dense[di]
			di++
		}
	}
	return out
}

func (v *Value) setDense(mapped []string, values []float64) error {
	if len(values) != v.typ.denseSize() {
		return fmt.Errorf("expected %d values for %s, got %d", v.typ.denseSize(), v.typ, len(values))
	}
	for i, x := range values {
		v.Set(v.typ.merge(mapped, v.typ.denseLabels(i)), x)
	}
	return nil
}

// flattenNumbers reads a (possibly nested) array of numbers, or a hex string.
func (t *Type) flattenNumbers(raw json.RawMessage) ([]float64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return t.fromHex(s)
	}
	var anyv any
	if err := json.Unmarshal(raw, &anyv); err != nil {
		return nil, err
	}
	var out []float64
	var walk func(x any) error
	walk = func(x any) error {
		switch x := x.(type) {
		case float64:
			out = append(out, x)
		case []any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("expected numbers in tensor values, got %v", x)
		}
		return nil
	}
	return out, walk(anyv)
}

func (t *Type) fromHex(s string) ([]float64, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("bad hex tensor value: %w", err)
	}
	var out []float64
	switch t.cell {
	case "int8":
		for _, c := range b {
			out = append(out, float64(int8(c))) //nolint:gosec // G115: the byte is an int8 cell, two's complement by design
		}
	case "bfloat16":
		for i := 0; i+1 < len(b); i += 2 {
			out = append(out, float64(math.Float32frombits(uint32(b[i])<<24|uint32(b[i+1])<<16)))
		}
	case "float":
		for i := 0; i+3 < len(b); i += 4 {
			out = append(out, float64(math.Float32frombits(uint32(b[i])<<24|uint32(b[i+1])<<16|uint32(b[i+2])<<8|uint32(b[i+3]))))
		}
	default:
		for i := 0; i+7 < len(b); i += 8 {
			var u uint64
			for _, c := range b[i : i+8] {
				u = u<<8 | uint64(c)
			}
			out = append(out, math.Float64frombits(u))
		}
	}
	return out, nil
}

// Parse reads any of Vespa's tensor JSON input forms.
func Parse(t *Type, raw json.RawMessage) (*Value, error) {
	v := New(t)
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty tensor")
	}
	if raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		if len(items) > 0 && bytes.HasPrefix(bytes.TrimSpace(items[0]), []byte("{")) {
			return v, v.AddCells(raw)
		}
		nums, err := t.flattenNumbers(raw)
		if err != nil {
			return nil, err
		}
		return v, v.setDense(nil, nums)
	}
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("unrecognised tensor value %s", jsonx.Clip(raw))
	}
	if cells, ok := obj.Get("cells"); ok {
		return v, v.AddCells(cells)
	}
	if values, ok := obj.Get("values"); ok {
		nums, err := t.flattenNumbers(values)
		if err != nil {
			return nil, err
		}
		return v, v.setDense(nil, nums)
	}
	if blocks, ok := obj.Get("blocks"); ok {
		return v, v.AddBlocks(blocks)
	}
	obj = obj.Del("type")
	return v, v.addShortMapped(obj.Marshal())
}

// AddCells reads verbose cells [{"address":..,"value":..}] or, for a single
// mapped dimension, the short {"label": value} form.
func (v *Value) AddCells(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		return v.addShortMapped(raw)
	}
	var cells []struct {
		Address json.RawMessage `json:"address"`
		Value   *float64        `json:"value"`
	}
	if err := json.Unmarshal(raw, &cells); err != nil {
		return fmt.Errorf("bad tensor cells: %w", err)
	}
	for _, c := range cells {
		labels, err := v.Address(c.Address, false)
		if err != nil {
			return err
		}
		if c.Value == nil {
			return fmt.Errorf("tensor cell without a value")
		}
		v.Set(labels, *c.Value)
	}
	return nil
}

// addShortMapped reads {"label": value} (one mapped dimension) or
// {"label": [dense...]} (one mapped dimension plus indexed ones).
func (v *Value) addShortMapped(raw json.RawMessage) error {
	mapped := v.typ.mappedDims()
	if len(mapped) != 1 {
		return fmt.Errorf("short tensor form needs exactly one mapped dimension in %s", v.typ)
	}
	obj, err := jsonx.ParseObject(raw)
	if err != nil {
		return err
	}
	for _, m := range obj {
		if len(v.typ.dims) == 1 {
			var x float64
			if err := json.Unmarshal(m.Val, &x); err != nil {
				return fmt.Errorf("tensor cell %q: %w", m.Key, err)
			}
			v.Set([]string{m.Key}, x)
			continue
		}
		nums, err := v.typ.flattenNumbers(m.Val)
		if err != nil {
			return err
		}
		if err := v.setDense([]string{m.Key}, nums); err != nil {
			return err
		}
	}
	return nil
}

// AddBlocks reads mixed tensor blocks, either {"label": [..]} or
// [{"address": {...mapped}, "values": [...]}].
func (v *Value) AddBlocks(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		return v.addShortMapped(raw)
	}
	var blocks []struct {
		Address map[string]any  `json:"address"`
		Values  json.RawMessage `json:"values"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return fmt.Errorf("bad tensor blocks: %w", err)
	}
	for _, b := range blocks {
		var mapped []string
		for _, d := range v.typ.mappedDims() {
			l, ok := b.Address[d.name]
			if !ok {
				return fmt.Errorf("block address lacks dimension '%s'", d.name)
			}
			mapped = append(mapped, fmt.Sprint(l))
		}
		nums, err := v.typ.flattenNumbers(b.Values)
		if err != nil {
			return err
		}
		if err := v.setDense(mapped, nums); err != nil {
			return err
		}
	}
	return nil
}

// Format is a value of format.tensors.
type Format int

const (
	Short Format = iota
	Long
	ShortValue
	LongValue
	Hex      // short, dense parts as a hex string
	HexValue // short-value, dense parts as a hex string
)

func ParseFormat(s string) (Format, bool) {
	switch s {
	case "", "short":
		return Short, true
	case "hex":
		return Hex, true
	case "long":
		return Long, true
	case "short-value":
		return ShortValue, true
	case "hex-value":
		return HexValue, true
	case "long-value":
		return LongValue, true
	}
	return 0, false
}

// WithoutHex is f as a JSON visit renders it: Vespa's JsonResponse writes a
// visited document with only shortForm and directValues
// (writeDocumentValue: "This does not actually allow for hex format
// rendering"), so hex is short and hex-value short-value there. A single GET
// and a JSONL visit (StreamingJsonLinesResponse) keep hex.
func (f Format) WithoutHex() Format {
	switch f {
	case Hex:
		return Short
	case HexValue:
		return ShortValue
	}
	return f
}

func (v *Value) Render(f Format) json.RawMessage {
	var body json.RawMessage
	key := "cells"
	long := f == Long || f == LongValue
	asHex := f == Hex || f == HexValue
	mapped := v.typ.mappedDims()
	switch {
	case !long && v.typ.dense() && asHex:
		key, body = "values", jsonx.String(v.denseHex(nil))
	case !long && v.typ.dense():
		key, body = "values", v.denseJSON(nil)
	case !long && len(mapped) == 1 && len(v.typ.dims) == 1:
		var o jsonx.Object
		for _, k := range v.Keys {
			o = append(o, jsonx.Member{Key: k, Val: json.RawMessage(jsonx.FormatFloat(v.Cells[k]))})
		}
		body = o.Marshal()
	case !long && len(mapped) == 1:
		key = "blocks"
		var o jsonx.Object
		seen := map[string]bool{}
		for _, k := range v.Keys {
			label := v.mappedLabel(k)
			if !seen[label] {
				seen[label] = true
				if asHex {
					o = append(o, jsonx.Member{Key: label, Val: jsonx.String(v.denseHex([]string{label}))})
				} else {
					o = append(o, jsonx.Member{Key: label, Val: v.denseJSON([]string{label})})
				}
			}
		}
		body = o.Marshal()
	default:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			labels := strings.Split(k, "\x00")
			var addr jsonx.Object
			for j, d := range v.typ.dims {
				addr = append(addr, jsonx.Member{Key: d.name, Val: jsonx.String(labels[j])})
			}
			b.WriteString(`{"address":`)
			addr.WriteTo(&b)
			b.WriteString(`,"value":` + jsonx.FormatFloat(v.Cells[k]) + "}")
		}
		b.WriteByte(']')
		body = b.Bytes()
	}
	if f == ShortValue || f == LongValue || f == HexValue {
		return body
	}
	return jsonx.Object{{Key: "type", Val: jsonx.String(v.typ.String())}, {Key: key, Val: body}}.Marshal()
}

func (v *Value) mappedLabel(k string) string {
	labels := strings.Split(k, "\x00")
	for i, d := range v.typ.dims {
		if d.mapped() {
			return labels[i]
		}
	}
	return ""
}

// denseJSON renders the dense part under the given mapped labels, nested by
// dimension for several indexed dimensions.
func (v *Value) denseJSON(mapped []string) json.RawMessage {
	idx := v.typ.indexedDims()
	n := v.typ.denseSize()
	vals := make([]string, n)
	for i := range n {
		vals[i] = jsonx.FormatFloat(v.Cells[addrKey(v.typ.merge(mapped, v.typ.denseLabels(i)))])
	}
	var b bytes.Buffer
	var nest func(level, start int)
	nest = func(level, start int) {
		b.WriteByte('[')
		if level == len(idx)-1 || len(idx) == 0 {
			for i := range max(1, idx[max(0, len(idx)-1)].size) {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(vals[start+i])
			}
		} else {
			stride := 1
			for _, d := range idx[level+1:] {
				stride *= d.size
			}
			for i := range idx[level].size {
				if i > 0 {
					b.WriteByte(',')
				}
				nest(level+1, start+i*stride)
			}
		}
		b.WriteByte(']')
	}
	if len(idx) == 0 {
		if len(vals) == 1 {
			return json.RawMessage(vals[0])
		}
		return json.RawMessage("[]")
	}
	nest(0, 0)
	return b.Bytes()
}

// denseHex renders the dense part under the given mapped labels as Vespa's
// JsonFormat.asHexString does: each cell's bits in its cell type (double 16
// hex digits, float 8, bfloat16 the top 4 of the float's, int8 2), upper
// case, in index order.
func (v *Value) denseHex(mapped []string) string {
	n := v.typ.denseSize()
	var b strings.Builder
	for i := range n {
		x := v.Cells[addrKey(v.typ.merge(mapped, v.typ.denseLabels(i)))]
		switch v.typ.cell {
		case "float":
			fmt.Fprintf(&b, "%08X", math.Float32bits(float32(x)))
		case "bfloat16":
			fmt.Fprintf(&b, "%04X", math.Float32bits(float32(x))>>16)
		case "int8":
			fmt.Fprintf(&b, "%02X", uint8(int8(int32(x)))) //nolint:gosec // G115: Java's (byte) keeps the low 8 bits
		default:
			fmt.Fprintf(&b, "%016X", math.Float64bits(x))
		}
	}
	return b.String()
}

// RenderStored re-renders a stored (short form) tensor in format f.
func RenderStored(t *Type, stored json.RawMessage, f Format) json.RawMessage {
	if f == Short {
		return stored
	}
	v, err := Parse(t, stored)
	if err != nil {
		return stored
	}
	return v.Render(f)
}
