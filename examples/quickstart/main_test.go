package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/cli"
)

func TestRun_emulatorWithTheIntegrationApplication(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-docs", "300"}, &out, &errOut); code != cli.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &out, &errOut)
	}
	for _, want := range []string{
		"integration/testdata/app deployed through the config server",
		"feed      300 documents: 300 ok, 0 failed",
		"query     yql ",
		"query     userQuery ",
		"query     nearestNeighbor ",
		"visit     300 documents, 300 distinct IDs, 0 missing, 4 slices",
		"0 left that match",
		"cleanup ",
		"result    ok",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, &out)
		}
	}
	if strings.Contains(out.String(), "FAILED") {
		t.Errorf("a step failed:\n%s", &out)
	}
}

func TestRun_outsideTheModuleDeclaresTheSchemaInGo(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errOut bytes.Buffer
	if code := run([]string{"-docs", "100", "-keep"}, &out, &errOut); code != cli.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &out, &errOut)
	}
	if !strings.Contains(out.String(), "music schema declared in Go") {
		t.Errorf("stdout does not say the schema was declared in Go:\n%s", &out)
	}
	if strings.Contains(out.String(), "cleanup") {
		t.Errorf("-keep still cleaned up:\n%s", &out)
	}
}

func TestRun_unreachableEndpointFails(t *testing.T) {
	var out, errOut bytes.Buffer
	// Port 1 on loopback refuses connections; the short timeout ends the
	// readiness wait.
	code := run([]string{"-endpoint", "http://127.0.0.1:1", "-timeout", "300ms"}, &out, &errOut)
	if code != cli.ExitFailed || !strings.Contains(out.String(), "FAILED") {
		t.Fatalf("exit %d, stdout:\n%s", code, &out)
	}
}

func TestRun_usage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-h"}, cli.ExitOK},
		{[]string{"-docs", "0"}, cli.ExitUsage},
		{[]string{"extra"}, cli.ExitUsage},
		{[]string{"-no-such-flag"}, cli.ExitUsage},
	} {
		var out, errOut bytes.Buffer
		if code := run(tc.args, &out, &errOut); code != tc.code {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", tc.args, code, tc.code, &errOut)
		}
		if tc.args[0] == "-h" && !strings.Contains(errOut.String(), "usage: quickstart") {
			t.Errorf("-h printed no usage:\n%s", &errOut)
		}
	}
}

func TestFindApp_walksUpToTheModuleRoot(t *testing.T) {
	app := findApp()
	if app == "" || filepath.ToSlash(app)[len(app)-len(appInModule):] != appInModule {
		t.Fatalf("findApp() = %q, want a path ending in %s", app, appInModule)
	}
	t.Chdir(t.TempDir())
	if got := findApp(); got != "" {
		t.Errorf("findApp() outside the module = %q, want \"\"", got)
	}
}

func TestHashEmbed_isDeterministicAndNormalized(t *testing.T) {
	a, _ := hashEmbed(t.Context(), "Golden summer river")
	b, _ := hashEmbed(t.Context(), "golden  SUMMER, river")
	if len(a) != dimensions {
		t.Fatalf("len = %d, want %d", len(a), dimensions)
	}
	var norm float64
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("dimension %d differs: %v vs %v", i, a[i], b[i])
		}
		norm += float64(a[i]) * float64(a[i])
	}
	if norm < 0.999 || norm > 1.001 {
		t.Errorf("squared norm = %v, want 1", norm)
	}
	empty, _ := hashEmbed(t.Context(), "")
	for _, x := range empty {
		if x != 0 {
			t.Fatalf("the empty text has a non-zero vector")
		}
	}
}
