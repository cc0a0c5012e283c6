// Command feedbench measures the feed command's memory and speed on a large
// feed file: it writes a JSONL feed of the size asked (streamed to a
// temporary file, never held in memory), starts a trivial /document/v1 sink
// in its own process (HTTP/1.1 and h2c, 200 with Vespa's put answer at once),
// builds and runs the feed command against it, and prints the feed command's
// peak resident memory (its VmHWM, from the kernel's rusage of the child)
// with its summary's counts and rate.
//
//	go run ./examples/feed/feedbench -size 1GiB -docs mixed
//
// Measuring the command in a process of its own keeps the sink and the
// generator out of the figure: what it reports is what a user's feed costs.
// The exit status is 0 when the feed succeeded within -max-rss, 1 otherwise.
package main

import (
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

// options are the command's flags.
type options struct {
	size        int64
	docs        string
	bin         string
	keep        bool
	maxRSS      int64
	feedArgs    []string
	connections int
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("feedbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", "1GiB", "feed file `size` (bytes, or with KiB, MiB, GiB)")
	maxRSS := fs.String("max-rss", "64MiB", "the feed command's peak RSS `limit`; above it the exit status is 1")
	fs.StringVar(&o.docs, "docs", "mixed", "documents: small (~150 B), large (~4 KB, a 384-float vector) or mixed (alternating)")
	fs.StringVar(&o.bin, "feed", "", "feed command `binary` (default: go build github.com/govespa/govespa/examples/feed)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory with the feed file")
	fs.IntVar(&o.connections, "connections", 0, "passed to the feed command as -connections when > 0")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.size, err = parseSize(*size); err != nil {
		return o, fmt.Errorf("-size: %w", err)
	}
	if o.maxRSS, err = parseSize(*maxRSS); err != nil {
		return o, fmt.Errorf("-max-rss: %w", err)
	}
	switch o.docs {
	case "small", "large", "mixed":
	default:
		return o, fmt.Errorf("-docs %q: want small, large or mixed", o.docs)
	}
	o.feedArgs = fs.Args() // extra flags for the feed command
	return o, nil
}

// parseSize reads a byte count such as 1073741824, 512MiB or 1GiB.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return cli.UsageError(stderr, "feedbench", err)
	}
	dir, err := os.MkdirTemp("", "feedbench")
	if err != nil {
		return cli.Failed(stderr, "feedbench", err)
	}
	if o.keep {
		fmt.Fprintln(stderr, "feedbench: keeping", dir)
	} else {
		defer func() { _ = os.RemoveAll(dir) }()
	}
	r, err := measure(ctx, o, dir, stderr)
	if err != nil {
		return cli.Failed(stderr, "feedbench", err)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return cli.Failed(stderr, "feedbench", err)
	}
	if r.PeakRSSBytes > o.maxRSS || r.OK != r.Documents {
		return 1
	}
	return 0
}

// report is what feedbench prints.
type report struct {
	FileBytes    int64   `json:"file.bytes"`
	Documents    int64   `json:"file.documents"`
	Docs         string  `json:"file.docs"`
	PeakRSSBytes int64   `json:"feed.peak_rss.bytes"`
	PeakRSSMiB   float64 `json:"feed.peak_rss.mib"`
	OK           int64   `json:"feed.ok.count"`
	Errors       int64   `json:"feed.error.count"`
	Seconds      float64 `json:"feed.seconds"`
	DocsPerSec   float64 `json:"feed.ok.rate"`
	MiBPerSec    float64 `json:"feed.mib_per_second"`
	ExitStatus   int     `json:"feed.exit_status"`
}

// measure writes the feed, starts the sink and runs the feed command.
func measure(ctx context.Context, o options, dir string, stderr io.Writer) (report, error) {
	r := report{Docs: o.docs}
	bin := o.bin
	if bin == "" {
		var err error
		if bin, err = feedrig.BuildFeed(ctx, dir, stderr); err != nil {
			return r, err
		}
	}
	path := filepath.Join(dir, "feed.jsonl")
	start := time.Now()
	n, docs, err := writeFeed(path, o.size, o.docs)
	if err != nil {
		return r, err
	}
	r.FileBytes, r.Documents = n, docs
	fmt.Fprintf(stderr, "feedbench: wrote %d documents, %d bytes in %v\n", docs, n, time.Since(start).Round(time.Millisecond))

	url, stop, err := feedrig.Serve(ctx, feedrig.Sink)
	if err != nil {
		return r, err
	}
	defer stop()

	args := []string{"-endpoint", url}
	if o.connections > 0 {
		args = append(args, "-connections", strconv.Itoa(o.connections))
	}
	args = append(append(args, o.feedArgs...), path)
	cmd := exec.CommandContext(ctx, bin, args...) //nolint:gosec // G204: running the feed command the user named is this program's job
	cmd.Env = append(os.Environ(), "VESPA_CLI_DATA_PLANE_TOKEN=")
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return r, fmt.Errorf("running the feed command: %w", err)
	}
	r.ExitStatus = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakRSSBytes = ru.Maxrss << 10 // kilobytes on Linux
		r.PeakRSSMiB = float64(r.PeakRSSBytes) / (1 << 20)
	}
	var summary struct {
		OK      int64   `json:"feeder.ok.count"`
		Errors  int64   `json:"feeder.error.count"`
		Seconds float64 `json:"feeder.seconds"`
		Rate    float64 `json:"feeder.ok.rate"`
	}
	if err := json.Unmarshal([]byte(out.String()), &summary); err != nil {
		return r, fmt.Errorf("reading the feed command's summary: %w (%q)", err, out.String())
	}
	r.OK, r.Errors, r.Seconds, r.DocsPerSec = summary.OK, summary.Errors, summary.Seconds, summary.Rate
	if summary.Seconds > 0 {
		r.MiBPerSec = float64(n) / (1 << 20) / summary.Seconds
	}
	return r, nil
}

// writeFeed streams a JSONL feed of about size bytes to path, of small
// (~150 B), large (~4 KB) or mixed (alternating) documents, and returns its
// size and number of documents.
func writeFeed(path string, size int64, docs string) (int64, int64, error) {
	small, large := feedrig.SmallFields(), feedrig.LargeFields()
	return feedrig.WriteFeed(path, 0, size, func(i int64) []byte {
		if docs == "large" || docs == "mixed" && i%2 == 1 {
			return large
		}
		return small
	})
}
