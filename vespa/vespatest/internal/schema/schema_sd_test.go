package schema

import "testing"

func FuzzParseSchema(f *testing.F) {
	f.Add("schema music { document music { field a type string { indexing: summary | index } } }")
	f.Add("schema x { document x { field t type tensor<float>(x[3]) { indexing: attribute\n attribute { distance-metric: angular } } } }")
	f.Add("schema s inherits b { document s inherits b, c { struct p inherits q { field x type int {} } } }")
	f.Fuzz(func(t *testing.T, s string) { _, _ = Parse(s) })
}

// FuzzInherit resolves two parsed schemas that may inherit each other:
// whatever they say, Inherit returns schemas or an error, never panics
// or loops.
func FuzzInherit(f *testing.F) {
	f.Add("schema a { document a { struct s { field x type int {} } field f type string {} } rank-profile r {} }",
		"schema b inherits a { document b inherits a { struct t inherits s { field y type int {} } field g type t {} } rank-profile q inherits r {} }")
	f.Add("schema a { document a inherits b { struct s inherits t {} } }", "schema b { document b inherits a { struct t inherits s {} } }")
	f.Fuzz(func(t *testing.T, a, b string) {
		var in []Schema
		for _, sd := range []string{a, b} {
			if s, err := Parse(sd); err == nil {
				in = append(in, s)
			}
		}
		out, err := Inherit(in)
		if err == nil && len(out) != len(in) {
			t.Fatalf("%d schemas in, %d out", len(in), len(out))
		}
	})
}

// Field sets and the summary- and match-features of a rank profile, in the
// block and the one-line forms (Vespa's schema reference: fieldset,
// summary-features, match-features).
func TestParse_fieldsetsAndFeatures(t *testing.T) {
	sch, err := Parse(`schema m {
  document m { field title type string { indexing: summary | index } }
  fieldset default { fields: title, body }
  rank-profile p {
    first-phase { expression: bm25(title) }
    summary-features: bm25(title) attribute( year )
    match-features {
      bm25(title)
      nativeRank
    }
  }
}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := sch.Fieldsets["default"]; len(got) != 2 || got[0] != "title" || got[1] != "body" {
		t.Errorf("fieldset default = %q", got)
	}
	p := sch.RankProfiles[0]
	if len(p.SummaryFeatures) != 2 || p.SummaryFeatures[0] != "bm25(title)" || p.SummaryFeatures[1] != "attribute(year)" {
		t.Errorf("summary-features = %q", p.SummaryFeatures)
	}
	if len(p.MatchFeatures) != 2 || p.MatchFeatures[1] != "nativeRank" {
		t.Errorf("match-features = %q", p.MatchFeatures)
	}
}

// Struct types declared in the document block are read with their fields,
// and a field of such a type (or an array or map of it) is checked against
// them as Vespa's JSON reader checks it (document json/readers StructReader:
// "Field 'x' is not defined in struct type 'person'").
func TestParse_structs(t *testing.T) {
	sch, err := Parse(`schema r {
  document r {
    struct person {
      field name type string {}
      field age type int {}
      field tags type array<string> { }
    }
    field p type person { indexing: summary }
    field ps type array<person> { indexing: summary }
    field pm type map<string, person> { indexing: summary }
  }
}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := sch.Structs["person"]; len(got) != 3 || got[1].Name != "age" || got[1].Type != "int" || got[2].Type != "array<string>" {
		t.Fatalf("struct person = %+v", got)
	}
	if len(sch.Fields) != 3 {
		t.Fatalf("fields = %+v (struct members are not document fields)", sch.Fields)
	}
	for _, c := range []struct{ field, in, want, err string }{
		{"p", `{"name":"a","age":"3"}`, `{"name":"a","age":3}`, ""},
		{"p", `{"nope":1}`, "", "Field 'nope' is not defined in struct type 'person'"},
		{"p", `{"age":"x"}`, "", `In document 'null': Could not parse field 'age' of type int: For input string: "x"`},
		{"ps", `[{"name":"a"},{"nope":1}]`, "", "Field 'nope' is not defined in struct type 'person'"},
		{"pm", `{"k":{"tags":["x"]}}`, `{"k":{"tags":["x"]}}`, ""},
		{"pm", `{"k":{"age":1.5}}`, "", `In document 'null': Could not parse field 'age' of type int: For input string: "1.5"`},
	} {
		f, _ := sch.Field(c.field)
		ft, err := ParseFieldType(f.Type)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := ft.ResolveStructs(sch.Structs).Normalize([]byte(c.in))
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if string(got) != c.want || gotErr != c.err {
			t.Errorf("%s %s: %s, %q; want %s, %q", c.field, c.in, got, gotErr, c.want, c.err)
		}
	}
}
