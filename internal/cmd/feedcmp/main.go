// Command feedcmp measures the feed command (examples/feed) side by side
// with Vespa's CLI (vespa feed) on one loopback sink: a separate process
// that serves /document/v1 over h2c (and HTTP/1.1) and answers 200 at once.
// Both commands run with their default settings, alternating, -runs times
// each, on the same feed files; for each it prints the best run's
// documents/s (documents over the child's wall time) and client CPU per
// document (the child's user+system time from its rusage).
//
//	go run ./internal/cmd/feedcmp -cli $GOVESPA_VESPA_CLI
//
// Vespa's CLI is not part of this repository; -cli names a binary built
// elsewhere. Extra arguments after the flags are passed to the feed command.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/internal/feedrig"
)

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) })
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("feedcmp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cliBin := fs.String("cli", os.Getenv("GOVESPA_VESPA_CLI"), "Vespa CLI `binary` (default $GOVESPA_VESPA_CLI)")
	feedBin := fs.String("feed", "", "feed command `binary` (default: go build github.com/govespa/govespa/examples/feed)")
	runs := fs.Int("runs", 3, "runs of each command per feed file")
	small := fs.Int("small", 100_000, "documents of ~150 bytes")
	large := fs.Int("large", 20_000, "documents of ~4 KB")
	sink := fs.Bool("sink", false, "serve as the sink (used by feedcmp itself)")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	if *sink {
		if err := serveSink(ctx, stdout); err != nil {
			return cli.Failed(stderr, "feedcmp", fmt.Errorf("sink: %w", err))
		}
		return cli.ExitOK
	}
	if *cliBin == "" {
		return cli.UsageError(stderr, "feedcmp", errors.New("no -cli given and $GOVESPA_VESPA_CLI is empty"))
	}
	if err := compare(ctx, *cliBin, *feedBin, *runs, *small, *large, fs.Args(), stdout, stderr); err != nil {
		return cli.Failed(stderr, "feedcmp", err)
	}
	return cli.ExitOK
}

// result is one run of one command.
type result struct {
	docs int64
	wall time.Duration
	cpu  time.Duration
}

func (r result) rate() float64      { return float64(r.docs) / r.wall.Seconds() }
func (r result) cpuPerDoc() float64 { return float64(r.cpu.Microseconds()) / float64(r.docs) }
func better(a, b result) bool       { return b.wall == 0 || a.wall < b.wall }
func fmtRate(r result) string       { return strconv.FormatFloat(r.rate(), 'f', 0, 64) }
func fmtCPU(r result) string        { return strconv.FormatFloat(r.cpuPerDoc(), 'f', 1, 64) + " µs" }

func compare(ctx context.Context, cliBin, feedBin string, runs, small, large int, extra []string, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "feedcmp")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if feedBin == "" {
		if feedBin, err = feedrig.BuildFeed(ctx, dir, stderr); err != nil {
			return err
		}
	}
	url, stopSink, err := startSink(ctx, dir)
	if err != nil {
		return err
	}
	defer stopSink()

	fmt.Fprintf(stdout, "| documents | command | documents/s | client CPU per document |\n|---|---|---|---|\n")
	for _, set := range []struct {
		name  string
		n     int
		large bool
	}{{"150 B", small, false}, {"4 KB", large, true}} {
		if set.n <= 0 {
			continue
		}
		path := filepath.Join(dir, "feed.jsonl")
		fields := feedrig.SmallFields()
		if set.large {
			fields = feedrig.LargeFields()
		}
		if _, _, err := feedrig.WriteFeed(path, int64(set.n), 0, func(int64) []byte { return fields }); err != nil {
			return err
		}
		var best [2]result
		for r := range runs {
			for k := range 2 {
				which := (k + r) % 2 // alternate which goes first
				var res result
				if which == 0 {
					res, err = runCmd(ctx, dir, cliBin, append([]string{"feed", "--target", url}, path), stderr)
				} else {
					res, err = runCmd(ctx, dir, feedBin, append(append([]string{"-endpoint", url}, extra...), path), stderr)
				}
				if err != nil {
					return err
				}
				if res.docs != int64(set.n) {
					return fmt.Errorf("run %d: %d of %d documents acknowledged", r, res.docs, set.n)
				}
				if better(res, best[which]) {
					best[which] = res
				}
			}
		}
		fmt.Fprintf(stdout, "| %d × %s | vespa feed | %s | %s |\n", set.n, set.name, fmtRate(best[0]), fmtCPU(best[0]))
		fmt.Fprintf(stdout, "| %d × %s | examples/feed | %s | %s |\n", set.n, set.name, fmtRate(best[1]), fmtCPU(best[1]))
		fmt.Fprintf(stdout, "| %d × %s | ratio | %.2f× | %.2f× |\n", set.n, set.name,
			best[1].rate()/best[0].rate(), best[1].cpuPerDoc()/best[0].cpuPerDoc())
	}
	return nil
}

// runCmd runs one feed and reads its summary's acknowledged count.
func runCmd(ctx context.Context, dir, bin string, args []string, stderr io.Writer) (result, error) {
	cmd := exec.CommandContext(ctx, bin, args...) //nolint:gosec // G204: running the commands the user named is this program's job
	cmd.Env = append(os.Environ(), "VESPA_CLI_HOME="+filepath.Join(dir, "cli-home"), "VESPA_CLI_DATA_PLANE_TOKEN=")
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", filepath.Base(bin), err)
	}
	var summary struct {
		OK int64 `json:"feeder.ok.count"`
	}
	if err := json.Unmarshal([]byte(out.String()), &summary); err != nil {
		return result{}, fmt.Errorf("%s: reading the summary: %w (%q)", filepath.Base(bin), err, out.String())
	}
	r := result{docs: summary.OK, wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return r, nil
}

// startSink runs this program as the sink, in a process of its own, and
// returns its URL.
func startSink(ctx context.Context, dir string) (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, self, "-sink") //nolint:gosec // G204: this very program
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("the sink did not start: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

// serveSink serves feedrig.Sink until interrupted, after printing its URL.
func serveSink(ctx context.Context, stdout io.Writer) error {
	url, stop, err := feedrig.Serve(ctx, feedrig.Sink)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, url)
	<-ctx.Done()
	stop()
	return nil
}
