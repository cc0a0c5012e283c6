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
	p, err := deploy.NewPackage(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
