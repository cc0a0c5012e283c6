package workspace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
)

// timeoutMargin is what a module's run leaves of this test's deadline, for
// reporting its failure before go test ends the binary.
const timeoutMargin = 30 * time.Second

// TestModules runs `go test ./...` in every module go.work lists other than
// this one, one after the other, with this run's -race, -short, -shuffle,
// -count, -failfast and -v. Each module is a subtest named for its folder;
// its output is shown when it fails (and with -v as it comes), and the
// one-line notices its tests print (testutil.Notice) are passed on.
//
// The test is never cached by go test (see defeatTestCache): each module's
// own packages are cached by the go test it runs, which knows their inputs.
func TestModules(t *testing.T) {
	if v := os.Getenv("GOVESPA_MODULES"); v == "off" {
		t.Skip("GOVESPA_MODULES=off: the other modules' tests are not run")
	}
	defeatTestCache(t)
	gowork := goEnv(t, "GOWORK")
	if gowork == "" || gowork == "off" {
		testutil.Notice("go.work is not in use (GOWORK=%q): only the SDK module was tested; run go test ./... in examples, integration and vespacontainer too", gowork)
		t.Skipf("no go.work (GOWORK=%q)", gowork)
	}
	root := filepath.Dir(gowork)
	for _, dir := range workspaceModules(t, gowork) {
		abs := filepath.Join(root, dir)
		if abs == root {
			continue
		}
		t.Run(filepath.ToSlash(dir), func(t *testing.T) { testModule(t, abs) })
	}
}

// testModule runs go test ./... in dir.
func testModule(t *testing.T, dir string) {
	args := append([]string{"test"}, forwardedFlags(t)...)
	args = append(args, "./...")
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-timeoutMargin))
		defer cancel()
		args = append(args[:1], append([]string{"-timeout", time.Until(d.Add(-timeoutMargin)).Round(time.Second).String()}, args[1:]...)...)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("go %s in %s: %v", strings.Join(args, " "), dir, err)
	}
	var all bytes.Buffer
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, testutil.NoticePrefix); ok {
			testutil.Notice("%s", rest)
			continue
		}
		all.WriteString(line)
		all.WriteByte('\n')
		if testing.Verbose() {
			fmt.Println(line)
		}
	}
	err = cmd.Wait()
	if err != nil {
		t.Errorf("go %s in %s failed after %v: %v\n%s", strings.Join(args, " "), dir, time.Since(start).Round(time.Millisecond), err, all.String())
		return
	}
	t.Logf("go %s in %s: ok in %v", strings.Join(args, " "), dir, time.Since(start).Round(time.Millisecond))
}

// forwardedFlags returns the go test flags of this run that the modules' runs
// take too.
func forwardedFlags(t *testing.T) []string {
	var flags []string
	if raceDetector {
		flags = append(flags, "-race")
	}
	flag.Visit(func(f *flag.Flag) {
		switch name := strings.TrimPrefix(f.Name, "test."); name {
		case "short", "shuffle", "count", "failfast", "v", "cpu", "parallel":
			flags = append(flags, "-"+name+"="+f.Value.String())
		}
	})
	return flags
}

// workspaceModules returns the folders go.work lists, relative to it.
func workspaceModules(t *testing.T, gowork string) []string {
	cmd := exec.CommandContext(t.Context(), "go", "work", "edit", "-json", gowork)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go work edit -json %s: %v", gowork, err)
	}
	var work struct {
		Use []struct{ DiskPath string }
	}
	if err := json.Unmarshal(out, &work); err != nil {
		t.Fatalf("go work edit -json %s: %v", gowork, err)
	}
	dirs := make([]string, 0, len(work.Use))
	for _, u := range work.Use {
		dirs = append(dirs, filepath.Clean(u.DiskPath))
	}
	return dirs
}

// goEnv returns go env's value of name.
func goEnv(t *testing.T, name string) string {
	out, err := exec.CommandContext(t.Context(), "go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// defeatTestCache keeps go test from caching this test's result. go test
// caches a passing test with the files it opened and the environment
// variables it read, and the modules' tests read files and variables in
// child processes that it does not see. Statting a file that is gone
// afterwards makes every later check of the cached result miss.
func defeatTestCache(t *testing.T) {
	f, err := os.CreateTemp("", "govespa-modules-*")
	if err != nil {
		t.Fatal(err)
	}
	name := f.Name()
	f.Close()
	if _, err := os.Stat(name); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
}
