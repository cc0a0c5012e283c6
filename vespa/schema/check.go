package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
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
// value whose form it does not know is let through. It refuses only two
// things Vespa takes, because Vespa would store another value than the one
// given: an int8 tensor cell that is not a whole number in -128..127
// (Vespa casts it) and a bool other than "true" or "false" in any case
// (Vespa reads it as false). A nil or empty fields
// checks only the document type. fields is taken to be JSON, as the
// feeder's reader and encoding/json make it: the check reads it in place
// and does not validate every token. The error is a [*CheckError].
func (a *Application) CheckPut(docType string, fields []byte) error {
	c, err := a.checkOf(docType)
	if err != nil {
		return err
	}
	return c.eachField(fields, func(f *Field, name string, v json.RawMessage) error {
		if name != f.Name { // a field path is for updates: a put names fields (StructReader)
			return c.fail(name, "a field of "+c.d.Name, "no such field")
		}
		return c.value(name, f.Type, v)
	})
}

// CheckUpdate checks the "fields" object of an update of a document of
// docType: every field must be the document's, each update operation one
// its type takes (arithmetic on numbers, add and remove on arrays,
// weighted sets and tensors, match on arrays, weighted sets and maps, modify on
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
		if !isObject(v) {
			return c.fail(name, "an object of update operations", describe(v))
		}
		return c.json(name, eachMember(v, func(op string, arg []byte) error { return c.update(f, op, arg) }), v)
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
	// One scan: the members, then nothing but blanks after the closing brace.
	end, err := members(fields, func(name string, v []byte) error {
		base := name
		if i := strings.IndexAny(name, ".[{"); i > 0 {
			base = name[:i]
		}
		f := c.d.Field(base)
		if f == nil {
			return &CheckError{DocType: c.d.Name, Field: name, Want: "a field of " + c.d.Name, Got: "no such field"}
		}
		return each(f, name, v)
	})
	if err == nil && skipSpace(fields, end+1) != len(fields) {
		err = errJSON
	}
	if errors.Is(err, errJSON) {
		return c.fail("", "a JSON object of fields", describe(fields))
	}
	return err
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
	case Raw: // the text of any scalar (Vespa reads a number's too)
		if !isScalar(v) || !mimeBase64(scalarText(v)) {
			return c.fail(path, "base64 text", describe(v))
		}
	case Reference:
		if v[0] != '"' {
			return c.fail(path, t.String()+" as a JSON string", describe(v))
		}
	case Int, Long, Byte:
		return c.integer(path, t, v)
	case Float, Double:
		if _, ok := number(v); !ok {
			return c.fail(path, t.String(), describe(v))
		}
	case Bool:
		if !isBool(scalarText(v)) {
			return c.fail(path, "bool (true or false)", describe(v))
		}
	case Position:
		if v[0] == '{' {
			return c.position(path, v)
		}
		if v[0] != '"' {
			return c.fail(path, "position (an object with lat and lng, or \"N37.4;W122.0\")", describe(v))
		}
	case Array:
		if !isArray(v) {
			return c.fail(path, t.String()+" as a JSON array", describe(v))
		}
		return c.json(path, eachElem(v, func(i int, e []byte) error {
			if string(e) == "null" {
				return c.fail(path+"["+strconv.Itoa(i)+"]", t.Elem.String(), "null")
			}
			if simple(t.Elem.Kind) {
				// No path is built unless the element is at fault.
				err := c.value(path, t.Elem, e)
				if err != nil { // ce is on the heap (errors.As): only here
					var ce *CheckError
					if errors.As(err, &ce) {
						ce.Field = path + "[" + strconv.Itoa(i) + "]"
					}
				}
				return err
			}
			return c.value(path+"["+strconv.Itoa(i)+"]", t.Elem, e)
		}), v)
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

// mimeBase64 reports whether Java's MIME base64 decoder, which Vespa
// decodes a raw field with (document/src/main/java/com/yahoo/document/
// datatypes/Raw.java: Base64.getMimeDecoder), takes s: it skips every byte
// that is not of the base64 alphabet, takes a last group of 2 or 3
// characters with or without its padding, and refuses a last group of one
// character, padding elsewhere, and base64 characters after the padding.
func mimeBase64(s string) bool {
	n := 0 // characters of the group being read
	for i := 0; i < len(s); i++ {
		c := s[i]
		if base64Char(c) {
			n = (n + 1) % 4
		}
		if c != '=' {
			continue
		}
		// Padding ends the data: after 2 characters, "==" at once; after 3, "=".
		if n < 2 || n == 2 && (i+1 == len(s) || s[i+1] != '=') {
			return false
		}
		for i++; i < len(s); i++ {
			if base64Char(s[i]) {
				return false
			}
		}
		return true
	}
	return n != 1
}

// base64Char reports whether c is of the base64 alphabet.
func base64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// position checks a position object as Vespa's GeoPositionReader reads
// it: lat, latitude or y, and lng, longitude or x, each a number, and no
// other member.
func (c *docCheck) position(path string, v json.RawMessage) error {
	var lat, lng bool
	err := eachMember(v, func(k string, val []byte) error {
		switch k {
		case "lat", "latitude", "y":
			lat = true
		case "lng", "longitude", "x":
			lng = true
		default:
			return c.fail(path+"."+k, "lat and lng (or latitude and longitude, or y and x) of a position", "no such member")
		}
		if _, ok := number(val); !ok {
			return c.fail(path+"."+k, "a number", describe(val))
		}
		return nil
	})
	switch {
	case err != nil:
		return c.json(path, err, v)
	case !lat:
		return c.fail(path, "a position with lat (or latitude, or y)", "no lat")
	case !lng:
		return c.fail(path, "a position with lng (or longitude, or x)", "no lng")
	}
	return nil
}

// integer checks an int, long or byte: a JSON integer, or a string of one,
// in the type's range.
func (c *docCheck) integer(path string, t *Type, v json.RawMessage) error {
	if !integerFits(t, scalarText(v)) {
		return c.fail(path, integerWant(t), describe(v)) // described only when at fault
	}
	return nil
}

// integerText checks the text of an int, long or byte; got describes it.
func (c *docCheck) integerText(path string, t *Type, text, got string) error {
	if !integerFits(t, text) {
		return c.fail(path, integerWant(t), got)
	}
	return nil
}

// integerBits is the width of an int, long or byte.
func integerBits(t *Type) int {
	switch t.Kind {
	case Int:
		return 32
	case Byte:
		return 8
	}
	return 64
}

// integerFits reports whether text is an integer of t's width.
func integerFits(t *Type, text string) bool {
	_, err := strconv.ParseInt(text, 10, integerBits(t))
	return err == nil
}

// integerWant says what an int, long or byte wants.
func integerWant(t *Type) string {
	return fmt.Sprintf("%s (a %d-bit integer)", t, integerBits(t))
}

// weightedSet checks {"key": weight, ...}, the one form Vespa reads
// (WeightedSetReader.fillWeightedSet refuses an array).
func (c *docCheck) weightedSet(path string, t *Type, v json.RawMessage) error {
	return c.eachKey(path, t.String()+" as an object of weights", t.Elem, v, func(p string, w []byte) error {
		if _, err := strconv.ParseInt(scalarText(w), 10, 32); err != nil {
			return c.fail(p, "an integer weight", describe(w))
		}
		return nil
	})
}

// eachKey checks the object v at path: each key against the type kt, and
// each value with fn, given the value's path.
func (c *docCheck) eachKey(path, want string, kt *Type, v []byte, fn func(p string, val []byte) error) error {
	if !isObject(v) {
		return c.fail(path, want, describe(v))
	}
	return c.json(path, eachMember(v, func(k string, val []byte) error {
		p := path + "{" + k + "}"
		if err := c.key(p, kt, k); err != nil {
			return err
		}
		return fn(p, val)
	}), v)
}

func (c *docCheck) mapValue(path string, t *Type, v json.RawMessage) error {
	if v[0] == '[' {
		return c.json(path, eachElem(v, func(i int, e []byte) error {
			p := path + "[" + strconv.Itoa(i) + "]"
			if !isObject(e) {
				return c.fail(p, `{"key": …, "value": …}`, describe(e))
			}
			k, _ := member(e, "key")
			val, _ := member(e, "value")
			if err := c.value(p+".key", t.Key, k); err != nil {
				return err
			}
			return c.value(p+".value", t.Elem, val)
		}), v)
	}
	return c.eachKey(path, t.String()+" as a JSON object", t.Key, v, func(p string, e []byte) error {
		return c.value(p, t.Elem, e)
	})
}

// key checks an object key against a scalar type.
func (c *docCheck) key(path string, t *Type, k string) error {
	switch t.Kind {
	case Int, Long, Byte:
		return c.integerText(path, t, k, strconv.Quote(k))
	case Float, Double:
		if _, ok := javaFloat(k); !ok {
			return c.fail(path, t.String()+" key", strconv.Quote(k))
		}
	case Bool:
		if !isBool(k) {
			return c.fail(path, "bool key", strconv.Quote(k))
		}
	}
	return nil
}

func (c *docCheck) structValue(path string, t *Type, v json.RawMessage) error {
	if !isObject(v) {
		return c.fail(path, "struct "+t.Struct+" as a JSON object", describe(v))
	}
	st := c.a.Struct(c.s, t.Struct)
	if st == nil {
		return nil // NewApplication checked it exists; an inherited one it cannot see here
	}
	fields := c.a.StructFields(c.s, st)
	return c.json(path, eachMember(v, func(name string, e []byte) error {
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
		return c.value(p, f.Type, e)
	}), v)
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
		if !dense {
			return nil
		}
		return c.hex(path, tt, size, v)
	case '[':
		if dense {
			return c.denseValues(path, tt, size, v)
		}
		return c.cells(path, tt, v)
	case '{':
	default:
		return c.fail(path, tt.String(), describe(v))
	}
	var cells, values, blocks []byte
	if err := eachMember(v, func(k string, val []byte) error {
		switch k {
		case "cells":
			// TensorReader.fillTensor: "cells" holding a number is a
			// label of the short form, not the wrapper.
			if !isScalar(val) {
				cells = val
			}
		case "values":
			values = val
		case "blocks":
			blocks = val
		}
		return nil
	}); err != nil {
		return c.json(path, err, v)
	}
	switch {
	case cells != nil && isArray(cells):
		return c.cells(path, tt, cells)
	case cells != nil:
		return c.labelValues(path, tt, cells)
	case values != nil && dense && values[0] == '"':
		return c.hex(path, tt, size, values)
	case values != nil && dense:
		return c.denseValues(path, tt, size, values)
	case blocks != nil:
		return nil
	}
	if len(tt.Dims) == 1 && tt.Dims[0].Mapped {
		return c.labelValues(path, tt, v) // the short form {"label": value}
	}
	return nil
}

// hex checks the hex string v of a dense tensor of size cells: one group
// of hex digits per cell.
func (c *docCheck) hex(path string, tt *TensorType, size int, v json.RawMessage) error {
	s := scalarText(v)
	digits := hexDigits(tt.Cell)
	if digits > 0 && len(s) != size*digits {
		return c.fail(path, fmt.Sprintf("%s: %d hex digits (%d cells)", tt, size*digits, size), fmt.Sprintf("%d hex digits", len(s)))
	}
	return nil
}

// hexDigits is the number of hex digits of one cell of type c in Vespa's
// dense hex form, or 0 for a type it does not know.
func hexDigits(c CellType) int {
	switch c {
	case CellInt8:
		return 2
	case CellBFloat16:
		return 4
	case CellFloat:
		return 8
	case CellDouble:
		return 16
	}
	return 0
}

// denseValues checks a (possibly nested) array of size numbers.
func (c *docCheck) denseValues(path string, tt *TensorType, size int, v json.RawMessage) error {
	if tt.Cell != CellInt8 {
		if n, ok := flatNumbers(v); ok {
			if n != size {
				return c.fail(path, fmt.Sprintf("%s: %d cell values", tt, size), strconv.Itoa(n))
			}
			return nil
		}
	}
	var n int
	var walk func(int, []byte) error
	walk = func(_ int, v []byte) error {
		if isArray(v) {
			return eachElem(v, walk)
		}
		n++
		return c.cell(path, tt, v)
	}
	if err := c.json(path, walk(0, v), v); err != nil {
		return err
	}
	if n != size {
		return c.fail(path, fmt.Sprintf("%s: %d cell values", tt, size), strconv.Itoa(n))
	}
	return nil
}

// cells checks [{"address": {...}, "value": v}, ...].
func (c *docCheck) cells(path string, tt *TensorType, v json.RawMessage) error {
	return c.json(path, eachElem(v, func(i int, cell []byte) error {
		p := path + ".cells[" + strconv.Itoa(i) + "]"
		addr, _ := member(cell, "address")
		value, _ := member(cell, "value")
		if !isObject(addr) {
			return c.fail(p, tt.String()+` cell {"address": …, "value": …}`, describe(cell))
		}
		n := 0
		if err := eachMember(addr, func(string, []byte) error { n++; return nil }); err != nil {
			return c.fail(p, "an address object", describe(addr))
		}
		if n != len(tt.Dims) {
			return c.fail(p, fmt.Sprintf("an address of %s (%d dimensions)", tt, len(tt.Dims)), fmt.Sprintf("%d dimensions", n))
		}
		for _, d := range tt.Dims {
			label, ok := member(addr, d.Name)
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
		return c.cell(p, tt, value)
	}), v)
}

// labelValues checks {"label": value} of a tensor with one mapped dimension.
func (c *docCheck) labelValues(path string, tt *TensorType, v json.RawMessage) error {
	if !isObject(v) {
		return c.fail(path, tt.String(), describe(v))
	}
	return c.json(path, eachMember(v, func(label string, e []byte) error {
		return c.cell(path+"{"+label+"}", tt, e)
	}), v)
}

// cell checks one cell value.
func (c *docCheck) cell(path string, tt *TensorType, v json.RawMessage) error {
	if tt.Cell != CellInt8 && isJSONNumber(v) {
		return nil // the common case, without parsing the number
	}
	f, ok := number(v)
	if !ok {
		return c.fail(path, "a number (a cell of "+tt.String()+")", describe(v))
	}
	if tt.Cell == CellInt8 && (f < -128 || f > 127 || f != math.Trunc(f)) {
		return c.fail(path, "an int8 cell (-128 to 127)", describe(v))
	}
	return nil
}

// json returns err, or the error of malformed JSON at path.
func (c *docCheck) json(path string, err error, v []byte) error {
	if errors.Is(err, errJSON) {
		return c.fail(path, "well-formed JSON", describe(v))
	}
	return err
}

// simple reports whether values of kind k hold no other values.
func simple(k Kind) bool {
	switch k {
	case Array, WeightedSet, Map, Struct, Tensor:
		return false
	}
	return true
}

// member returns the value of key in the JSON object v.
func member(v []byte, key string) ([]byte, bool) {
	var out []byte
	found := false
	_ = eachMember(v, func(k string, val []byte) error {
		if k == key {
			out, found = val, true
			return errFound
		}
		return nil
	})
	return out, found
}

var errFound = errors.New("found")

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
	case "match": // MapReader.createMapUpdate: arrays, weighted sets and maps
		ok = t.Kind == Array || t.Kind == WeightedSet || t.Kind == Map
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
	if len(v) > 0 && v[0] != '"' {
		return inRange(strconv.ParseFloat(string(v), 64)) // no copy: the string does not escape
	}
	return javaFloat(scalarText(v))
}

// inRange is strconv.ParseFloat's result as a number and whether it is
// one: too large for a float64 is Vespa's to judge.
func inRange(f float64, err error) (float64, bool) {
	return f, err == nil || errors.Is(err, strconv.ErrRange)
}

// javaFloat reads the text of a number as Java's Double.parseDouble, which
// Vespa reads it with, takes it: blanks around it and a trailing f or d
// are allowed ("1.5f", " 2 "); and as a tensor cell's text, which Vespa
// reads with JsonFormat.decodeNumberString, "-nan" and "+nan" in any case.
// (strconv also takes "inf" and "nan" in any case, which parseDouble does
// not: the check is looser there, never stricter.)
func javaFloat(s string) (float64, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }) // String.trim
	if len(s) == 4 && (s[0] == '-' || s[0] == '+') && strings.EqualFold(s[1:], "nan") {
		return math.NaN(), true
	}
	f, ok := inRange(strconv.ParseFloat(s, 64))
	if n := len(s); !ok && n > 1 && strings.ContainsRune("fFdD", rune(s[n-1])) { // not the f of "inf"
		return inRange(strconv.ParseFloat(s[:n-1], 64))
	}
	return f, ok
}

// isBool reports whether s is "true" or "false" in any case, as
// Boolean.parseBoolean reads it (Vespa's BoolFieldValue). Vespa reads any
// other text as false; the check refuses it, as it refuses an int8 cell
// that Vespa would wrap.
func isBool(s string) bool { return strings.EqualFold(s, "true") || strings.EqualFold(s, "false") }

// flatNumbers counts the elements of v when it is a flat array of
// numbers: between its brackets nothing but the bytes of JSON numbers,
// commas and blanks; ok is false for anything else (which the caller then
// reads element by element). It is the check's hot path (a 384-cell tensor
// is some 3,500 bytes), so it does not read each number's grammar: fields
// are taken to be JSON (see [Application.CheckPut]), and in JSON such an
// array holds numbers only, one more than its commas. Malformed numbers
// ("1..2", "[1,,2]") are Vespa's to refuse.
func flatNumbers(v []byte) (n int, ok bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return 0, false
	}
	body := v[i+1:]
	end := bytes.IndexByte(body, ']')
	if end < 0 || skipSpace(body, end+1) != len(body) {
		return 0, false
	}
	cells := body[:end]
	// Every byte looked up, none branched on: 8 at a time.
	var other byte
	j := 0
	for ; j+8 <= len(cells); j += 8 {
		c := cells[j : j+8 : j+8]
		other |= notInNumbers[c[0]] | notInNumbers[c[1]] | notInNumbers[c[2]] | notInNumbers[c[3]] |
			notInNumbers[c[4]] | notInNumbers[c[5]] | notInNumbers[c[6]] | notInNumbers[c[7]]
	}
	for ; j < len(cells); j++ {
		other |= notInNumbers[cells[j]]
	}
	if other != 0 {
		return 0, false
	}
	if skipSpace(cells, 0) == len(cells) {
		return 0, true // []
	}
	return bytes.Count(cells, []byte{','}) + 1, true
}

// notInNumbers is 1 for every byte that is none of a JSON number's
// (digits, '-', '+', '.', 'e', 'E'), a comma or a JSON blank.
var notInNumbers = func() (t [256]byte) {
	for c := range t {
		t[c] = 1
	}
	for _, c := range []byte("0123456789-+.eE, \t\n\r") {
		t[c] = 0
	}
	return t
}()

// isJSONNumber reports whether v is a JSON number token (RFC 8259 §6).
func isJSONNumber(v []byte) bool { return numberEnd(v, 0) == len(v) }

// numberEnd returns the index just after the JSON number at v[i], or -1.
func numberEnd(v []byte, i int) int {
	if i < len(v) && v[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(v) && v[i] == '0' {
		i++
	} else if digits() == 0 {
		return -1
	}
	if i < len(v) && v[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
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
		n := 40
		for n > 0 && !utf8.RuneStart(v[n]) { // cut before a character, not inside one
			n--
		}
		return string(v[:n]) + "…"
	}
	return string(v)
}
