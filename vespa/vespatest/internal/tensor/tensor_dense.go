package tensor

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// The put path of a dense vector is the emulator's hottest: embedding
// documents carry hundreds of numbers each. normalizeVector reads the common
// input forms with a byte scanner instead of decoding into []any, and writes
// the stored short form directly. Anything it does not recognise falls back to
// parseTensor, which also produces the error messages.

// NormalizeVector stores a tensor with one indexed dimension given as a flat
// array of numbers, or as an object of "values" (a flat array) and an
// optional "type". raw is valid JSON (the document was validated). ok is false
// for any other input, which the caller then hands to parseTensor.
func (t *Type) NormalizeVector(raw []byte) (json.RawMessage, bool) {
	if len(t.dims) != 1 || t.dims[0].mapped() {
		return nil, false
	}
	typ := t.String()
	out := make([]byte, 0, len(typ)+len(raw)*5/4+32)
	out = append(out, `{"type":`...)
	out = append(out, jsonx.String(typ)...)
	out = append(out, `,"values":[`...)
	i := jsonx.SkipWS(raw, 0)
	if i >= len(raw) {
		return nil, false
	}
	var ok bool
	switch raw[i] {
	case '[':
		out, i, ok = t.appendVector(out, raw, i)
	case '{':
		out, i, ok = t.appendVectorObject(out, raw, i)
	}
	if !ok || jsonx.SkipWS(raw, i) != len(raw) {
		return nil, false
	}
	return append(out, "]}"...), true
}

// appendVector appends the cells of the flat array of numbers at raw[i],
// rounded to the cell type, and returns the index after the array.
func (t *Type) appendVector(out, raw []byte, i int) ([]byte, int, bool) {
	n := 0
	i = jsonx.SkipWS(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end := jsonx.NumberEnd(raw, i)
		if end < 0 {
			return nil, 0, false
		}
		f, err := strconv.ParseFloat(string(raw[i:end]), 64)
		if err != nil {
			return nil, 0, false
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		if f = t.round(f); math.IsInf(f, 0) || math.IsNaN(f) {
			out = append(out, "null"...)
		} else {
			out = strconv.AppendFloat(out, f, 'g', -1, 64)
		}
		i = jsonx.SkipWS(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = jsonx.SkipWS(raw, i+1)
		}
	}
	if i >= len(raw) || n != t.dims[0].size {
		return nil, 0, false // parseTensor reports a wrong count
	}
	return out, i + 1, true
}

// appendVectorObject appends the cells of {"type":"…","values":[…]} (keys
// in any order, "type" optional, "values" a flat array of numbers).
func (t *Type) appendVectorObject(out, raw []byte, i int) ([]byte, int, bool) {
	seen := false
	i = jsonx.SkipWS(raw, i+1)
	for i < len(raw) && raw[i] != '}' {
		kEnd := jsonx.StringEnd(raw, i)
		if kEnd < 0 {
			return nil, 0, false
		}
		key := string(raw[i+1 : kEnd-1])
		i = jsonx.SkipWS(raw, kEnd)
		i = jsonx.SkipWS(raw, i+1) // the colon
		if i >= len(raw) {
			return nil, 0, false
		}
		var ok bool
		switch {
		case key == "values" && raw[i] == '[' && !seen:
			out, i, ok = t.appendVector(out, raw, i)
			seen = true
		case key == "type" && raw[i] == '"':
			i = jsonx.StringEnd(raw, i)
			ok = i > 0
		}
		if !ok {
			return nil, 0, false
		}
		i = jsonx.SkipWS(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = jsonx.SkipWS(raw, i+1)
		}
	}
	if i >= len(raw) || !seen {
		return nil, 0, false
	}
	return out, i + 1, true
}
