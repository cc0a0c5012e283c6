package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// docCheck checks the puts and updates of one document type.
type docCheck struct {
	a *Application
	s *Schema
	d *Document
}

func newDocCheck(a *Application, s *Schema) *docCheck {
	return &docCheck{a: a, s: s, d: s.Document}
}

// CheckPut checks the "fields" object of a put of a document of docType
// against the schema, as Vespa's document JSON reader would: every field
// must be one of the document's (inherited ones included), and each value
// must be JSON Vespa reads as the field's type (numbers in range, a string
// where Vespa takes one, arrays, weighted sets, maps, structs with known
// fields, positions, tensors with the schema's dimensions and a number of
// dense cells that fits). It is no stricter than Vespa: where Vespa takes
// the text of a string for a number ("1990" for an int), so does it, and a
// value whose form it does not know is let through. A nil or empty fields
// checks only the document type. The error is a [*CheckError].
func (a *Application) CheckPut(docType string, fields []byte) error {
	c, err := a.checkOf(docType)
	if err != nil {
		return err
	}
	return c.eachField(fields, func(f *Field, name string, v json.RawMessage) error {
		return c.value(name, f.Type, v)
	})
}

// CheckUpdate checks the "fields" object of an update of a document of
// docType: every field must be the document's, each update operation one
// its type takes (arithmetic on numbers, add and remove on arrays,
// weighted sets and tensors, match on arrays and weighted sets, modify on
// tensors, assign on any), and an assigned value must fit the type as for
// [Application.CheckPut]. A field path ("tracks[0].title", "m{key}") is
// checked only for its field's name. The error is a [*CheckError].
func (a *Application) CheckUpdate(docType string, fields []byte) error {
	c, err := a.checkOf(docType)
	if err != nil {
		return err
	}
	return c.eachField(fields, func(f *Field, name string, v json.RawMessage) error {
		if name != f.Name { // a field path: its value's type is not known here
			return nil
		}
		var ops map[string]json.RawMessage
		if err := json.Unmarshal(v, &ops); err != nil {
			return c.fail(name, "an object of update operations", describe(v))
		}
		for op, arg := range ops {
			if err := c.update(f, op, arg); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkOf returns the check of docType.
func (a *Application) checkOf(docType string) (*docCheck, error) {
	c := a.checks[docType]
	if c == nil {
		return nil, &CheckError{DocType: docType, Want: "no such document type in the application"}
	}
	return c, nil
}

// eachField calls f for each field of the JSON object fields, with its
// declaration; a field the document does not have is an error.
func (c *docCheck) eachField(fields []byte, each func(f *Field, name string, v json.RawMessage) error) error {
	if len(bytes.TrimSpace(fields)) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(fields, &m); err != nil {
		return c.fail("", "a JSON object of fields", describe(fields))
	}
	for name, v := range m {
		base := name
		if i := strings.IndexAny(name, ".[{"); i > 0 {
			base = name[:i]
		}
		f := c.d.Field(base)
		if f == nil {
			return &CheckError{DocType: c.d.Name, Field: name, Want: "a field of " + c.d.Name, Got: "no such field"}
		}
		if err := each(f, name, v); err != nil {
			return err
		}
	}
	return nil
}

func (c *docCheck) fail(path, want, got string) error {
	return &CheckError{DocType: c.d.Name, Field: path, Want: want, Got: got}
}

// value checks v, at path, against t.
func (c *docCheck) value(path string, t *Type, v json.RawMessage) error {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil // Vespa skips a null value
	}
	switch t.Kind {
	case String, URI, Predicate:
		if !isScalar(v) {
			return c.fail(path, t.String(), describe(v))
		}
	case Raw, Reference:
		if v[0] != '"' {
			return c.fail(path, t.String()+" as a JSON string", describe(v))
		}
		if t.Kind == Raw {
			var s string
			if json.Unmarshal(v, &s) != nil {
				return c.fail(path, "base64 text", describe(v))
			}
			if _, err := base64.StdEncoding.DecodeString(s); err != nil {
				if _, err := base64.RawStdEncoding.DecodeString(s); err != nil {
					return c.fail(path, "base64 text", describe(v))
				}
			}
		}
	case Int, Long, Byte:
		return c.integer(path, t, v)
	case Float, Double:
		if _, ok := number(v); !ok {
			return c.fail(path, t.String(), describe(v))
		}
	case Bool:
		if s := scalarText(v); s != "true" && s != "false" {
			return c.fail(path, "bool (true or false)", describe(v))
		}
	case Position:
		if v[0] != '{' && v[0] != '"' {
			return c.fail(path, "position (an object with lat and lng, or \"N37.4;W122.0\")", describe(v))
		}
	case Array:
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) != nil {
			return c.fail(path, t.String()+" as a JSON array", describe(v))
		}
		for i, e := range elems {
			p := path + "[" + strconv.Itoa(i) + "]"
			if string(bytes.TrimSpace(e)) == "null" {
				return c.fail(p, t.Elem.String(), "null")
			}
			if err := c.value(p, t.Elem, e); err != nil {
				return err
			}
		}
	case WeightedSet:
		return c.weightedSet(path, t, v)
	case Map:
		return c.mapValue(path, t, v)
	case Struct:
		return c.structValue(path, t, v)
	case Tensor:
		return c.tensor(path, t.Tensor, v)
	}
	return nil
}

// integer checks an int, long or byte: a JSON integer, or a string of one,
// in the type's range.
func (c *docCheck) integer(path string, t *Type, v json.RawMessage) error {
	bits := map[Kind]int{Int: 32, Long: 64, Byte: 8}[t.Kind]
	if _, err := strconv.ParseInt(scalarText(v), 10, bits); err != nil {
		return c.fail(path, fmt.Sprintf("%s (a %d-bit integer)", t, bits), describe(v))
	}
	return nil
}

func (c *docCheck) weightedSet(path string, t *Type, v json.RawMessage) error {
	if v[0] == '[' {
		return nil // the older form, [[key, weight], ...]
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return c.fail(path, t.String()+" as an object of weights", describe(v))
	}
	for k, w := range m {
		p := path + "{" + k + "}"
		if err := c.key(p, t.Elem, k); err != nil {
			return err
		}
		if _, err := strconv.ParseInt(scalarText(w), 10, 32); err != nil {
			return c.fail(p, "an integer weight", describe(w))
		}
	}
	return nil
}

func (c *docCheck) mapValue(path string, t *Type, v json.RawMessage) error {
	if v[0] == '[' {
		var entries []struct {
			Key   json.RawMessage `json:"key"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(v, &entries) != nil {
			return c.fail(path, t.String()+` as an object or an array of {"key", "value"}`, describe(v))
		}
		for i, e := range entries {
			p := path + "[" + strconv.Itoa(i) + "]"
			if err := c.value(p+".key", t.Key, e.Key); err != nil {
				return err
			}
			if err := c.value(p+".value", t.Elem, e.Value); err != nil {
				return err
			}
		}
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return c.fail(path, t.String()+" as a JSON object", describe(v))
	}
	for k, e := range m {
		p := path + "{" + k + "}"
		if err := c.key(p, t.Key, k); err != nil {
			return err
		}
		if err := c.value(p, t.Elem, e); err != nil {
			return err
		}
	}
	return nil
}

// key checks an object key against a scalar type.
func (c *docCheck) key(path string, t *Type, k string) error {
	switch t.Kind {
	case Int, Long, Byte:
		return c.integer(path, t, json.RawMessage(strconv.Quote(k)))
	case Float, Double:
		if _, err := strconv.ParseFloat(k, 64); err != nil {
			return c.fail(path, t.String()+" key", strconv.Quote(k))
		}
	case Bool:
		if k != "true" && k != "false" {
			return c.fail(path, "bool key", strconv.Quote(k))
		}
	}
	return nil
}

func (c *docCheck) structValue(path string, t *Type, v json.RawMessage) error {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return c.fail(path, "struct "+t.Struct+" as a JSON object", describe(v))
	}
	st := c.a.Struct(c.s, t.Struct)
	if st == nil {
		return nil // NewApplication checked it exists; an inherited one it cannot see here
	}
	fields := c.a.StructFields(c.s, st)
	for name, e := range m {
		var f *Field
		for _, sf := range fields {
			if sf.Name == name {
				f = sf
				break
			}
		}
		p := path + "." + name
		if f == nil {
			return c.fail(p, "a field of struct "+t.Struct, "no such field")
		}
		if err := c.value(p, f.Type, e); err != nil {
			return err
		}
	}
	return nil
}

// tensor checks what it knows of Vespa's tensor JSON forms: cell values
// are numbers in the cell type's range, addresses name the type's
// dimensions, and dense values and hex strings have one cell per cell of
// the type. Forms it does not know are let through.
func (c *docCheck) tensor(path string, tt *TensorType, v json.RawMessage) error {
	if tt == nil {
		return nil
	}
	dense, size := true, 1
	for _, d := range tt.Dims {
		if d.Mapped {
			dense = false
		} else {
			size *= d.Size
		}
	}
	switch v[0] {
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return c.fail(path, tt.String(), describe(v))
		}
		if !dense {
			return nil
		}
		digits := map[CellType]int{CellInt8: 2, CellBFloat16: 4, CellFloat: 8, CellDouble: 16}[tt.Cell]
		if digits > 0 && len(s) != size*digits {
			return c.fail(path, fmt.Sprintf("%s: %d hex digits (%d cells)", tt, size*digits, size), fmt.Sprintf("%d", len(s)))
		}
		return nil
	case '[':
		if dense {
			return c.denseValues(path, tt, size, v)
		}
		return c.cells(path, tt, v)
	case '{':
	default:
		return c.fail(path, tt.String(), describe(v))
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return c.fail(path, tt.String(), describe(v))
	}
	if cells, ok := m["cells"]; ok {
		if bytes.HasPrefix(bytes.TrimSpace(cells), []byte("[")) {
			return c.cells(path, tt, cells)
		}
		return c.labelValues(path, tt, cells)
	}
	if values, ok := m["values"]; ok && dense {
		return c.denseValues(path, tt, size, values)
	}
	if _, ok := m["blocks"]; ok {
		return nil
	}
	if len(tt.Dims) == 1 && tt.Dims[0].Mapped {
		return c.labelValues(path, tt, v) // the short form {"label": value}
	}
	return nil
}

// denseValues checks a (possibly nested) array of size numbers.
func (c *docCheck) denseValues(path string, tt *TensorType, size int, v json.RawMessage) error {
	var n int
	var walk func(json.RawMessage) error
	walk = func(v json.RawMessage) error {
		v = bytes.TrimSpace(v)
		if len(v) > 0 && v[0] == '[' {
			var elems []json.RawMessage
			if json.Unmarshal(v, &elems) != nil {
				return c.fail(path, tt.String(), describe(v))
			}
			for _, e := range elems {
				if err := walk(e); err != nil {
					return err
				}
			}
			return nil
		}
		n++
		return c.cell(path, tt, v)
	}
	if err := walk(v); err != nil {
		return err
	}
	if n != size {
		return c.fail(path, fmt.Sprintf("%s: %d cell values", tt, size), strconv.Itoa(n))
	}
	return nil
}

// cells checks [{"address": {...}, "value": v}, ...].
func (c *docCheck) cells(path string, tt *TensorType, v json.RawMessage) error {
	var cells []struct {
		Address map[string]json.RawMessage `json:"address"`
		Value   json.RawMessage            `json:"value"`
	}
	if json.Unmarshal(v, &cells) != nil {
		return c.fail(path, tt.String()+` cells [{"address": …, "value": …}]`, describe(v))
	}
	for i, cell := range cells {
		p := path + ".cells[" + strconv.Itoa(i) + "]"
		if len(cell.Address) != len(tt.Dims) {
			return c.fail(p, fmt.Sprintf("an address of %s (%d dimensions)", tt, len(tt.Dims)), fmt.Sprintf("%d dimensions", len(cell.Address)))
		}
		for _, d := range tt.Dims {
			label, ok := cell.Address[d.Name]
			if !ok {
				return c.fail(p, fmt.Sprintf("an address of %s (dimension %s)", tt, d.Name), "no "+d.Name)
			}
			if !d.Mapped {
				i, err := strconv.Atoi(scalarText(label))
				if err != nil || i < 0 || i >= d.Size {
					return c.fail(p, fmt.Sprintf("an index of %s[%d]", d.Name, d.Size), describe(label))
				}
			}
		}
		if err := c.cell(p, tt, cell.Value); err != nil {
			return err
		}
	}
	return nil
}

// labelValues checks {"label": value} of a tensor with one mapped dimension.
func (c *docCheck) labelValues(path string, tt *TensorType, v json.RawMessage) error {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return c.fail(path, tt.String(), describe(v))
	}
	for label, e := range m {
		if err := c.cell(path+"{"+label+"}", tt, e); err != nil {
			return err
		}
	}
	return nil
}

// cell checks one cell value.
func (c *docCheck) cell(path string, tt *TensorType, v json.RawMessage) error {
	f, ok := number(v)
	if !ok {
		return c.fail(path, "a number (a cell of "+tt.String()+")", describe(v))
	}
	if tt.Cell == CellInt8 && (f < -128 || f > 127 || f != math.Trunc(f)) {
		return c.fail(path, "an int8 cell (-128 to 127)", describe(v))
	}
	return nil
}

// update checks one update operation of field f.
func (c *docCheck) update(f *Field, op string, arg json.RawMessage) error {
	t := f.Type
	ok := false
	switch op {
	case "assign":
		return c.value(f.Name, t, arg)
	case "increment", "decrement", "multiply", "divide":
		ok = t.Kind.Numeric()
		if ok {
			if _, isNum := number(arg); !isNum {
				return c.fail(f.Name, "a number to "+op+" by", describe(arg))
			}
		}
	case "add", "remove":
		ok = t.Kind == Array || t.Kind == WeightedSet || t.Kind == Tensor
	case "match":
		ok = t.Kind == Array || t.Kind == WeightedSet
	case "modify":
		ok = t.Kind == Tensor
	default:
		return c.fail(f.Name, "an update operation (assign, add, remove, increment, decrement, multiply, divide, match, modify)", strconv.Quote(op))
	}
	if !ok {
		return c.fail(f.Name, "an update operation that "+t.String()+" takes", strconv.Quote(op))
	}
	return nil
}

// number reads a JSON number, or a string Vespa reads as one (NaN and
// Infinity included).
func number(v json.RawMessage) (float64, bool) {
	f, err := strconv.ParseFloat(scalarText(v), 64)
	if errors.Is(err, strconv.ErrRange) {
		return f, true // too large for a float64 is Vespa's to judge
	}
	return f, err == nil
}

// isScalar reports whether v is a JSON string, number or bool.
func isScalar(v json.RawMessage) bool {
	return v[0] != '{' && v[0] != '['
}

// scalarText returns a JSON string's text, or the token of another scalar.
func scalarText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return string(v)
}

// describe returns a short description of v for an error.
func describe(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '{':
		return "an object"
	case v[0] == '[':
		return "an array"
	case len(v) > 40:
		return string(v[:40]) + "…"
	}
	return string(v)
}
