package schema_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/schema"
)

func TestParseDir_EveryType(t *testing.T) {
	app, err := schema.ParseDir("testdata/rich")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(app.Schemas); got != 2 || app.Schemas[0].Name != "brand" || app.Schemas[1].Name != "product" {
		t.Fatalf("schemas: %d %v", got, app.Schemas)
	}
	doc := app.Document("product")
	want := map[string]string{
		"title": "string", "sku": "string", "stock": "int", "views": "long", "rating": "float",
		"price": "double", "available": "bool", "flags": "byte", "location": "position", "url": "uri",
		"eligible": "predicate", "thumbnail": "raw", "brand_ref": "reference<brand>",
		"tags": "array<string>", "sizes": "array<int>", "categories": "weightedset<string>",
		"attributes": "map<string,string>", "box": "dimensions", "embedding": "tensor<float>(x[4])",
		"scores": "tensor<int8>(cat{})", "mixed": "tensor<bfloat16>(cat{},x[2])", "weights": "tensor(x[2],y[3])",
	}
	for name, typ := range want {
		f := doc.Field(name)
		if f == nil {
			t.Errorf("field %s missing", name)
			continue
		}
		if got := f.Type.String(); got != typ {
			t.Errorf("field %s: type %s, want %s", name, got, typ)
		}
	}
	if n := len(doc.Fields); n != len(want) {
		t.Errorf("%d fields, want %d", n, len(want))
	}
	emb := doc.Field("embedding")
	if !emb.Attribute || !emb.Index || !emb.Summary || emb.DistanceMetric != "angular" {
		t.Errorf("embedding: %+v", emb)
	}
	if tt := emb.Type.Tensor; tt.Cell != schema.CellFloat || !tt.Dense() || tt.Dims[0] != (schema.Dim{Name: "x", Size: 4}) {
		t.Errorf("embedding tensor: %+v", tt)
	}
	if m := doc.Field("mixed").Type.Tensor; m.Dense() || m.Sparse() || !m.Dims[0].Mapped {
		t.Errorf("mixed tensor: %+v", m)
	}
	if sku := doc.Field("sku"); !slices.Equal(sku.Match, []string{"exact", "exact-terminator: \"@@\""}) || !slices.Equal(sku.Rank, []string{"filter"}) {
		t.Errorf("sku match %q rank %q", sku.Match, sku.Rank)
	}
	title := doc.Field("title")
	if !title.Index || title.Attribute || !slices.Equal(title.IndexSettings, []string{"enable-bm25"}) {
		t.Errorf("title: %+v", title)
	}
	s := app.Schema("product")
	if len(s.Fields) != 1 || s.Fields[0].Name != "title_sort" || s.Fields[0].Indexing != "input title | attribute" {
		t.Errorf("synthetic fields: %+v", s.Fields)
	}
	if len(s.ImportedFields) != 1 || *s.ImportedFields[0] != (schema.ImportedField{Reference: "brand_ref", Field: "country", Name: "brand_country", Line: s.ImportedFields[0].Line}) {
		t.Errorf("imported: %+v", s.ImportedFields)
	}
	if len(s.FieldSets) != 1 || !slices.Equal(s.FieldSets[0].Fields, []string{"title", "url"}) {
		t.Errorf("fieldsets: %+v", s.FieldSets)
	}
	sem := s.RankProfile("semantic")
	if sem == nil || !slices.Equal(sem.Inherits, []string{"base"}) {
		t.Fatalf("semantic: %+v", sem)
	}
	if sem.FirstPhase != "closeness(field, embedding) + sum(attribute(scores) * query(cat_weights))" {
		t.Errorf("first phase %q", sem.FirstPhase)
	}
	if sem.SecondPhase != "firstPhase + bm25(title)" {
		t.Errorf("second phase %q", sem.SecondPhase)
	}
	if !slices.Equal(sem.MatchFeatures, []string{"closeness(field, embedding)", "bm25(title)"}) {
		t.Errorf("match-features %q", sem.MatchFeatures)
	}
	var names []string
	for _, in := range sem.AllInputs() {
		names = append(names, in.Name)
	}
	if !slices.Equal(names, []string{"query(boost)", "query(cat_weights)", "query(mode)", "query(q)"}) {
		t.Errorf("inputs with inherited: %q", names)
	}
	base := s.RankProfile("base")
	if base.Inputs[1].Default != "1.0" || base.Inputs[1].Type != nil || base.Inputs[0].Type.String() != "tensor<float>(x[4])" {
		t.Errorf("base inputs: %+v %+v", base.Inputs[0], base.Inputs[1])
	}
	if !slices.Equal(base.SummaryFeatures, []string{"bm25(title)", "attribute(stock)"}) {
		t.Errorf("summary-features %q", base.SummaryFeatures)
	}
	if len(base.Functions) != 1 || base.Functions[0].Name != "freshness" || base.Functions[0].Expression != "attribute(views) * 0.001" {
		t.Errorf("functions %+v", base.Functions)
	}
	if len(s.Summaries) != 1 || s.Summaries[0].Name != "short" || !s.Summaries[0].FromDisk || len(s.Summaries[0].Fields) != 3 ||
		!slices.Equal(s.Summaries[0].Fields[2].Sources, []string{"title"}) || s.Summaries[0].Fields[2].Type.Kind != schema.String {
		t.Errorf("summaries %+v", s.Summaries)
	}
	box := app.Struct(s, "dimensions")
	if box == nil || len(app.StructFields(s, box)) != 3 {
		t.Errorf("struct dimensions: %+v", box)
	}
}

func TestParseDir_Inheritance(t *testing.T) {
	app, err := schema.ParseDir("testdata/inherit")
	if err != nil {
		t.Fatal(err)
	}
	child := app.Schema("child")
	var names []string
	for _, f := range child.Document.AllFields() {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"id", "rank"}) {
		t.Errorf("child fields %q", names)
	}
	tuned := child.RankProfile("tuned")
	if tuned == nil {
		t.Fatal("no tuned profile")
	}
	if in := tuned.AllInputs(); len(in) != 2 || in[0].Name != "query(v)" || in[1].Name != "query(w)" {
		t.Errorf("tuned inputs %+v", in)
	}
	if child.RankProfile("plain") == nil {
		t.Error("a child schema sees its parent's profiles")
	}
}

// TestParse_Refused: every construct the parser does not understand, and
// every malformed one, is an *Error with the file, the line and the
// construct.
func TestParse_Refused(t *testing.T) {
	cases := []struct {
		name, sd  string
		line      int
		construct string
		unknown   bool
	}{
		{"unknown in field", "schema a {\n document a {\n  field f type string {\n   indexing: summary\n   colour: red\n  }\n }\n}\n", 5, "colour", true},
		{"unknown in schema", "schema a {\n document a {}\n wibble x {}\n}\n", 3, "wibble", true},
		{"unknown in rank profile", "schema a {\n document a {}\n rank-profile r {\n  frist-phase { expression: 1 }\n }\n}\n", 4, "frist-phase", true},
		{"unknown in document", "schema a {\n document a {\n  annotation x {}\n }\n}\n", 3, "annotation", true},
		{"unknown type", "schema a {\n document a {\n  field f type strnig {}\n }\n}\n", 3, "field f", false},
		{"bad tensor", "schema a {\n document a {\n  field f type tensor<float16>(x[2]) {}\n }\n}\n", 3, "field f type tensor<float16>(x[2])", false},
		{"no type", "schema a {\n document a {\n  field f {}\n }\n}\n", 3, "field f", false},
		{"unclosed", "schema a {\n document a {\n  field f type int {\n", 3, "{", false},
		{"stray brace", "schema a {\n document a {}\n}\n}\n", 4, "}", false},
		{"unknown parent", "schema a inherits b {\n document a {}\n}\n", 1, "schema a", false},
		{"fieldset of unknown field", "schema a {\n document a {}\n fieldset default {\n  fields: nope\n }\n}\n", 3, "fieldset default", false},
		{"bad input", "schema a {\n document a {}\n rank-profile r {\n  inputs {\n   query(q) tensor(x[two])\n  }\n }\n}\n", 5, "query(q) tensor(x[two])", false},
		{"wrong document name", "schema a {\n document b {}\n}\n", 2, "document b", false},
		{"macro", "schema a {\n document a {}\n rank-profile r {\n  macro m() { expression: 1 }\n }\n}\n", 4, "macro", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := schema.Parse("a.sd", []byte(c.sd))
			if err == nil {
				_, err = schema.NewApplication(s)
			}
			var e *schema.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want a *schema.Error", err)
			}
			if e.File != "a.sd" || e.Line != c.line || !strings.HasPrefix(e.Construct, c.construct) {
				t.Errorf("got %s (file %q line %d construct %q), want line %d construct %q", err, e.File, e.Line, e.Construct, c.line, c.construct)
			}
			if errors.Is(err, schema.ErrUnsupported) != c.unknown || !errors.Is(err, schema.ErrSyntax) {
				t.Errorf("%v: unsupported=%v, want %v", err, errors.Is(err, schema.ErrUnsupported), c.unknown)
			}
			if !strings.Contains(err.Error(), "a.sd:") {
				t.Errorf("message %q does not name the file", err)
			}
		})
	}
}

func TestParseType_RoundTrip(t *testing.T) {
	for _, s := range []string{"string", "array<array<int>>", "map<string,array<int>>", "weightedset<long>",
		"reference<music>", "tensor(x[2])", "tensor<int8>(a{},b[3])", "mystruct", "array<mystruct>"} {
		typ, err := schema.ParseType(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := typ.String(); got != s {
			t.Errorf("%s: String() = %s", s, got)
		}
	}
	if typ, err := schema.ParseType("string[]"); err != nil || typ.String() != "array<string>" {
		t.Errorf("string[]: %v %v", typ, err)
	}
	for _, bad := range []string{"", "array<>", "map<string>", "weightedset<double>", "tensor<int4>(x[1])", "tensor(x[0])", "tensor(x)", "tensor(x[1],x[2])", "map<array<int>,int>"} {
		if _, err := schema.ParseType(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
