package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/cmd/vespagen/internal/gen"
	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/schema"
)

const musicApp = "../../integration/testdata/app"

// runArgs runs the command with args and returns its status and output.
func runArgs(args ...string) (status int, stdout, stderr string) {
	var out, errs bytes.Buffer
	status = run(args, &out, &errs)
	return status, out.String(), errs.String()
}

// TestRun_WritesTheFile checks that the command writes what the generator
// makes to -out, and nothing but the file into its directory.
func TestRun_WritesTheFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "music.go")
	if status, _, stderr := runArgs("-app", musicApp, "-package", "music", "-out", out); status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	got := testutil.ReadFile(t, out)
	app, err := schema.ParseDir(musicApp)
	if err != nil {
		t.Fatal(err)
	}
	want, err := gen.Generate(app, gen.Config{Package: "music"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the file differs from the generator's output")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the output directory, want the one file", len(entries))
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("file mode %v (%v), want 0644", st.Mode(), err)
	}

	status, stdout, _ := runArgs("-app", musicApp, "-package", "music", "-out", "-", "-pkgdoc")
	if status != 0 || !strings.Contains(stdout, "// Package music ") || !strings.Contains(stdout, "type Music struct") {
		t.Errorf("-out - -pkgdoc: status %d, output:\n%.300s", status, stdout)
	}
}

// TestRun_Usage checks the usage errors (status 2) and -h (status 0).
func TestRun_Usage(t *testing.T) {
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"-h"}, 0, "usage: vespagen -app DIR -package NAME -out FILE"},
		{[]string{"-app", musicApp, "-out", "x.go"}, 2, "vespagen: -package is missing"},
		{[]string{"-package", "p", "-out", "x.go"}, 2, "vespagen: -app is missing"},
		{[]string{"-app", musicApp, "-package", "p"}, 2, "vespagen: -out is missing"},
		{[]string{"-app", musicApp, "-package", "p", "-out", "x.go", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"-app", musicApp, "-package", "my-pkg", "-out", "x.go"}, 2, `vespagen: -package "my-pkg" is not a Go package name`},
		{[]string{"-app", musicApp, "-package", "p", "-out", "x.go", "-refs", "flatter"}, 2, `vespagen: -refs "flatter" is neither flat nor grouped`},
	} {
		status, stdout, stderr := runArgs(c.args...)
		if status != c.status || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%q: status %d, stderr %q, stdout %q; want status %d and %q", c.args, status, stderr, stdout, c.status, c.want)
		}
	}
}

// TestRun_Errors checks that failures are status 1 with an error naming the
// directory, or the schema file and line at fault, and write no file.
func TestRun_Errors(t *testing.T) {
	empty := t.TempDir()
	bad := writeApp(t, "bad.sd", "schema bad {\n    document bad {\n        field x type int {}\n    }\n    annotation foo {}\n}\n")
	collide := writeApp(t, "c.sd", "schema c {\n    document c {\n        field a_b type int {}\n        field aB type int {}\n    }\n}\n")
	flatClash := writeApp(t, "music.sd", "schema music {\n    document music {\n        field music type string {\n            indexing: attribute\n        }\n    }\n}\n")
	for _, c := range []struct {
		name, app, pkg string
		want           []string
	}{
		{"no such dir", filepath.Join(empty, "nope"), "p", []string{"vespagen: -app " + filepath.Join(empty, "nope")}},
		{"no schemas", empty, "p", []string{"vespagen: ", empty, "no schemas/*.sd"}},
		{"refused construct", bad, "p", []string{"vespagen: ", "bad.sd:5", "annotation"}},
		{"collision", collide, "p", []string{"vespagen: ", "c.sd:4", "field aB", "field a_b", "AB"}},
		{"flat collision", flatClash, "p", []string{"vespagen: ", "music.sd:3", "field music", " Music ", "document type music", "-refs grouped"}},
	} {
		out := filepath.Join(t.TempDir(), "out.go")
		status, _, stderr := runArgs("-app", c.app, "-package", c.pkg, "-out", out)
		if status != 1 {
			t.Errorf("%s: status %d, want 1 (%s)", c.name, status, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q, want %q in it", c.name, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the output file was written", c.name)
		}
	}
}

// writeApp writes an application package with one schema file.
func writeApp(t *testing.T, name, sd string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schemas", name), []byte(sd), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRun_Refs checks -refs: flat by default for the one schema of the music
// application, grouped when asked; flat refused with status 2, naming the
// schemas, for an application whose several schemas have references.
func TestRun_Refs(t *testing.T) {
	const flatYear = "\tYear = query.IntegerFieldOf[int32](\"year\")\n"
	const grouped = "\nvar MusicFields = struct {\n"
	for _, c := range []struct {
		refs      []string
		flat, grp bool
	}{
		{nil, true, false},
		{[]string{"-refs", "flat"}, true, false},
		{[]string{"-refs", "grouped"}, false, true},
	} {
		status, stdout, stderr := runArgs(append([]string{"-app", musicApp, "-package", "music", "-out", "-"}, c.refs...)...)
		if status != 0 {
			t.Errorf("%q: status %d: %s", c.refs, status, stderr)
			continue
		}
		if strings.Contains(stdout, flatYear) != c.flat || strings.Contains(stdout, grouped) != c.grp {
			t.Errorf("%q: flat references %v, grouped %v; want %v, %v", c.refs, !c.flat, !c.grp, c.flat, c.grp)
		}
	}

	out := filepath.Join(t.TempDir(), "rich.go")
	status, stdout, stderr := runArgs("-app", "testdata/rich", "-package", "rich", "-out", out, "-refs", "flat")
	if status != 2 || stdout != "" {
		t.Errorf("-refs flat on three schemas: status %d, stdout %q; want status 2", status, stdout)
	}
	for _, w := range []string{"vespagen: ", "-refs flat", "artist (artist.sd)", "base (base.sd)", "song (song.sd)", "-refs grouped"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("-refs flat on three schemas: stderr %q, want %q in it", stderr, w)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("-refs flat on three schemas wrote the file")
	}
	if status, stdout, stderr := runArgs("-app", "testdata/rich", "-package", "rich", "-out", "-"); status != 0 || !strings.Contains(stdout, "\nvar SongFields = struct {\n") {
		t.Errorf("rich by default: status %d (%s), want SongFields", status, stderr)
	}
}

// brokenWriter fails every write, as a closed pipe does.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestRun_StdoutFails checks that a failed write of -out - is status 1 and
// an error that says it is vespagen's and what it was writing.
func TestRun_StdoutFails(t *testing.T) {
	var errs bytes.Buffer
	status := run([]string{"-app", musicApp, "-package", "music", "-out", "-"}, brokenWriter{}, &errs)
	if want := "vespagen: writing standard output: "; status != 1 || !strings.HasPrefix(errs.String(), want) {
		t.Errorf("status %d, stderr %q; want 1 and %q...", status, errs.String(), want)
	}
}
