package deploy_test

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/deploy"
)

// writeZip writes a zip holding the given entries (name → content).
func writeZip(t *testing.T, entries map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, content := range entries {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNewPackage_ZipWithBackslashesRefused checks issue 27's item 13: a zip
// whose entries use \ as a separator is refused at NewPackage, naming the
// entry, instead of being accepted and then failing every deploy (the config
// server finds no schemas/music.sd in it). Before, NewPackage accepted it.
func TestNewPackage_ZipWithBackslashesRefused(t *testing.T) {
	path := writeZip(t, map[string]string{
		"services.xml":       "<services/>",
		`schemas\music.sd`:   "schema music { document music {} }",
		"search/x/query.xml": "",
	})
	_, err := deploy.NewPackage(path)
	if err == nil {
		t.Fatal("NewPackage accepted a zip with \\ separators")
	}
	for _, want := range []string{path, `schemas\\music.sd`, "separator"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}

	ok := writeZip(t, map[string]string{"services.xml": "<services/>", "schemas/music.sd": "schema music { document music {} }"})
	if _, err := deploy.NewPackage(ok); err != nil {
		t.Errorf("a zip with / separators: %v", err)
	}
}
