package gen_test

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/govespa/govespa/cmd/vespagen/internal/gen"
	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files from the generator's output")

// goldens are the application packages the golden packages are made of.
var goldens = []struct{ app, pkg, file string }{
	{"../../../../integration/testdata/app", "music", "../golden/music/music.go"},
	{"../../testdata/rich", "rich", "../golden/rich/rich.go"},
}

// TestGenerate_Golden checks that the generator writes the committed golden
// packages byte for byte (go test -update rewrites them); that they compile
// and work is checked by their own tests.
func TestGenerate_Golden(t *testing.T) {
	for _, g := range goldens {
		app, err := schema.ParseDir(g.app)
		if err != nil {
			t.Fatal(err)
		}
		got, err := gen.Generate(app, gen.Config{Package: g.pkg})
		if err != nil {
			t.Fatalf("%s: %v", g.app, err)
		}
		if *update {
			if err := os.WriteFile(g.file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want := testutil.ReadFile(t, g.file)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the generator's output differs from %s (go test -update rewrites it):\n%s", g.app, g.file, firstDiff(got, want))
		}
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + gl + "\n want " + wl
		}
	}
	return "(same lines)"
}

// TestGenerate_Header checks the first line Go's tools take for a generated
// file, and that the package clause is the one asked for, with a package
// doc comment only when asked.
func TestGenerate_Header(t *testing.T) {
	app := parse(t, map[string]string{"a.sd": "schema a { document a { field x type int { indexing: attribute } } }"})
	generated := regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)
	for _, doc := range []bool{false, true} {
		src, err := gen.Generate(app, gen.Config{Package: "apppkg", PackageDoc: doc})
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(src), "\n")
		if !generated.MatchString(first) {
			t.Errorf("first line %q is not Go's generated-code line", first)
		}
		if !strings.Contains(string(src), "\npackage apppkg\n") {
			t.Errorf("no package apppkg clause:\n%s", src)
		}
		if hasDoc := strings.Contains(string(src), "// Package apppkg "); hasDoc != doc {
			t.Errorf("PackageDoc %v: package doc comment written: %v", doc, hasDoc)
		}
		if strings.Contains(string(src), `"encoding/json"`) {
			t.Error("encoding/json imported by a file that keeps nothing raw")
		}
	}
}

// TestGenerate_Deterministic checks that two runs over two parses of the
// same package write the same bytes (no map order leaks into the output).
func TestGenerate_Deterministic(t *testing.T) {
	var first []byte
	for i := range 5 {
		app, err := schema.ParseDir("../../testdata/rich")
		if err != nil {
			t.Fatal(err)
		}
		src, err := gen.Generate(app, gen.Config{Package: "rich"})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = src
		} else if !bytes.Equal(src, first) {
			t.Fatalf("run %d wrote other bytes than run 0:\n%s", i, firstDiff(src, first))
		}
	}
}

// TestGenerate_Collisions checks that two Vespa names that become one Go
// name are an error naming the schema file, the line and both names.
func TestGenerate_Collisions(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"fields", map[string]string{"song.sd": "schema song {\n document song {\n  field my_field type int {}\n  field myField type int {}\n }\n}"},
			[]string{"song.sd:4", "field myField", "MyField", "field my_field", "song.sd:3"}},
		{"struct fields", map[string]string{"song.sd": "schema song {\n document song {\n  struct s {\n   field a_b type int {}\n   field aB type int {}\n  }\n  field x type s {}\n }\n}"},
			[]string{"song.sd:5", "field aB of struct s", "AB", "field a_b"}},
		{"struct and document type", map[string]string{"song.sd": "schema song {\n document song {\n  struct document_type {\n   field a type int {}\n  }\n }\n}"},
			[]string{"song.sd:", "SongDocumentType", "struct document_type"}},
		{"schemas", map[string]string{"a_b.sd": "schema a_b { document a_b {} }", "aB.sd": "schema aB { document aB {} }"},
			[]string{"aB.sd:1", "AB", "document type a_b"}},
		{"input and Apply", map[string]string{"song.sd": "schema song {\n document song {}\n rank-profile r {\n  inputs {\n   query(apply) double\n  }\n }\n}"},
			[]string{"song.sd:3", "input query(apply) of rank-profile r", "Apply", "the generated method Apply"}},
		{"inputs", map[string]string{"song.sd": "schema song {\n document song {}\n rank-profile r {\n  inputs {\n   query(a_b) double\n   query(aB) double\n  }\n }\n}"},
			[]string{"song.sd:3", "AB", "query(a_b)", "query(aB)"}},
		{"profiles", map[string]string{"song.sd": "schema song {\n document song {}\n rank-profile near-dup {}\n rank-profile near_dup {}\n}"},
			[]string{"song.sd:4", "SongRankProfileNearDup", "rank-profile near-dup", "rank-profile near_dup"}},
	} {
		app := parse(t, c.files)
		_, err := gen.Generate(app, gen.Config{Package: "p"})
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "vespagen: ") {
			t.Errorf("%s: %v: want the vespagen: prefix", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v: want %q in it", c.name, err, w)
			}
		}
	}
}

// TestGenerate_BadPackageName checks that a package name Go refuses is an
// error before anything is written.
func TestGenerate_BadPackageName(t *testing.T) {
	app := parse(t, map[string]string{"a.sd": "schema a { document a {} }"})
	for _, name := range []string{"", "func", "my-pkg", "1a", "_"} {
		if _, err := gen.Generate(app, gen.Config{Package: name}); err == nil || !strings.Contains(err.Error(), "package name") {
			t.Errorf("package %q: %v, want a package name error", name, err)
		}
	}
}

// parse builds an application of .sd sources by file name, in name order.
func parse(t *testing.T, files map[string]string) *schema.Application {
	t.Helper()
	var ss []*schema.Schema
	for _, name := range slices.Sorted(maps.Keys(files)) {
		s, err := schema.Parse(name, []byte(files[name]))
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	app, err := schema.NewApplication(ss...)
	if err != nil {
		t.Fatal(err)
	}
	return app
}
