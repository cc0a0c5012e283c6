package gen

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/schema"
)

// RefStyle is how [Generate] writes the typed YQL field references.
type RefStyle int

const (
	// RefsAuto, the zero value, writes them flat when at most one schema of
	// the application has references (see [RefsFlat]), grouped otherwise.
	RefsAuto RefStyle = iota
	// RefsFlat writes them as package-level variables named after their
	// fields, music.Year.Lt(1990), for a package that holds one schema, as
	// a package per entity reads. It is an error ([ErrFlatRefs]) when more
	// than one schema has references: a schema has them when a field of its
	// document, its own or inherited, is an attribute or an index of a type
	// that has a reference, so a schema and the parent it inherits fields
	// from are two, while a parent without such fields is none. A reference
	// whose name the file already gives to something else (a field named
	// music is Music, the document struct) is an error naming both.
	RefsFlat
	// RefsGrouped writes them per schema as the fields of one variable,
	// <Schema>Fields: rich.SongFields.Year.Lt(1990).
	RefsGrouped
)

// ErrFlatRefs is the error of [RefsFlat] on an application where more than
// one schema has field references; it names them.
var ErrFlatRefs = errors.New("vespagen: flat field references (-refs flat) need a package of one schema with references")

// flatRefs reports whether the file is to have flat references.
func (g *generator) flatRefs(style RefStyle) (bool, error) {
	var with []string
	for _, s := range g.app.Schemas {
		if hasRefs(s) {
			with = append(with, s.Name+" ("+filepath.Base(s.File)+")")
		}
	}
	switch style {
	case RefsAuto:
		return len(with) <= 1, nil
	case RefsGrouped:
		return false, nil
	case RefsFlat:
		if len(with) > 1 {
			return false, fmt.Errorf("%w: schemas %s have them; write them grouped (-refs grouped)", ErrFlatRefs, strings.Join(with, ", "))
		}
		return true, nil
	}
	return false, fmt.Errorf("vespagen: unknown RefStyle %d", style)
}

// hasRefs reports whether s gets at least one field reference.
func hasRefs(s *schema.Schema) bool {
	for _, f := range s.Document.AllFields() {
		if r, ok := queryRefOf(f); ok && r.skip == "" {
			return true
		}
	}
	return false
}

// queryRefs writes the typed YQL references of the searchable fields, flat
// or grouped in <base>Fields.
func (g *generator) queryRefs(s *schema.Schema, base string, fields []*schema.Field) error {
	type ref struct {
		goName string
		field  *schema.Field
		queryRef
	}
	var refs []ref
	var skipReasons []string         // in order of first use
	skipped := map[string][]string{} // reason -> "field (type)"
	sc := newScope(base + "Fields")
	for _, f := range fields {
		r, ok := queryRefOf(f)
		if !ok {
			continue
		}
		if r.skip != "" {
			if skipped[r.skip] == nil {
				skipReasons = append(skipReasons, r.skip)
			}
			skipped[r.skip] = append(skipped[r.skip], f.Name+" ("+f.Type.String()+")")
			continue
		}
		n := goName(f.Name)
		if err := sc.claim(n, origin{"field " + f.Name + " of schema " + s.Name, s.File, f.Line}); err != nil {
			return err
		}
		refs = append(refs, ref{n, f, r})
	}
	// Flat, a schema without references has nothing to hang the list of
	// skipped fields on.
	if len(refs) == 0 && (g.flat || len(skipReasons) == 0) {
		return nil
	}
	what := "typed YQL references to the fields of " + s.Document.Name + " that a query can search " +
		"(attributes and indexed fields), each with the operators Vespa takes for its type, so that a " +
		"condition the field cannot answer does not compile (a string field has Contains and no Lt). " +
		"Fields that are neither attribute nor index are not here: YQL cannot search them."
	if len(skipReasons) > 0 {
		what += " Searchable fields left out:"
		for i, why := range skipReasons {
			sep := ";"
			if i == len(skipReasons)-1 {
				sep = "."
			}
			what += " " + strings.Join(skipped[why], ", ") + ", as " + why + sep
		}
	}
	g.useVespa = true
	g.p("")
	if g.flat {
		// The names are claimed once the rest of the file has claimed its
		// own, so that a collision is always reported at the field.
		g.line(comment("", "The "+what))
		g.p("var (")
		for _, r := range refs {
			g.line(comment("\t", fieldDoc(r.goName, r.field)))
			g.p("%s = %s", r.goName, r.value())
			g.flatNames = append(g.flatNames, claim{r.goName, origin{"the reference to field " + r.field.Name +
				" of schema " + s.Name, s.File, r.field.Line}})
		}
		g.p(")")
		return nil
	}
	v := base + "Fields"
	if err := g.pkg.claim(v, origin{"the field references of schema " + s.Name, s.File, s.Line}); err != nil {
		return err
	}
	g.line(comment("", v+" are "+what))
	g.p("var %s = struct {", v)
	for _, r := range refs {
		g.p("%s %s", r.goName, r.typ)
	}
	g.p("}{")
	for _, r := range refs {
		g.p("%s: %s,", r.goName, r.init)
	}
	g.p("}")
	return nil
}

// fieldDoc is the first sentence of the comment of a Go name of field f:
// "Year is year, int (summary | attribute).".
func fieldDoc(goName string, f *schema.Field) string {
	c := goName + " is " + f.Name + ", " + f.Type.String()
	if f.Indexing != "" {
		c += " (" + f.Indexing + ")"
	}
	return c + "."
}

// queryRef is the typed YQL reference of a searchable field: its Go type
// and the expression that makes it, or why it has none.
type queryRef struct {
	typ, init string
	skip      string // why the field has no reference; "" when it has one
}

// value returns the expression of the reference as a value of its type:
// query.StringField("title"), query.IntegerFieldOf[int32]("year").
func (r queryRef) value() string {
	if strings.HasPrefix(r.init, `"`) {
		return r.typ + "(" + r.init + ")"
	}
	return r.init
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
		n := scalarTypes[t.Kind]
		return queryRef{typ: "query.IntegerField[" + n + "]", init: "query.IntegerFieldOf[" + n + "](" + name + ")"}, true
	case schema.Float, schema.Double:
		n := scalarTypes[t.Kind]
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
