package gen_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/govespa/govespa/cmd/vespagen/internal/gen"
)

// TestGenerate_RefStyles checks which applications get flat references by
// default, and that flat is refused, naming the schemas, where several
// schemas have references: a parent that declares no searchable field does
// not count, one that does counts (its child inherits the field), as does
// any other schema with a reference.
func TestGenerate_RefStyles(t *testing.T) {
	const (
		parentWithout = "schema parent { document parent { field note type string { indexing: summary } } rank-profile p {} }"
		parentWith    = "schema parent { document parent { field id type string { indexing: attribute } } }"
		child         = "schema song inherits parent { document song inherits parent { field year type int { indexing: attribute } } }"
		rawOnly       = "schema blob { document blob { field data type raw { indexing: attribute } } }"
		other         = "schema artist { document artist { field name type string { indexing: index } } }"
	)
	for _, c := range []struct {
		name     string
		files    map[string]string
		autoFlat bool
		schemas  []string // named by the error of RefsFlat; nil when flat is allowed
	}{
		{"one schema", map[string]string{"song.sd": "schema song { document song { field year type int { indexing: attribute } } }"}, true, nil},
		{"parent without searchable fields", map[string]string{"parent.sd": parentWithout, "song.sd": child}, true, nil},
		{"a schema with skipped fields only", map[string]string{"blob.sd": rawOnly, "artist.sd": other}, true, nil},
		{"no references at all", map[string]string{"blob.sd": rawOnly}, true, nil},
		{"parent with a searchable field", map[string]string{"parent.sd": parentWith, "song.sd": child},
			false, []string{"parent (parent.sd)", "song (song.sd)"}},
		{"two schemas", map[string]string{"song.sd": child, "parent.sd": parentWithout, "artist.sd": other},
			false, []string{"artist (artist.sd)", "song (song.sd)"}},
	} {
		app := parse(t, c.files)
		auto, err := gen.Generate(app, gen.Config{Package: "p"})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		grouped, err := gen.Generate(app, gen.Config{Package: "p", Refs: gen.RefsGrouped})
		if err != nil {
			t.Errorf("%s: grouped: %v", c.name, err)
			continue
		}
		flat, err := gen.Generate(app, gen.Config{Package: "p", Refs: gen.RefsFlat})
		switch {
		case c.schemas == nil && err != nil:
			t.Errorf("%s: flat: %v", c.name, err)
		case c.schemas == nil && string(auto) != string(flat):
			t.Errorf("%s: the default is not flat:\n%s", c.name, auto)
		case c.schemas != nil && string(auto) != string(grouped):
			t.Errorf("%s: the default is not grouped:\n%s", c.name, auto)
		case c.schemas != nil && !errors.Is(err, gen.ErrFlatRefs):
			t.Errorf("%s: flat: %v, want ErrFlatRefs", c.name, err)
		case c.schemas != nil:
			for _, w := range append(c.schemas, "-refs grouped") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %v: want %q in it", c.name, err, w)
				}
			}
			if strings.Contains(err.Error(), "parent") && !strings.Contains(c.schemas[0], "parent") {
				t.Errorf("%s: %v names the parent, which has no references", c.name, err)
			}
		}
		if c.name == "one schema" && (!strings.Contains(string(flat), "\tYear = query.IntegerFieldOf[int32](\"year\")\n") ||
			!strings.Contains(string(grouped), "var SongFields = struct {")) {
			t.Errorf("%s: flat:\n%s\ngrouped:\n%s", c.name, flat, grouped)
		}
	}
	app := parse(t, map[string]string{"a.sd": "schema a { document a {} }"})
	if _, err := gen.Generate(app, gen.Config{Package: "p", Refs: gen.RefStyle(9)}); err == nil || !strings.Contains(err.Error(), "RefStyle 9") {
		t.Errorf("RefStyle(9): %v, want an error naming it", err)
	}
}

// TestGenerate_FlatCollisions checks that a flat reference whose name the
// file gives to another package-level identifier is an error at the field,
// naming the identifier and what it is and suggesting grouped references,
// which then generate.
func TestGenerate_FlatCollisions(t *testing.T) {
	sd := func(field, extra string) string {
		return "schema music {\n document music {\n  struct credit { field who type string {} }\n  field year type int { indexing: attribute }\n" +
			"  field " + field + " type string { indexing: attribute }\n }\n" + extra + "}\n"
	}
	const profile = " rank-profile near {\n  inputs {\n   query(q) double\n  }\n }\n"
	for _, c := range []struct{ field, extra, ident, what string }{
		{"music", "", "Music", "document type music"},
		{"music_document_type", "", "MusicDocumentType", "document type music"},
		{"new_music_id", "", "NewMusicID", "document type music"},
		{"decode_music_hits", "", "DecodeMusicHits", "document type music"},
		{"music_credit", "", "MusicCredit", "struct credit of schema music"},
		{"music_field_year", "", "MusicFieldYear", "field year of schema music"},
		{"music_rank_profile_near", profile, "MusicRankProfileNear", "rank-profile near"},
		{"music_near_inputs", profile, "MusicNearInputs", "rank-profile near"},
	} {
		app := parse(t, map[string]string{"music.sd": sd(c.field, c.extra)})
		_, err := gen.Generate(app, gen.Config{Package: "p"})
		if err == nil {
			t.Errorf("field %s: no error", c.field)
			continue
		}
		for _, w := range []string{"vespagen: music.sd:5: ", "field " + c.field + " of schema music", " " + c.ident + " ", c.what, "-refs grouped"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("field %s: %v: want %q in it", c.field, err, w)
			}
		}
		if _, err := gen.Generate(app, gen.Config{Package: "p", Refs: gen.RefsGrouped}); err != nil {
			t.Errorf("field %s, grouped: %v", c.field, err)
		}
	}
}
