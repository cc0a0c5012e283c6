package schema

import "testing"

func TestValidateSchemas(t *testing.T) {
	field := func(name string) Field { return Field{Name: name, Type: "string"} }
	for _, c := range []struct {
		name    string
		schemas []Schema
		want    string // the error's text, "" for none
	}{
		{"valid", []Schema{{Name: "music", Fields: []Field{field("a"), field("b")}, RankProfiles: []RankProfile{{Name: "p"}}}}, ""},
		{"schema without a name", []Schema{{}}, "vespatest: schema without a name"},
		{"schema twice", []Schema{{Name: "music"}, {Name: "music"}}, `vespatest: schema "music" declared twice`},
		{"field without a name", []Schema{{Name: "music", Fields: []Field{field("")}}}, `vespatest: schema "music" has a field without a name`},
		{"field twice", []Schema{{Name: "music", Fields: []Field{field("a"), field("a")}}}, `vespatest: schema "music" declares field "a" twice`},
		{"profile without a name", []Schema{{Name: "music", RankProfiles: []RankProfile{{}}}}, `vespatest: schema "music" has a rank profile without a name`},
		{"profile twice", []Schema{{Name: "music", RankProfiles: []RankProfile{{Name: "p"}, {Name: "p"}}}}, `vespatest: schema "music" declares rank profile "p" twice`},
		{"same name for a field and a profile", []Schema{{Name: "music", Fields: []Field{field("p")}, RankProfiles: []RankProfile{{Name: "p"}}}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateSchemas(c.schemas)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("ValidateSchemas: %q, want %q", got, c.want)
			}
		})
	}
}
