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
			continue
		}
		if declared && isTensorType(f.Type) {
			raw = renderTensor(f.Type, raw)
		}
		if declared && f.Type == "predicate" {
			raw = renderPredicate(raw)
		}
		h.fields = append(h.fields, field{Key: name, Val: raw})
	}
	if m.summaryFeatures != nil {
		h.fields = append(h.fields, field{Key: "summaryfeatures", Val: m.summaryFeatures})
	}
	return h
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
