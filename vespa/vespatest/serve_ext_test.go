package vespatest_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/vespatest"
)

// serveHelperEnv marks the child process of TestServeFlag.
const serveHelperEnv = "VESPATEST_SERVE_HELPER"

// TestHelperServe is not a test: it is the child process of TestServeFlag,
// started with -vespatest.serve. NewTestServer must never return there.
func TestHelperServe(t *testing.T) {
	if os.Getenv(serveHelperEnv) != "1" {
		t.Skip("helper process for TestServeFlag")
	}
	if flag.Lookup("vespatest.serve") == nil {
		t.Fatal("-vespatest.serve is not registered in a test binary given it")
	}
	vespatest.NewTestServer(t)
	t.Fatal("NewTestServer returned under -vespatest.serve; it should block")
}

// TestServeFlag runs this test binary again with -vespatest.serve on a free
// loopback port and checks that the emulator comes up there, says so on
// stderr, answers /state/v1/health, and stays up until it is killed.
func TestServeFlag(t *testing.T) {
	if os.Getenv(serveHelperEnv) == "1" {
		t.Skip("inside the helper process")
	}
	addr := testutil.FreeLoopbackAddr(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], // #nosec G204 -- this test binary, run again
		"-test.run=^TestHelperServe$", "-test.timeout=2m", "-vespatest.serve="+addr)
	cmd.Env = append(os.Environ(), serveHelperEnv+"=1")
	cmd.WaitDelay = 10 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr // go test's own output, for the failure message
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill() // ends the blocked helper; an error means it is already gone
		_ = cmd.Wait()         // reaps it on a failure path; after the test's own Wait, a no-op
	}()

	// Read stderr up to the banner, which is written once the listener is up.
	url := "http://" + addr
	var out strings.Builder
	sc := bufio.NewScanner(stderr)
	serving := false
	for lines := 0; lines < 200 && !serving && sc.Scan(); lines++ {
		out.WriteString(sc.Text() + "\n")
		serving = strings.HasPrefix(sc.Text(), "vespatest: serving on "+url+" ")
	}
	if !serving {
		_, _ = io.Copy(&out, io.LimitReader(stderr, 1<<16))
		t.Fatalf("no banner for %s on the helper's stderr:\n%s", url, out.String())
	}

	// The banner comes after the listener opens: the first GET should answer;
	// a few bounded retries absorb a slow machine.
	var resp *http.Response
	for attempt := 0; attempt < 20; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/state/v1/health", nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		t.Logf("GET /state/v1/health: %v", err)
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if resp == nil {
		_ = cmd.Process.Kill()
		for lines := 0; lines < 200 && sc.Scan(); lines++ {
			out.WriteString(sc.Text() + "\n")
		}
		t.Fatalf("%s never answered /state/v1/health; helper output:\n%s", url, out.String())
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"code":"up"`) {
		t.Fatalf("GET /state/v1/health: %d %s", resp.StatusCode, body)
	}
	http.DefaultClient.CloseIdleConnections()

	// The helper is still blocked: it has not exited on its own.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill the helper: %v (did it exit on its own?)", err)
	}
	// The scanner may hold lines past the banner: read on through it. The pipe
	// ends when the helper dies.
	for lines := 0; lines < 200 && sc.Scan(); lines++ {
		out.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.Exited() {
		t.Errorf("helper ended with %v, want killed by a signal; output:\n%s", err, out.String())
	}
	for _, want := range []string{"vespa config set target " + url, "curl " + url + "/state/v1/health"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("helper's stderr lacks %q:\n%s", want, out.String())
		}
	}
}
