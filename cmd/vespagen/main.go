// Command vespagen writes Go code for the schemas of a Vespa application
// package: per document type a struct of its fields with JSON tags for
// Vespa's document JSON, its document type and field names, typed YQL field
// references for package query's builder, its rank profiles with their
// typed inputs, and a decoder of typed hits.
//
// Usage:
//
//	go run github.com/govespa/govespa/cmd/vespagen -app DIR -package NAME -out FILE
//
// or, in a file of the package that is to hold the code,
//
//	//go:generate go run github.com/govespa/govespa/cmd/vespagen -app ../app -package music -out music_vespa.go
//
// It reads DIR/schemas/*.sd with package schema and writes one gofmt'ed Go
// file (-out - writes standard output). Errors name the schema file and
// line; the exit status is 1 for them and 2 for a usage error.
//
// The typed YQL field references are package-level variables named after
// their fields when the package holds one schema with references
// (music.Year.Lt(1990), the way a package per entity reads), and grouped
// per schema in a variable <Schema>Fields when it holds several, whose
// field names would collide (rich.SongFields.Year.Lt(1990)). -refs flat or
// -refs grouped chooses; flat is refused (status 2) when several schemas
// have references, a schema and the parent it inherits fields from being
// two, and a flat reference whose name the file gives to something else
// (a field music is Music, the document struct) is an error naming both.
package main

import (
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"

	"github.com/govespa/govespa/cmd/vespagen/internal/gen"
	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/vespa/schema"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vespagen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	app := fs.String("app", "", "the application package `dir`ectory (it holds schemas/*.sd)")
	pkg := fs.String("package", "", "the Go package `name` of the file")
	out := fs.String("out", "", "the Go `file` to write; - for standard output")
	doc := fs.Bool("pkgdoc", false, "write a package doc comment (leave it off when another file has one)")
	refs := fs.String("refs", "", "write the field references `flat|grouped`: as package-level variables (music.Year) or\n"+
		"as one variable per schema (music.MusicFields.Year); flat when one schema has references, by default")
	cli.Usage(fs, "usage: vespagen -app DIR -package NAME -out FILE [-refs flat|grouped] [-pkgdoc]\n\n"+
		"vespagen writes the Go types, field references, rank profiles and hit decoders of the schemas\n"+
		"of a Vespa application package (DIR/schemas/*.sd) to FILE.\n\n")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		return usage(fs, stderr, "unexpected argument %q", fs.Arg(0))
	case *app == "":
		return usage(fs, stderr, "-app is missing")
	case *pkg == "":
		return usage(fs, stderr, "-package is missing")
	case *out == "":
		return usage(fs, stderr, "-out is missing")
	case !token.IsIdentifier(*pkg) || token.IsKeyword(*pkg) || *pkg == "_":
		return usage(fs, stderr, "-package %q is not a Go package name", *pkg)
	}
	cfg := gen.Config{Package: *pkg, PackageDoc: *doc}
	switch *refs {
	case "":
		cfg.Refs = gen.RefsAuto
	case "flat":
		cfg.Refs = gen.RefsFlat
	case "grouped":
		cfg.Refs = gen.RefsGrouped
	default:
		return usage(fs, stderr, "-refs %q is neither flat nor grouped", *refs)
	}
	if err := generate(*app, cfg, *out, stdout); err != nil {
		fmt.Fprintln(stderr, err)
		if errors.Is(err, gen.ErrFlatRefs) {
			return cli.ExitUsage // the flag does not fit the application
		}
		return cli.ExitFailed
	}
	return cli.ExitOK
}

func usage(fs *flag.FlagSet, stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "vespagen: "+format+"\n", args...)
	fs.Usage()
	return cli.ExitUsage
}

// generate reads the package in app and writes the code to out.
func generate(app string, cfg gen.Config, out string, stdout io.Writer) error {
	if st, err := os.Stat(app); err != nil {
		return fmt.Errorf("vespagen: -app %s: %w", app, err)
	} else if !st.IsDir() {
		return fmt.Errorf("vespagen: -app %s is not a directory", app)
	}
	a, err := schema.ParseDir(app)
	if err != nil {
		return fmt.Errorf("vespagen: %w", err) // the schema error names the directory or the file and line
	}
	src, err := gen.Generate(a, cfg)
	if err != nil {
		return err
	}
	if out == "-" {
		if _, err := stdout.Write(src); err != nil {
			return fmt.Errorf("vespagen: writing standard output: %w", err)
		}
		return nil
	}
	return writeFile(out, src)
}

// writeFile writes src to a temporary file beside name and renames it, so
// that a failed run never leaves half a Go file behind.
func writeFile(name string, src []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".vespagen-*.go")
	if err != nil {
		return fmt.Errorf("vespagen: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // after a successful rename there is nothing to remove
	if _, err := tmp.Write(src); err != nil {
		_ = tmp.Close() // the write error is the one to report
		return fmt.Errorf("vespagen: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("vespagen: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil { //nolint:gosec // G302: a Go source file, readable as the package's other files are
		return fmt.Errorf("vespagen: %w", err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fmt.Errorf("vespagen: %w", err)
	}
	return nil
}
