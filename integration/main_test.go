package integration

import (
	"os"
	"sync"
	"testing"
)

// packageCleanups run once, after every test of the package: they end what
// is shared between tests, such as the Vespa container (one per package).
var packageCleanups struct {
	mu  sync.Mutex
	fns []func()
}

// addPackageCleanup registers fn to run after every test of the package,
// in reverse order of registration.
func addPackageCleanup(fn func()) {
	packageCleanups.mu.Lock()
	defer packageCleanups.mu.Unlock()
	packageCleanups.fns = append(packageCleanups.fns, fn)
}

func TestMain(m *testing.M) {
	// Before anything talks to a Docker daemon: published ports are reached
	// on loopback (testcontainers-go would take the gateway address on a
	// machine that has /.dockerenv), and no reaper image is pulled.
	for k, v := range map[string]string{"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1", "TESTCONTAINERS_RYUK_DISABLED": "true"} {
		if _, set := os.LookupEnv(k); !set {
			_ = os.Setenv(k, v)
		}
	}
	code := m.Run()
	packageCleanups.mu.Lock()
	fns := packageCleanups.fns
	packageCleanups.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
	os.Exit(code)
}
