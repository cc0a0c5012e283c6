package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFixtureDir_EnvWins(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte("[1]"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(FixtureEnv, dir)
	if FixtureDir() != dir {
		t.Fatalf("FixtureDir = %q, want %q", FixtureDir(), dir)
	}
	if got := string(ReadFixture(t, "x.json")); got != "[1]" {
		t.Errorf("ReadFixture = %q", got)
	}
}

func TestFixtureDir_BesideTheModuleRoot(t *testing.T) {
	t.Setenv(FixtureEnv, "")
	root := moduleRoot()
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root %q has no go.mod: %v", root, err)
	}
	if want := filepath.Join(root, "..", "shared", "vespa-fixtures"); FixtureDir() != want {
		t.Errorf("FixtureDir = %q, want %q", FixtureDir(), want)
	}
}
