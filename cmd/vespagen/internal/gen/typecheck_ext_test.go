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
)

// TestGenerated_WrongOperatorDoesNotCompile type-checks code that uses the
// golden packages (with go/types, on the export data go list -export
// writes): the typed references accept what their field takes, and refuse
// an operator or a value their field does not take.
func TestGenerated_WrongOperatorDoesNotCompile(t *testing.T) {
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
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	check := func(body string) error {
		src := "package check\n\nimport (\n\t\"github.com/govespa/govespa/cmd/vespagen/internal/golden/music\"\n" +
			"\t\"github.com/govespa/govespa/cmd/vespagen/internal/golden/rich\"\n" +
			"\t\"github.com/govespa/govespa/vespa/query\"\n)\n\n" +
			"var _, _ = music.MusicFields, rich.SongFields\n\nvar _ query.Condition = " + body + "\n"
		f, err := parser.ParseFile(fset, "check.go", src, 0)
		if err != nil {
			return err
		}
		_, err = (&types.Config{Importer: imp}).Check("check", fset, []*ast.File{f}, nil)
		return err
	}
	for _, ok := range []string{
		`music.MusicFields.Year.Lt(1990)`,
		`music.MusicFields.Title.Contains("love")`,
		`music.MusicFields.Embedding.NearestNeighbor("q", 10)`,
		`rich.SongFields.ChartIDs.DotProduct(map[int32]int{7: 1})`,
		`rich.SongFields.Rating.Range(1, 2.5)`,
		`rich.SongFields.Location.Within(1, 2, "1 km")`,
	} {
		if err := check(ok); err != nil {
			t.Errorf("%s does not type-check: %v", ok, err)
		}
	}
	for _, c := range []struct{ code, want string }{
		{`music.MusicFields.Title.Lt("x")`, "Lt"},               // no < on strings
		{`music.MusicFields.Tags.Gt("x")`, "Gt"},                // nor on an array of them
		{`music.MusicFields.Year.Contains("1990")`, "Contains"}, // no contains on numbers
		{`music.MusicFields.Year.Lt("1990")`, "1990"},           // a number takes a number
		{`music.MusicFields.Year.Lt(1 << 40)`, "overflows"},     // an int field takes an int32
		{`music.MusicFields.Embedding.Eq(1)`, "Eq"},             // a tensor has nearestNeighbor only
		{`rich.SongFields.Rating.In(1)`, "In"},                  // in takes integer fields, not floats
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
