package gen

import (
	"github.com/govespa/govespa/vespa/schema"
)

// goType is the Go type of a Vespa field type.
type goType struct {
	expr string // the Go type, "vespa.DenseTensor[float32]"
	omit string // the json tag option: "", "omitempty" or "omitzero"
	// raw is set when the value, or a part of it, is kept as
	// json.RawMessage; it says which Vespa type and why.
	raw string
	// note says what the JSON value is, where the Go type does not.
	note string
}

// The omit rule (see the document type's doc comment, docOmitRule):
// strings, bytes, slices, maps and tensors are left out when empty, as
// Vespa's document JSON writer leaves out an empty string, array, weighted
// set and map (JsonSerializationHelper); structs and positions when zero.
// Numbers and bools are always written: 0 and false are values in Vespa
// (year < 1990 matches 0), while a field left out of a put is unset.
const (
	omitEmpty = "omitempty"
	omitZero  = "omitzero"
)

// scalarTypes are the Go types of Vespa's numbers and bool: int is int32,
// long int64, byte int8, float float32 and double float64, the sizes Vespa
// stores them in.
var scalarTypes = map[schema.Kind]string{
	schema.Int: "int32", schema.Long: "int64", schema.Byte: "int8",
	schema.Float: "float32", schema.Double: "float64", schema.Bool: "bool",
}

// typeOf maps a Vespa type to its Go type, as Vespa's document JSON
// (com.yahoo.document.json, JsonSerializationHelper and the readers)
// writes and reads it.
func (g *generator) typeOf(s *schema.Schema, t *schema.Type) goType {
	switch t.Kind {
	case schema.String, schema.URI:
		return goType{expr: "string", omit: omitEmpty}
	case schema.Predicate:
		return goType{expr: "string", omit: omitEmpty, note: "The predicate's text, such as \"genre in [rock]\"."}
	case schema.Reference:
		return goType{expr: "string", omit: omitEmpty,
			note: "The text of the referenced document's ID, such as \"id:ns:" + t.Reference + "::a\"."}
	case schema.Int, schema.Long, schema.Float, schema.Double, schema.Bool, schema.Byte:
		return goType{expr: scalarTypes[t.Kind]}
	case schema.Raw:
		// encoding/json writes and reads []byte as standard base64 with
		// padding, which is what Vespa writes and reads. Checked in
		// vespa-engine/vespa: document/src/main/java/com/yahoo/document/json/
		// JsonSerializationHelper.java writes Base64.getEncoder() (basic:
		// + and /, padded), readers/SingleValueReader.java reads
		// Base64.getMimeDecoder() (the same alphabet), and query results
		// (container-search .../search/rendering/JsonGeneratorDataSink.java)
		// write Jackson's default variant, also padded standard base64,
		// unless renderer.json.rawAsBase64=false asks for hex.
		return goType{expr: "[]byte", omit: omitEmpty, note: "Base64 in JSON, standard alphabet with padding, " +
			"as Vespa writes and reads it (a query with renderer.json.rawAsBase64=false renders hex instead, " +
			"which does not decode)."}
	case schema.Position:
		g.useVespa = true
		return goType{expr: "vespa.Position", omit: omitZero}
	case schema.Array:
		e := g.typeOf(s, t.Elem)
		return goType{expr: "[]" + e.expr, omit: omitEmpty, raw: e.raw, note: e.note}
	case schema.WeightedSet:
		g.useVespa = true
		return goType{expr: "vespa.WeightedSet[" + g.typeOf(s, t.Elem).expr + "]", omit: omitEmpty}
	case schema.Map:
		key, ok := mapKey(t.Key)
		if !ok {
			return g.rawType(t.String() + ": encoding/json has no map keys of type " + t.Key.String())
		}
		v := g.typeOf(s, t.Elem)
		g.useVespa = true
		return goType{expr: "vespa.Map[" + key + ", " + v.expr + "]", omit: omitEmpty, raw: v.raw, note: v.note}
	case schema.Struct:
		return goType{expr: g.structNames[g.app.Struct(s, t.Struct)], omit: omitZero}
	case schema.Tensor:
		return g.tensorType(t.Tensor)
	}
	return g.rawType(t.String() + ": a type vespagen does not know")
}

// mapKey returns the Go type of a map key, for the key types encoding/json
// writes as object keys.
func mapKey(t *schema.Type) (string, bool) {
	switch t.Kind {
	case schema.String, schema.URI, schema.Predicate:
		return "string", true
	case schema.Int, schema.Long, schema.Byte:
		return scalarTypes[t.Kind], true
	}
	return "", false
}

// tensorType maps a tensor with one indexed dimension to a DenseTensor,
// one with one mapped dimension to a MappedTensor, and keeps any other raw.
func (g *generator) tensorType(tt *schema.TensorType) goType {
	if len(tt.Dims) == 1 {
		g.useVespa = true
		cell := cellType(tt.Cell)
		if tt.Dims[0].Mapped {
			return goType{expr: "vespa.MappedTensor[" + cell + "]", omit: omitEmpty}
		}
		return goType{expr: "vespa.DenseTensor[" + cell + "]", omit: omitEmpty}
	}
	return g.rawType(tt.String() + ": only tensors of one dimension have a Go type")
}

// cellType is the Go type of a tensor cell: Vespa's bfloat16 is read and
// written as float32 (the JSON number is the same).
func cellType(c schema.CellType) string {
	switch c {
	case schema.CellFloat, schema.CellBFloat16:
		return "float32"
	case schema.CellInt8:
		return "int8"
	}
	return "float64"
}

func (g *generator) rawType(why string) goType {
	g.useJSON = true
	return goType{expr: "json.RawMessage", omit: omitEmpty, raw: why}
}
