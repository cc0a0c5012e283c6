package schema

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// mustParse parses .sd texts, failing the test on an error.
func mustParse(t *testing.T, sds ...string) []Schema {
	t.Helper()
	var out []Schema
	for _, sd := range sds {
		s, err := Parse(sd)
		if err != nil {
			t.Fatalf("%v: %s", err, sd)
		}
		out = append(out, s)
	}
	return out
}

func fieldNames(s Schema) []string {
	var out []string
	for _, f := range s.Fields {
		out = append(out, f.Name)
	}
	return out
}

func profileNames(s Schema) []string {
	var out []string
	for _, p := range s.RankProfiles {
		out = append(out, p.Name)
	}
	return out
}

// The headers "schema x inherits y" and "document x inherits y, z" are
// read; a schema's own fields stay its own (the SDK's parser models the
// same: Document.Fields, and AllFields for the inherited ones).
func TestParse_inherits(t *testing.T) {
	for _, c := range []struct {
		sd, inherits string
		doc          []string
	}{
		{"schema a { document a { } }", "", nil},
		{"schema b inherits a { document b inherits a { field x type int {} } }", "a", []string{"a"}},
		{"schema c { document c inherits a, b { } }", "", []string{"a", "b"}},
		{"schema d inherits a {\n document d inherits a,b\n {\n }\n}", "a", []string{"a", "b"}},
		{"schema e { document inherits a { } }", "", []string{"a"}},
	} {
		s, err := Parse(c.sd)
		if err != nil {
			t.Errorf("%s: %v", c.sd, err)
			continue
		}
		if s.Inherits != c.inherits || !slices.Equal(s.DocumentInherits, c.doc) {
			t.Errorf("%s: inherits %q, document inherits %q; want %q, %q", c.sd, s.Inherits, s.DocumentInherits, c.inherits, c.doc)
		}
	}
	for _, sd := range []string{
		"schema b inherits a, c { document b inherits a { } }",
		"schema b inherits { document b { } }",
		"schema b { document b extends a { } }",
	} {
		if _, err := Parse(sd); err == nil {
			t.Errorf("%s: no error", sd)
		}
	}
}

// Fields and structs come down every level of document inheritance, the
// inherited first; a schema has its parent schema's rank profiles and field
// sets, its own of the same name winning; a document inherited without its
// schema brings fields, not profiles.
func TestInherit_resolves(t *testing.T) {
	in := mustParse(t,
		`schema base {
  document base {
    struct point { field x type int {} }
    field user_id type string { indexing: summary | attribute }
    field at type point { indexing: summary }
  }
  fieldset ids { fields: user_id }
  fieldset default { fields: user_id }
  rank-profile plain { first-phase { expression: attribute(created) } }
  rank-profile shared { first-phase { expression: 1 } }
}`,
		`schema mid inherits base {
  document mid inherits base {
    field user_id type string { indexing: summary | index }
    field created type long { indexing: attribute }
  }
  fieldset default { fields: created }
  rank-profile shared { first-phase { expression: 2 } }
}`,
		`schema leaf inherits mid {
  document leaf inherits mid {
    struct point { field y type int {} }
    field title type string { indexing: index }
  }
}`,
		`schema loose {
  document loose inherits base {
    field n type int {}
  }
}`)
	out, err := Inherit(in)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Schema{}
	for _, s := range out {
		byName[s.Name] = s
	}
	leaf, mid, loose := byName["leaf"], byName["mid"], byName["loose"]
	if got := fieldNames(leaf); !slices.Equal(got, []string{"at", "user_id", "created", "title"}) {
		t.Errorf("leaf fields %q", got)
	}
	if f, _ := leaf.Field("user_id"); !f.Indexed || f.Indexing != "summary | index" {
		t.Errorf("leaf user_id is %+v, want mid's redeclaration", f)
	}
	if got := leaf.Structs["point"]; len(got) != 1 || got[0].Name != "y" {
		t.Errorf("leaf's own struct point is %+v", got)
	}
	if got := mid.Structs["point"]; len(got) != 1 || got[0].Name != "x" {
		t.Errorf("mid inherits struct point: %+v", got)
	}
	if got := profileNames(leaf); !slices.Equal(got, []string{"shared", "plain"}) {
		t.Errorf("leaf profiles %q", got)
	}
	if p := leaf.RankProfiles[0]; p.FirstPhase != "2" {
		t.Errorf("leaf's shared is %+v, want mid's", p)
	}
	if !reflect.DeepEqual(leaf.Fieldsets, map[string][]string{"ids": {"user_id"}, "default": {"created"}}) {
		t.Errorf("leaf fieldsets %q", leaf.Fieldsets)
	}
	if got := fieldNames(loose); !slices.Equal(got, []string{"user_id", "at", "n"}) {
		t.Errorf("loose fields %q", got)
	}
	if len(loose.RankProfiles) != 0 || loose.RankProfiles == nil || loose.Fieldsets != nil {
		t.Errorf("a document inherited without its schema brought %+v, %q", loose.RankProfiles, loose.Fieldsets)
	}
	if len(in[2].Fields) != 1 || in[2].RankProfiles == nil || len(in[2].RankProfiles) != 0 {
		t.Errorf("Inherit changed its input: %+v", in[2])
	}
}

// Go-declared schemas whose profiles are not modelled (nil) get the
// parent's; both nil stays nil.
func TestInherit_nilProfiles(t *testing.T) {
	out, err := Inherit([]Schema{
		{Name: "p", RankProfiles: []RankProfile{{Name: "r"}}},
		{Name: "c", Inherits: "p", DocumentInherits: []string{"p"}},
		{Name: "q"},
		{Name: "d", Inherits: "q", DocumentInherits: []string{"q"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := profileNames(out[1]); !slices.Equal(got, []string{"r"}) {
		t.Errorf("c profiles %q", got)
	}
	if out[3].RankProfiles != nil {
		t.Errorf("d profiles %+v, want nil", out[3].RankProfiles)
	}
}

// Mistakes are refused with the words of Vespa's config model
// (InheritanceResolver, DocumentType.verifyTypeConsistency,
// Schema.validate); a field declared again with the same type is not one.
func TestInherit_refusesMistakes(t *testing.T) {
	base := Schema{Name: "base", Fields: []Field{{Name: "f", Type: "string"}}}
	for _, c := range []struct {
		name    string
		schemas []Schema
		want    string
	}{
		{"unknown schema", []Schema{{Name: "s", Inherits: "nonesuch", DocumentInherits: []string{"nonesuch"}}},
			"schema 's' inherits 'nonesuch', but this schema does not exist"},
		{"unknown document", []Schema{{Name: "s", DocumentInherits: []string{"nonesuch"}}},
			"document s inherits from unavailable document nonesuch"},
		{"document cycle", []Schema{{Name: "a", DocumentInherits: []string{"b"}}, {Name: "b", DocumentInherits: []string{"a"}}},
			"Inheritance/reference cycle for documents: a -> b -> a"},
		{"itself", []Schema{{Name: "a", DocumentInherits: []string{"a"}}},
			"Inheritance/reference cycle for documents: a -> a"},
		{"schema cycle", []Schema{{Name: "a", Inherits: "b"}, {Name: "b", Inherits: "a"}},
			"Inheritance/reference cycle for schemas: a -> b -> a"},
		{"type mismatch", []Schema{base, {Name: "s", DocumentInherits: []string{"base"}, Fields: []Field{{Name: "f", Type: "int"}}}},
			`Inheritance type mismatch: field "f" in datatype "s" must have same datatype as in parent document type "base"`},
		{"diamond mismatch", []Schema{base, {Name: "other", Fields: []Field{{Name: "f", Type: "array<string>"}}},
			{Name: "s", DocumentInherits: []string{"base", "other"}}},
			`Inheritance type mismatch: field "f" in datatype "s" must have same datatype as in parent document type "other"`},
		{"schema without document", []Schema{base, {Name: "s", Inherits: "base"}},
			"schema 's' inherits 'base', but its document type does not inherit the parent's document type"},
		{"same type again", []Schema{base, {Name: "s", DocumentInherits: []string{"base"}, Fields: []Field{{Name: "f", Type: " string"}}}}, ""},
	} {
		_, err := Inherit(c.schemas)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if _, err := NewApplication(c.schemas, nil, 1); (err == nil) != (c.want == "") {
			t.Errorf("%s: NewApplication: %v", c.name, err)
		}
	}
}

// A package whose inheritance Vespa refuses is one whose models do not
// build: ModelError, worded as ModelsBuilder wraps it.
func TestParsePackageFiles_inheritanceIsAModelError(t *testing.T) {
	files := map[string][]byte{
		"services.xml":     []byte(`<services version="1.0"/>`),
		"schemas/song.sd":  []byte("schema song inherits base {\n document song inherits base {\n }\n}\n"),
		"schemas/other.sd": []byte("schema other {\n document other {\n  field f type nosuchtype {}\n }\n}\n"),
	}
	pkg, err := parsePackageFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Invalid application: schema 'song' inherits 'base', but this schema does not exist"; pkg.ModelError != want {
		t.Errorf("ModelError %q, want %q", pkg.ModelError, want)
	}
	files["schemas/base.sd"] = []byte("schema base {\n document base {\n  field user_id type string { indexing: attribute }\n }\n}\n")
	delete(files, "schemas/other.sd")
	if pkg, err = parsePackageFiles(files); err != nil || pkg.ModelError != "" {
		t.Fatalf("%v, %q", err, pkg.ModelError)
	}
	app, err := NewApplication(pkg.Schemas, pkg.Clusters, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := app.Schema("song"); s == nil || !s.Fields[0].MaybeAttribute() || s.Fields[0].Name != "user_id" {
		t.Errorf("song is %+v", s)
	}
}

// "struct b inherits a" gives b a's fields, first (StructDataType.inherit),
// the parent found in the document or one it inherits, and a value is
// checked against them all; a mistake is refused with the config model's
// words.
func TestInherit_structs(t *testing.T) {
	in := mustParse(t, `schema s {
  document s inherits p {
    struct c inherits b { field z type int {} }
    struct a { field x type string {} }
    struct b inherits a { field y type int {} }
    struct d inherits q { field w type int {} }
    field v type c { indexing: summary }
  }
}`, `schema p {
  document p {
    struct r { field r1 type string {} }
    struct q inherits r { field q1 type string {} }
  }
}`)
	if got := in[0].StructInherits; !reflect.DeepEqual(got, map[string][]string{"c": {"b"}, "b": {"a"}, "d": {"q"}}) {
		t.Errorf("parsed struct inherits %q", got)
	}
	out, err := Inherit(in)
	if err != nil {
		t.Fatal(err)
	}
	sch := out[0]
	for st, want := range map[string][]string{"c": {"x", "y", "z"}, "d": {"r1", "q1", "w"}, "q": {"r1", "q1"}} {
		var names []string
		for _, f := range sch.Structs[st] {
			names = append(names, f.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("struct %s fields %q, want %q", st, names, want)
		}
	}
	if len(in[0].Structs["c"]) != 1 {
		t.Errorf("Inherit changed its input: %+v", in[0].Structs)
	}
	f, _ := sch.Field("v")
	ft, err := ParseFieldType(f.Type)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := ft.ResolveStructs(sch.Structs).Normalize([]byte(`{"x":"a","y":"1","z":2}`)); err != nil || string(got) != `{"x":"a","y":1,"z":2}` {
		t.Errorf("a value with inherited members: %s, %v", got, err)
	}
	if _, _, err := ft.ResolveStructs(sch.Structs).Normalize([]byte(`{"w":1}`)); err == nil {
		t.Error("an undeclared member was accepted")
	}
	for _, c := range []struct{ body, want string }{
		{"struct b inherits a { field y type int {} }",
			"Can not find parent for struct 'b' in document 's'"},
		{"struct a inherits b { field x type int {} }\n struct b inherits a { field y type int {} }",
			"Inheritance/reference cycle for structs: a -> b -> a"},
		{"struct a { field x type int {} }\n struct b inherits a { field x type int {} }",
			"In document s: struct b cannot inherit from a and redeclare field x"},
		{"struct a { field x type int {} }\n struct b inherits a { }\n struct c inherits b { field x type int {} }",
			"In document s: struct c cannot inherit from a and redeclare field x"},
	} {
		_, err := Inherit(mustParse(t, "schema s {\n document s {\n "+c.body+"\n }\n}\n"))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
}

// A parent's profile that inherits one the child declares again is
// resolved by Vespa in the parent schema; the emulator, which keeps one
// profile of a name per schema, refuses the application naming it rather
// than rank with the child's.
func TestInherit_profileOverriddenUnderAParentProfile(t *testing.T) {
	parent := Schema{Name: "p", RankProfiles: []RankProfile{{Name: "q", FirstPhase: "1"}, {Name: "mid", Inherits: []string{"q"}}, {Name: "r", Inherits: []string{"mid"}}}}
	child := Schema{Name: "c", Inherits: "p", DocumentInherits: []string{"p"}, RankProfiles: []RankProfile{{Name: "q", FirstPhase: "2"}}}
	_, err := Inherit([]Schema{parent, child})
	var nm *NotModelledError
	if !errors.As(err, &nm) || !strings.Contains(err.Error(), "rank profile 'mid' of schema 'p' inherits 'q', which 'c' declares again") {
		t.Errorf("%v", err)
	}
	child.RankProfiles = []RankProfile{{Name: "r", FirstPhase: "2"}} // overriding a leaf is modelled
	if _, err := Inherit([]Schema{parent, child}); err != nil {
		t.Error(err)
	}
	files := map[string][]byte{
		"schemas/p.sd": []byte("schema p {\n document p {\n }\n rank-profile q {\n }\n rank-profile r inherits q {\n }\n}\n"),
		"schemas/c.sd": []byte("schema c inherits p {\n document c inherits p {\n }\n rank-profile q {\n }\n}\n"),
	}
	pkg, err := parsePackageFiles(files)
	if err != nil || !strings.HasPrefix(pkg.ModelError, "not modelled by the emulator: schema 'c': rank profile 'r' of schema 'p' inherits 'q'") {
		t.Errorf("%v, %q", err, pkg.ModelError)
	}
}
