package vespacontainer_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespacontainer"
)

// The tests that start containers run govespa's emulator
// (examples/emulator) in an image built here: a static binary imported
// with docker import, so that no registry is needed. It has a config server
// on 19071 and a container API on 8080, as Vespa's image has.

const (
	emulatorImage = "govespa/emulator:test"
	appDir        = "../integration/testdata/app"
)

func TestMain(m *testing.M) {
	// Before anything talks to a daemon: see the package documentation.
	for k, v := range map[string]string{"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1", "TESTCONTAINERS_RYUK_DISABLED": "true"} {
		if _, set := os.LookupEnv(k); !set {
			_ = os.Setenv(k, v)
		}
	}
	os.Exit(m.Run())
}

var emulator struct {
	once sync.Once
	err  error
}

// requireEmulatorImage skips t unless a Docker daemon answers, and builds
// the emulator's image the first time.
func requireEmulatorImage(t *testing.T) {
	t.Helper()
	if os.Getenv("GOVESPA_CONTAINER") == "off" {
		t.Skip("GOVESPA_CONTAINER=off")
	}
	if err := pingDocker(); err != nil {
		if os.Getenv("GOVESPA_CONTAINER") == "require" {
			t.Fatalf("no Docker daemon: %v (GOVESPA_CONTAINER=require)", err)
		}
		testutil.Notice("vespacontainer: tests that start containers skipped: no Docker daemon answers; start one or set GOVESPA_CONTAINER=off")
		t.Skipf("no Docker daemon: %v", err)
	}
	emulator.once.Do(func() { emulator.err = buildEmulatorImage(t.TempDir()) })
	if emulator.err != nil {
		t.Fatal(emulator.err)
	}
}

func pingDocker() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return vespacontainer.Ping(ctx)
}

// buildEmulatorImage builds examples/emulator statically and imports it as
// the only file of emulatorImage.
func buildEmulatorImage(dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(dir, "emulator")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/govespa/govespa/examples/emulator")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build examples/emulator: %w\n%s", err, out)
	}
	b, err := os.ReadFile(bin) //nolint:gosec // the binary just built
	if err != nil {
		return err
	}
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	for _, d := range []string{"tmp/"} {
		if err := tw.WriteHeader(&tar.Header{Name: d, Typeflag: tar.TypeDir, Mode: 0o1777}); err != nil {
			return err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Name: "emulator", Mode: 0o755, Size: int64(len(b))}); err != nil {
		return err
	}
	if _, err := tw.Write(b); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	res, err := cli.ImageImport(ctx, client.ImageImportSource{Source: &layer, SourceName: "-"}, emulatorImage, client.ImageImportOptions{
		Changes: []string{`ENTRYPOINT ["/emulator", "-addr", "0.0.0.0:8080", "-config-addr", "0.0.0.0:19071"]`, "EXPOSE 8080 19071"},
	})
	if err != nil {
		return fmt.Errorf("docker import %s: %w", emulatorImage, err)
	}
	defer res.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(res)
	if strings.Contains(out.String(), `"error"`) {
		return fmt.Errorf("docker import %s: %s", emulatorImage, out.String())
	}
	return nil
}

// Run deploys the application through the container's config server and
// hands back a client that reads and queries what it writes.
func TestRun_DeploysAndAnswers(t *testing.T) {
	requireEmulatorImage(t)
	ctx := t.Context()
	var logs bytes.Buffer
	ctr, err := vespacontainer.Run(ctx, emulatorImage,
		vespacontainer.WithApplication(appDir), vespacontainer.WithoutPull(),
		vespacontainer.WithMemory(512<<20), vespacontainer.WithStartupTimeout(time.Minute),
		vespacontainer.WithLogsOnFailure(&logs))
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, logs.String())
	}
	if !strings.HasPrefix(ctr.URL(), "http://127.0.0.1:") || !strings.HasPrefix(ctr.ConfigServerURL(), "http://127.0.0.1:") || ctr.URL() == ctr.ConfigServerURL() {
		t.Fatalf("URL %q, ConfigServerURL %q: want two loopback URLs", ctr.URL(), ctr.ConfigServerURL())
	}
	c, err := ctr.Client()
	if err != nil {
		t.Fatal(err)
	}
	id := vespa.MustParseDocumentID("id:test:music::container")
	if _, err := c.Put(ctx, id, map[string]any{"title": "Deployed in a container", "year": 2026}, vespa.OperationOptions{}); err != nil {
		t.Fatalf("Put: %v", err)
	}
	doc, _, err := vespa.GetInto[struct {
		Title string `json:"title"`
		Year  int    `json:"year"`
	}](ctx, c, id, vespa.OperationOptions{})
	if err != nil || doc.Title != "Deployed in a container" || doc.Year != 2026 {
		t.Fatalf("GetInto: %+v, %v", doc, err)
	}
	// A field the deployed schema lacks is refused: the application is
	// the one given, not the emulator's lenient default.
	if _, err := c.Put(ctx, id, map[string]any{"nosuch": 1}, vespa.OperationOptions{}); !errors.Is(err, vespa.ErrBadRequest) {
		t.Fatalf("Put of an unknown field: %v, want ErrBadRequest", err)
	}
	qc, err := query.New(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := qc.Search(ctx, &query.Request{YQL: `select * from music where year = 2026`})
	if err != nil || res.Err() != nil {
		t.Fatalf("Search: %v %v", err, res.Err())
	}
	if res.TotalCount != 1 {
		t.Fatalf("Search: totalCount %d, want 1", res.TotalCount)
	}
}

// WithoutPull refuses an image the daemon lacks instead of pulling it.
func TestRun_WithoutPullRefusesAMissingImage(t *testing.T) {
	requireEmulatorImage(t)
	const missing = "govespa/no-such-image:never"
	ctr, err := vespacontainer.Run(t.Context(), missing, vespacontainer.WithoutPull())
	testcontainers.CleanupContainer(t, ctr)
	if !errors.Is(err, vespacontainer.ErrImageNotPresent) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Run: %v, want ErrImageNotPresent naming %s", err, missing)
	}
	if ctr != nil {
		t.Fatalf("a container was created: %s", ctr.GetContainerID())
	}
}

// A deploy that fails returns the container (to terminate) and writes its
// logs where WithLogsOnFailure says.
func TestRun_FailedDeployWritesLogs(t *testing.T) {
	requireEmulatorImage(t)
	bad := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bad, "schemas"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "schemas", "music.sd"), []byte("schema music {\n  document music {\n    field f type nosuchtype {}\n  }\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "services.xml"), []byte(`<services version="1.0"><container id="c" version="1.0"/></services>`), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	ctr, err := vespacontainer.Run(t.Context(), emulatorImage, vespacontainer.WithApplication(bad), vespacontainer.WithoutPull(),
		vespacontainer.WithMemory(512<<20), vespacontainer.WithStartupTimeout(time.Minute), vespacontainer.WithLogsOnFailure(&logs))
	testcontainers.CleanupContainer(t, ctr)
	if err == nil {
		t.Fatal("Run deployed an application with an unknown field type")
	}
	if ctr == nil {
		t.Fatalf("Run: %v, and no container to terminate", err)
	}
	if !strings.Contains(err.Error(), "nosuchtype") {
		t.Errorf("Run: %v, want the config server's reason (nosuchtype)", err)
	}
	if !strings.Contains(logs.String(), "=== output of container") || !strings.Contains(logs.String(), "config server:") {
		t.Errorf("logs on failure: %q, want the container's output", logs.String())
	}
}
