package gen

import (
	"strconv"

	"github.com/govespa/govespa/vespa/schema"
)

// queryRef is the typed YQL reference of a searchable field: its Go type
// and the expression that makes it, or why it has none.
type queryRef struct {
	typ, init string
	skip      string // why the field has no reference; "" when it has one
}

// queryRefOf returns the reference of a document field that is an
// attribute or an index (searchable); ok is false for any other field,
// which YQL cannot search.
func queryRefOf(f *schema.Field) (ref queryRef, ok bool) {
	if !f.Attribute && !f.Index {
		return queryRef{}, false
	}
	name := strconv.Quote(f.Name)
	t := f.Type
	multi := t.Kind == schema.Array
	if multi {
		t = t.Elem // an array's comparisons match any element
	}
	simple := func(typ string) queryRef { return queryRef{typ: typ, init: name} }
	switch t.Kind {
	case schema.String:
		return simple("query.StringField"), true
	case schema.URI:
		return simple("query.URIField"), true
	case schema.Bool:
		return simple("query.BoolField"), true
	case schema.Position:
		return simple("query.PositionField"), true
	case schema.Int, schema.Long, schema.Byte:
		n := map[schema.Kind]string{schema.Int: "int32", schema.Long: "int64", schema.Byte: "int8"}[t.Kind]
		return queryRef{typ: "query.IntegerField[" + n + "]", init: "query.IntegerFieldOf[" + n + "](" + name + ")"}, true
	case schema.Float, schema.Double:
		n := map[schema.Kind]string{schema.Float: "float32", schema.Double: "float64"}[t.Kind]
		return queryRef{typ: "query.NumericField[" + n + "]", init: name}, true
	}
	if multi {
		return queryRef{skip: "an array of " + t.String() + " has no operator of its own"}, true
	}
	switch t.Kind {
	case schema.Predicate:
		return simple("query.PredicateField"), true
	case schema.WeightedSet:
		k := map[schema.Kind]string{schema.String: "string", schema.Int: "int32", schema.Long: "int64"}[t.Elem.Kind]
		return queryRef{typ: "query.WeightedSetField[" + k + "]", init: name}, true
	case schema.Tensor:
		indexed, mapped := 0, 0
		for _, d := range t.Tensor.Dims {
			if d.Mapped {
				mapped++
			} else {
				indexed++
			}
		}
		if indexed == 1 && mapped <= 1 && f.Attribute {
			return simple("query.TensorField"), true
		}
		return queryRef{skip: "nearestNeighbor takes a tensor attribute of one indexed dimension (and at most one mapped)"}, true
	case schema.Raw:
		return queryRef{skip: "YQL has no operator for raw"}, true
	case schema.Reference:
		return queryRef{skip: "a reference is searched through the fields imported with it"}, true
	case schema.Struct, schema.Map:
		return queryRef{skip: "struct and map fields are searched per sub-field (sameElement), which these references do not model"}, true
	}
	return queryRef{skip: "no typed reference for " + t.String()}, true
}
