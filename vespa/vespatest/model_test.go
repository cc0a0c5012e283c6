package vespatest

import (
	"reflect"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

// Schema and FaultRule are converted to the emulator's model field by field:
// every field of the model must have its public counterpart, and back.
// (Field, RankProfile, Fault and FaultStats convert as Go types; a field
// added to one side only does not compile.)
func TestPublicTypesMatchModel(t *testing.T) {
	for _, c := range []struct{ public, model reflect.Type }{
		{reflect.TypeFor[Schema](), reflect.TypeFor[schema.Schema]()},
		{reflect.TypeFor[FaultRule](), reflect.TypeFor[fault.Rule]()},
	} {
		if c.public.NumField() != c.model.NumField() {
			t.Errorf("%v has %d fields, %v %d", c.public, c.public.NumField(), c.model, c.model.NumField())
			continue
		}
		for i := range c.public.NumField() {
			p, m := c.public.Field(i), c.model.Field(i)
			if p.Name != m.Name || p.Type.Kind() != m.Type.Kind() {
				t.Errorf("%v.%s (%v) against %v.%s (%v)", c.public, p.Name, p.Type, c.model, m.Name, m.Type)
			}
		}
	}
}

// A schema goes to the model and back unchanged, nil rank profiles (not
// modelled) apart from an empty list (there are none).
func TestSchemaModelRoundTrip(t *testing.T) {
	for _, s := range []Schema{
		{Name: "a", Fields: []Field{{Name: "t", Type: "string", Indexed: true, Indexing: "summary | index"}}},
		{Name: "b", RankProfiles: []RankProfile{}},
		{Name: "c", RankProfiles: []RankProfile{{Name: "r", Inherits: []string{"default"}, FirstPhase: "bm25(t)",
			Functions: map[string]string{"f": "1"}, Inputs: map[string]string{"query(w)": ""}}},
			Fieldsets: map[string][]string{"default": {"t"}}},
		{Name: "d", Inherits: "c", DocumentInherits: []string{"c", "a"}, StructInherits: map[string][]string{"s": {"t"}}},
	} {
		if got := schemaOf(s.model()); !reflect.DeepEqual(got, s) {
			t.Errorf("round trip of %+v gave %+v", s, got)
		}
	}
	sch, err := ParseSchema("schema m {\n document m {\n field t type string {\n indexing: summary | index\n }\n }\n}\n")
	if err != nil || sch.Name != "m" || len(sch.Fields) != 1 || sch.Fields[0].Type != "string" || !sch.Fields[0].Indexed || sch.RankProfiles == nil {
		t.Errorf("ParseSchema: %+v, %v", sch, err)
	}
	sch, err = ParseSchema("schema m inherits p {\n document m inherits p, q {\n field t type string {}\n }\n}\n")
	if err != nil || sch.Inherits != "p" || !reflect.DeepEqual(sch.DocumentInherits, []string{"p", "q"}) || len(sch.Fields) != 1 {
		t.Errorf("ParseSchema with inherits: %+v, %v", sch, err)
	}
}
