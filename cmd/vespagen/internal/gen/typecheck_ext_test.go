package gen_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/govespa/govespa/cmd/vespagen/internal/gen"
	"github.com/govespa/govespa/vespa/schema"
)

// TestGenerated_WrongOperatorDoesNotCompile type-checks code that uses the
// golden packages (with go/types, on the export data go list -export
// writes): the typed references accept what their field takes, and refuse
// an operator or a value their field does not take.
func TestGenerated_WrongOperatorDoesNotCompile(t *testing.T) {
	fset, imp := goldenImporter(t)
	check := func(body string) error {
		src := "package check\n\nimport (\n\t\"github.com/govespa/govespa/cmd/vespagen/internal/golden/music\"\n" +
			"\t\"github.com/govespa/govespa/cmd/vespagen/internal/golden/rich\"\n" +
			"\t\"github.com/govespa/govespa/vespa/query\"\n)\n\n" +
			"var _, _ = music.Year, rich.SongFields\n\nvar _ query.Condition = " + body + "\n"
		f, err := parser.ParseFile(fset, "check.go", src, 0)
		if err != nil {
			return err
		}
		_, err = (&types.Config{Importer: imp}).Check("check", fset, []*ast.File{f}, nil)
		return err
	}
	for _, ok := range []string{
		`music.Year.Lt(1990)`,
		`music.Title.Contains("love")`,
		`music.Embedding.NearestNeighbor("q", 10)`,
		`rich.SongFields.ChartIDs.DotProduct(map[int32]int{7: 1})`,
		`rich.SongFields.Rating.Range(1, 2.5)`,
		`rich.SongFields.Location.Within(1, 2, "1 km")`,
	} {
		if err := check(ok); err != nil {
			t.Errorf("%s does not type-check: %v", ok, err)
		}
	}
	for _, c := range []struct{ code, want string }{
		{`music.Title.Lt("x")`, "Lt"},               // no < on strings
		{`music.Tags.Gt("x")`, "Gt"},                // nor on an array of them
		{`music.Year.Contains("1990")`, "Contains"}, // no contains on numbers
		{`music.Year.Lt("1990")`, "1990"},           // a number takes a number
		{`music.Year.Lt(1 << 40)`, "overflows"},     // an int field takes an int32
		{`music.Embedding.Eq(1)`, "Eq"},             // a tensor has nearestNeighbor only
		{`rich.SongFields.Rating.In(1)`, "In"},      // in takes integer fields, not floats
		{`rich.SongFields.Genres.DotProduct(map[int64]int{1: 1})`, "map[int64]int"},
		{`rich.SongFields.Live.Lt(true)`, "Lt"},
		{`rich.SongFields.Cover.Contains("x")`, "Cover"}, // raw has no reference
	} {
		err := check(c.code)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.code, err, c.want)
		}
	}
}

// checkGenerated generates the code of app with cfg and type-checks it as
// package cfg.Package with imp, failing t when it does not; it returns the
// checked package and the source.
func checkGenerated(t *testing.T, fset *token.FileSet, imp types.Importer, app *schema.Application, cfg gen.Config) (*types.Package, []byte) {
	t.Helper()
	src, err := gen.Generate(app, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, cfg.Package+".go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{Importer: imp}).Check(cfg.Package, fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatalf("the generated code does not type-check: %v\n%s", err, src)
	}
	return pkg, src
}

// goldenImporter returns an importer of the golden packages and what they
// import (package vespa and query among them), from the export data go list
// -export writes.
func goldenImporter(t *testing.T) (*token.FileSet, types.Importer) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the export data of the golden packages")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build export data with")
	}
	const golden = "github.com/govespa/govespa/cmd/vespagen/internal/golden/"
	cmd := exec.CommandContext(t.Context(), "go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}",
		golden+"music", golden+"rich")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		if path, file, ok := strings.Cut(sc.Text(), "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	fset := token.NewFileSet()
	return fset, importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// TestGenerated_EdgeCasesCompile type-checks what the generator writes for
// schemas at the edges: a document without fields, names that are Go
// keywords or predeclared identifiers, nested collections, a struct that
// inherits one, a struct another schema declares, map keys encoding/json
// cannot write, a profile without inputs, a profile whose name has a dash.
func TestGenerated_EdgeCasesCompile(t *testing.T) {
	fset, imp := goldenImporter(t)
	app := parse(t, map[string]string{
		"empty.sd": "schema empty { document empty {} }",
		"parent.sd": `schema parent {
			document parent {
				struct base { field id type string {} }
				field func type int { indexing: attribute }
			}
			rank-profile rank-one {}
		}`,
		"kw.sd": `schema kw inherits parent {
			document kw inherits parent {
				struct point inherits base { field x type double {} field y type double {} }
				field type type string { indexing: summary | attribute }
				field map type map<bool, string> { indexing: summary }
				field nil type array<array<int>> { indexing: attribute }
				field string type array<point> {}
				field b type base {}
				field ws type weightedset<int> { indexing: attribute }
				field pos type array<position> { indexing: attribute }
				field m type map<string, array<tensor(x[2])>> {}
				field t3 type tensor<int8>(x[2], y{}, z[3]) { indexing: attribute }
			}
			rank-profile with-input inherits rank-one {
				inputs {
					query(type) tensor<int8>(x{})
					query(map) string
				}
			}
		}`,
	})
	pkg, _ := checkGenerated(t, fset, imp, app, gen.Config{Package: "edge", PackageDoc: true})
	for _, name := range []string{"Empty", "KwPoint", "ParentBase", "KwFields", "KwWithInputInputs", "KwRankProfileRankOne", "DecodeEmptyHits"} {
		if pkg.Scope().Lookup(name) == nil {
			t.Errorf("no %s in the generated package", name)
		}
	}
	kw := pkg.Scope().Lookup("Kw").Type().Underlying().(*types.Struct)
	want := map[string]string{
		"Func": "int32", "Type": "string", "Map": "encoding/json.RawMessage", "Nil": "[][]int32",
		"String": "[]edge.KwPoint", "B": "edge.ParentBase", "Ws": "github.com/govespa/govespa/vespa.WeightedSet[int32]",
		"M":  "github.com/govespa/govespa/vespa.Map[string, []github.com/govespa/govespa/vespa.DenseTensor[float64]]",
		"T3": "encoding/json.RawMessage",
	}
	for i := range kw.NumFields() {
		name, typ := kw.Field(i).Name(), kw.Field(i).Type().String()
		if w, ok := want[name]; ok && typ != w {
			t.Errorf("field %s is %s, want %s", name, typ, w)
		}
		delete(want, name)
	}
	if len(want) > 0 {
		t.Errorf("fields missing from Kw: %v", want)
	}
}

// TestGenerated_FlatRefsCompile type-checks the flat references of a schema
// that inherits a parent without searchable fields (so they are flat by
// default): one of each reference type, names that are Go keywords or
// predeclared identifiers in lower case, and a field whose Go name is the
// one a grouped variable would have.
func TestGenerated_FlatRefsCompile(t *testing.T) {
	fset, imp := goldenImporter(t)
	app := parse(t, map[string]string{
		"parent.sd": `schema parent {
			document parent {
				struct base { field id type string {} }
				field note type string { indexing: summary }
			}
		}`,
		"kw.sd": `schema kw inherits parent {
			document kw inherits parent {
				field type type string { indexing: summary | attribute }
				field nil type array<int> { indexing: attribute }
				field true type bool { indexing: attribute }
				field len type double { indexing: attribute }
				field error type byte { indexing: attribute }
				field kw_fields type long { indexing: attribute }
				field url type uri { indexing: index }
				field pos type position { indexing: attribute }
				field positions type array<position> { indexing: attribute }
				field blob type raw { indexing: attribute }
				field ws type weightedset<string> { indexing: attribute }
				field p type predicate {
					indexing: attribute
					index { arity: 2 }
				}
				field t type tensor<float>(x[2]) { indexing: attribute }
				field b type base {}
			}
		}`,
	})
	pkg, src := checkGenerated(t, fset, imp, app, gen.Config{Package: "edge"})
	const q = "github.com/govespa/govespa/vespa/query."
	want := map[string]string{
		"Type": q + "StringField", "Nil": q + "IntegerField[int32]", "True": q + "BoolField",
		"Len": q + "NumericField[float64]", "Error": q + "IntegerField[int8]", "KwFields": q + "IntegerField[int64]",
		"URL": q + "URIField", "Pos": q + "PositionField", "Ws": q + "WeightedSetField[string]",
		"P": q + "PredicateField", "T": q + "TensorField", "Positions": q + "PositionField",
	}
	for name, typ := range want {
		v, ok := pkg.Scope().Lookup(name).(*types.Var)
		if !ok || v.Type().String() != typ {
			t.Errorf("%s is %v, want a variable of %s", name, pkg.Scope().Lookup(name), typ)
		}
	}
	for _, name := range []string{"Blob", "B", "Note"} {
		if pkg.Scope().Lookup(name) != nil {
			t.Errorf("%s has a reference: it has no operator, or is not searchable", name)
		}
	}
	if !strings.Contains(string(src), "Searchable fields left out: blob (raw),") {
		t.Errorf("the skipped field is not said:\n%s", src)
	}
}
