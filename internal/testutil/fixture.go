package testutil

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// FixtureEnv names the environment variable that, when set, is the
// directory of the conformance fixtures (for a checkout whose parent has no
// shared/vespa-fixtures, such as a git worktree).
const FixtureEnv = "GOVESPA_FIXTURES"

var moduleRoot = sync.OnceValue(func() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
})

// FixtureDir returns the directory of Vespa's conformance fixtures:
// $GOVESPA_FIXTURES when set, else shared/vespa-fixtures beside the module
// root (../shared/vespa-fixtures from the directory holding go.mod). The
// fixtures are data, never copied into the repository.
func FixtureDir() string {
	if d := os.Getenv(FixtureEnv); d != "" {
		return d
	}
	return filepath.Join(moduleRoot(), "..", "shared", "vespa-fixtures")
}

// ReadFixture returns the fixture file name (docv1.json, query.json, ...),
// and skips tb with a message when the fixtures are absent.
func ReadFixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(FixtureDir(), name))
	if err != nil {
		tb.Skipf("fixtures not available (set %s to their directory): %v", FixtureEnv, err)
	}
	return b
}
