package deploy_test

import (
	"testing"

	"github.com/govespa/govespa/vespa/deploy"
)

// appPackage returns a small application package in a directory.
func appPackage(t *testing.T) *deploy.Package {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"services.xml": "<services version='1.0'/>", "schemas/music.sd": "schema music {}"},
		[]string{"services.xml", "schemas/music.sd"})
	return mustPackage(t, dir)
}

// mustPackage returns the package of src (a directory or a zip file), failing
// t when NewPackage refuses it.
func mustPackage(t *testing.T, src string) *deploy.Package {
	t.Helper()
	p, err := deploy.NewPackage(src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
