package search

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
	"github.com/govespa/govespa/vespa/vespatest/internal/tensor"
)

// renderHit builds the rendered hit: documentid as id, the document type as source (the caller
// puts the cluster in its place), and the
// fields sddocname, documentid and then the document fields of the default summary (schema order
// when declared, stored order otherwise; every field in lenient mode). With a YQL field list
// only those fields are written, and still only summary fields.
func renderHit(m match, selected []string, schemas schemaSet) hit {
	d := m.doc
	h := hit{id: d.ID, relevance: m.score, source: d.docType()}
	// Match features are set on the hit when it is matched, before the
	// summary fill adds the rest; summary features come with the summary.
	if m.matchFeatures != nil {
		h.fields = append(h.fields, field{Key: "matchfeatures", Val: m.matchFeatures})
	}
	if selected == nil {
		h.fields = append(h.fields,
			field{Key: "sddocname", Val: jsonx.String(d.docType())},
			field{Key: "documentid", Val: jsonx.String(d.ID)})
	}
	want := map[string]bool{}
	for _, s := range selected {
		want[s] = true
	}
	names := d.fieldNames()
	if fs, ok := schemaOrder(schemas, d.docType()); ok {
		names = fs
	}
	for _, name := range names {
		if selected != nil && !want[name] {
			continue
		}
		f, declared := schemas.field(d.docType(), name)
		if declared && !f.InSummary() {
			continue
		}
		raw, ok := d.raw(name)
		if !ok || string(raw) == "null" {
			if declared && f.Type == "bool" && f.Attribute() {
				// An unset bool attribute holds 0, which searchsummary's
				// SingleAttrDFW writes as false: a bool has no undefined value.
				h.fields = append(h.fields, field{Key: name, Val: json.RawMessage("false")})
			}
			continue
		}
		if declared && undefinedInDocsum(f, raw) {
			continue
		}
		if declared && isTensorType(f.Type) {
			raw = renderTensor(f.Type, raw)
			if tt, err := tensor.ParseType(f.Type); err == nil && (tt.CellType() == "float" || tt.CellType() == "bfloat16") {
				raw = floatCells(raw)
			}
		}
		if declared && f.Type == "predicate" {
			raw = renderPredicate(raw)
		}
		if declared && (f.Type == "float" || f.Type == "array<float>") {
			raw = renderFloats(raw)
		}
		h.fields = append(h.fields, field{Key: name, Val: raw})
	}
	if m.summaryFeatures != nil {
		h.fields = append(h.fields, field{Key: "summaryfeatures", Val: m.summaryFeatures})
	}
	return h
}

// undefinedInDocsum reports whether the docsum leaves out the stored value
// raw of f as undefined: empty raw (searchsummary
// check_undefined_value_visitor.cpp), or an integer attribute holding its
// type's undefined value, the smallest (SingleAttrDFW.isDefaultValue,
// searchcommon undefinedvalues.h). Such a value is in a get all the same.
func undefinedInDocsum(f Field, raw json.RawMessage) bool {
	if f.Type == "raw" {
		return string(raw) == `""`
	}
	if !f.Attribute() {
		return false
	}
	var undefined int64
	switch f.Type {
	case "byte":
		undefined = math.MinInt8
	case "int":
		undefined = math.MinInt32
	case "long":
		undefined = math.MinInt64
	default:
		return false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n == undefined
}

// floatCells writes every number of a rendered tensor as the float it is:
// the container decodes a docsum's tensor into float cells, and
// JsonRenderer's tensor encoding (vespajlib JsonFormat) writes a float cell
// as a float, 0.1, where a get (document JsonWriter) writes it widened to a
// double, 0.10000000149011612. Numbers are only in cell values; the type is a
// string.
func floatCells(raw json.RawMessage) json.RawMessage {
	var b strings.Builder
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(raw) {
				i++
				b.WriteByte(raw[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			b.WriteByte(c)
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(raw) && strings.IndexByte("0123456789.eE+-", raw[j]) >= 0 {
				j++
			}
			f, err := strconv.ParseFloat(string(raw[i:j]), 32)
			if err != nil || math.IsInf(f, 0) {
				b.Write(raw[i:j])
			} else {
				b.WriteString(javaFloat(f))
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return json.RawMessage(b.String())
}

// renderFloats writes a float field's value (or an array of them) as the
// docsum holds it: the float widened to a double (searchsummary
// slime_filler.cpp and the attribute writers insertDouble a float), so 0.1
// is 0.10000000149011612 in a hit, where a get writes the float, 0.1.
func renderFloats(raw json.RawMessage) json.RawMessage {
	var x any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&x) != nil {
		return raw
	}
	widen := func(n json.Number) string {
		f, err := n.Float64()
		if err != nil {
			return n.String()
		}
		return javaDouble(float64(float32(f)))
	}
	switch v := x.(type) {
	case json.Number:
		return json.RawMessage(widen(v))
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			n, ok := e.(json.Number)
			if !ok {
				return raw
			}
			parts[i] = widen(n)
		}
		return json.RawMessage("[" + strings.Join(parts, ",") + "]")
	}
	return raw
}

// renderPredicate writes a stored predicate as the content node's docsum
// holds it (schema.Predicate.DocsumString, after document's C++
// PredicatePrinter).
func renderPredicate(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	p, err := schema.ParsePredicate(s)
	if err != nil {
		return raw // stored values were parsed when they were fed
	}
	return jsonx.String(p.DocsumString())
}

// canonicalTensorType writes a tensor type as Vespa's TensorType.toString
// does: no cell type when it is double, dimensions sorted by name.
func canonicalTensorType(typ string) string {
	if tt, err := tensor.ParseType(typ); err == nil {
		return tt.String()
	}
	return strings.ReplaceAll(typ, " ", "")
}

func schemaOrder(schemas schemaSet, t string) ([]string, bool) {
	if schemas.lenient() {
		return nil, false
	}
	fs, ok := schemas.order[t]
	return fs, ok
}

// raw returns the stored JSON of a top-level field.
func (v *docView) raw(name string) (json.RawMessage, bool) {
	v.ensure()
	for i, n := range v.names {
		if n == name {
			return v.raws[i], true
		}
	}
	return nil, false
}

// renderTensor renders a dense vector field in Vespa's short form {"type":...,"values":[...]};
// other tensors are written as stored.
func renderTensor(typ string, raw json.RawMessage) json.RawMessage {
	if _, _, ok := denseSize(typ); !ok {
		return raw
	}
	var x any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&x) != nil {
		return raw
	}
	vec, ok := parseVector(x)
	if !ok {
		return raw
	}
	var b strings.Builder
	b.WriteString(`{"type":`)
	b.Write(jsonx.String(canonicalTensorType(typ)))
	b.WriteString(`,"values":[`)
	for i, f := range vec {
		if i > 0 {
			b.WriteByte(',')
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			b.WriteString(strconv.Quote(javaDouble(f)))
			continue
		}
		b.WriteString(javaDouble(f))
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}
