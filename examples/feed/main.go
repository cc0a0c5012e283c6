// Command feed feeds Vespa feed files (JSONL or a JSON array) to a Vespa
// endpoint with the govespa feeder, and prints a JSON summary on stdout.
//
//	go run ./examples/feed [flags] FILE...
//
// "-" reads standard input, which -journal records only under the name given
// by -stdin-name (two different streams on stdin must never skip each
// other). -app DIR checks each put, update and remove against the schemas
// of the application package in DIR before it is sent: one that does not
// fit (a misspelt field, a value of the wrong type, a tensor of the wrong
// shape, an update operation its field does not take, an unknown document
// type) fails on its line, naming the document ID and the field, nothing is
// sent for it, and the rest is fed. The exit status is 0 when every operation
// succeeded, 1 when any failed, and 2 on bad usage or unreadable input.
// A progress bar is drawn on stderr when it is a terminal.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/internal/credflags"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/schema"
)

// maxFailures is how many failures the summary lists.
const maxFailures = 100

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }, os.Interrupt, syscall.SIGTERM)
}

// options are the command's flags.
type options struct {
	endpoint      string
	connections   int
	maxInflight   int
	minInflight   int
	compression   string
	timeout       time.Duration
	route         string
	journal       string
	stdinName     string
	cpuProfile    string
	memProfile    string
	gcPercent     int
	retry         string
	creds         credflags.Credentials
	credOptions   []vespa.Option
	insecure      bool
	http1         bool
	netHTTP2      bool
	stopOnBadLine bool
	patience      time.Duration
	appDir        string
	app           *schema.Application // read from appDir
	files         []string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("feed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cli.Usage(fs, "usage: feed [flags] FILE...   (\"-\" reads stdin)\n\n")
	cli.EndpointVar(fs, &o.endpoint)
	fs.IntVar(&o.connections, "connections", feed.DefaultConnections, "number of HTTP connections")
	fs.IntVar(&o.maxInflight, "max-inflight", 0, "most operations in flight (0: 128 per connection)")
	fs.IntVar(&o.minInflight, "min-inflight", 0, "fewest operations in flight the adaptive limit goes down to (0: the feeder's default)")
	fs.StringVar(&o.compression, "compression", "auto", "request compression: auto, none or gzip")
	fs.DurationVar(&o.timeout, "timeout", feed.DefaultOperationTimeout, "deadline of each operation, retries included")
	fs.StringVar(&o.route, "route", "", "document route (default: Vespa's)")
	fs.StringVar(&o.journal, "journal", "", "resume journal `file`: acknowledged operations are recorded, and skipped when run again")
	fs.StringVar(&o.stdinName, "stdin-name", "", "source `name` of standard input (\"-\") in the journal; without it stdin is not journalled")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the feed to `file` (for measurements)")
	fs.StringVar(&o.memProfile, "memprofile", "", "write the allocations of the feed to `file` (for measurements)")
	fs.IntVar(&o.gcPercent, "gc-percent", defaultGCPercent, "garbage collector target percentage of this process (as $GOGC, which takes precedence when set)")
	fs.StringVar(&o.retry, "retry", "feed", "retry policy: feed (429, 503, 504 and transport errors until -timeout) or docv1 (the earlier DocV1 around Throttle)")
	o.creds.Register(fs)
	fs.BoolVar(&o.insecure, "insecure", false, "skip server certificate verification (tests only)")
	fs.BoolVar(&o.http1, "http1", false, "use HTTP/1.1 instead of HTTP/2")
	fs.BoolVar(&o.netHTTP2, "net-http2", false, "use net/http's HTTP/2 instead of govespa's batching transport")
	fs.BoolVar(&o.stopOnBadLine, "stop-on-bad-line", false, "stop at the first malformed operation (with -app, also at the first that does not fit the schemas)")
	fs.StringVar(&o.appDir, "app", "", "application package `dir` (its schemas/*.sd): check each operation against its schemas before it is sent")
	fs.DurationVar(&o.patience, "connect-patience", vespa.DefaultConnectPatience, "how long refused connections are retried before the first connection; then the feed stops (negative: retried until -timeout, for a Vespa still starting)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.files = fs.Args()
	if len(o.files) == 0 {
		fs.Usage()
		return o, errors.New("no FILE given")
	}
	if _, err := retryPolicies(o.retry); err != nil {
		return o, err
	}
	creds, err := o.creds.Options()
	if err != nil {
		return o, err
	}
	o.credOptions = creds
	if o.appDir != "" {
		// A package that does not parse is bad usage, named by file and line.
		if o.app, err = schema.ParseDir(o.appDir); err != nil {
			return o, fmt.Errorf("-app %s: %w", o.appDir, err)
		}
	}
	return o, nil
}

// retryPolicies returns the feeder's policies for the -retry flag.
func retryPolicies(name string) ([]retries.Policy, error) {
	switch name {
	case "feed", "":
		return []retries.Policy{retries.Feed}, nil
	case "docv1":
		return []retries.Policy{retries.DocV1, retries.Throttle}, nil
	}
	return nil, fmt.Errorf("-retry %q: want feed or docv1", name)
}

func clientOptions(o options, stderr io.Writer) []vespa.Option {
	// Warnings (the first transport failure, an endpoint never reached) go
	// to stderr as they happen.
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := []vespa.Option{vespa.WithConnections(o.connections), vespa.WithLogger(logger)}
	if o.patience != 0 {
		opts = append(opts, vespa.WithConnectPatience(o.patience))
	}
	if o.http1 {
		opts = append(opts, vespa.WithHTTPVersion(vespa.HTTP1))
	} else {
		opts = append(opts, vespa.WithHTTPVersion(vespa.HTTP2))
		if o.netHTTP2 {
			opts = append(opts, vespa.WithHTTP2Transport(vespa.HTTP2NetHTTP))
		}
	}
	opts = append(opts, o.credOptions...)
	if o.insecure {
		opts = append(opts, vespa.WithInsecureSkipVerify())
	}
	return opts
}

// failure is one entry of the summary's failures.
type failure struct {
	Source  string `json:"source,omitempty"`
	ID      string `json:"id"`
	Line    int    `json:"line"`
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// failureLog keeps the first failures, from concurrent callbacks.
type failureLog struct {
	mu   sync.Mutex
	list []failure
}

func (l *failureLog) add(_ context.Context, o feed.Outcome) {
	if o.OK() {
		return
	}
	msg := o.Message
	if msg == "" || o.Status == 0 {
		msg = o.Err.Error()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) < maxFailures {
		l.list = append(l.list, failure{Source: o.Operation.Source, ID: o.IDString(), Line: o.Operation.Line, Status: o.Status, Message: msg})
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return cli.UsageError(stderr, "feed", err)
	}
	compression, err := feed.ParseCompression(o.compression)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}
	client, err := vespa.NewClient(o.endpoint, clientOptions(o, stderr)...)
	if err != nil {
		fmt.Fprintln(stderr, "feed:", err)
		return cli.ExitUsage
	}
	defer client.Close()

	var journal *feed.Journal
	if o.journal != "" {
		if journal, err = feed.OpenJournal(o.journal); err != nil {
			fmt.Fprintln(stderr, err)
			return cli.ExitUsage
		}
		// Runs when run returns, after the feeder's Close. A journal that
		// failed to record fails the run, as its next run would feed again
		// what Vespa already has.
		defer func() {
			if err := journal.Close(); err != nil {
				fmt.Fprintln(stderr, "feed:", err)
				if code == cli.ExitOK {
					code = cli.ExitFailed
				}
			}
		}()
	}

	// Open every input first: an unreadable one is bad usage, before anything is fed.
	inputs := make([]io.ReadCloser, len(o.files))
	var total int64
	for i, name := range o.files {
		if name == "-" {
			inputs[i] = io.NopCloser(stdin)
			total = -1
			continue
		}
		fh, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(stderr, "feed:", err)
			return cli.ExitUsage
		}
		defer func() { _ = fh.Close() }() // read-only: closing it loses nothing
		inputs[i] = fh
		if st, err := fh.Stat(); err == nil && st.Mode().IsRegular() && total >= 0 {
			total += st.Size()
		} else {
			total = -1
		}
	}

	var failures failureLog
	policies, _ := retryPolicies(o.retry) // checked by parseFlags
	f, err := feed.New(client, feed.Config{
		Retries:            policies,
		Connections:        o.connections,
		MaxInflight:        o.maxInflight,
		MinInflight:        o.minInflight,
		OperationTimeout:   o.timeout,
		Route:              o.route,
		Compression:        compression,
		StopAtFirstBadLine: o.stopOnBadLine,
		Schema:             o.app,
		Journal:            journal,
		OnOutcome:          failures.add,
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitUsage
	}

	var bar *progressbar.ProgressBar
	if fd, ok := stderr.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(fd.Fd())) {
		bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionShowBytes(true),
			progressbar.OptionSetDescription("feeding"),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish())
	}

	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(o.gcPercent)
	}
	if o.memProfile != "" {
		defer writeAllocs(o.memProfile, stderr)
	}
	if o.cpuProfile != "" {
		stopProfile, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "feed:", err)
			return cli.ExitUsage
		}
		defer stopProfile()
	}
	start := time.Now()
	status := cli.ExitOK
	readCut := false // an interrupt stopped the reading
	for i, in := range inputs {
		var r io.Reader = in
		if bar != nil {
			pr := progressbar.NewReader(in, bar)
			r = &pr
		}
		// Standard input is journalled only under a name given for it: two
		// different streams read as "-" must never skip each other.
		source := o.files[i]
		if source == "-" {
			source = o.stdinName
			if journal != nil && source == "" {
				fmt.Fprintln(stderr, "feed: standard input is not journalled; give it a name with -stdin-name to resume it")
			}
		}
		if err := f.FeedReader(ctx, source, r); err != nil {
			var pe *feed.ParseError
			switch {
			case errors.As(err, &pe), errors.Is(err, feed.ErrInvalidOperation): // -stop-on-bad-line
				fmt.Fprintln(stderr, err)
				status = cli.ExitFailed
			case ctx.Err() != nil: // said below, once the feeder has closed
				readCut = true
			case errors.Is(err, feed.ErrBreakerOpen):
				fmt.Fprintln(stderr, err)
			default:
				fmt.Fprintln(stderr, err)
				status = cli.ExitUsage // the input could not be read
			}
			break
		}
	}
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := f.Close(closeCtx); err != nil {
		fmt.Fprintln(stderr, "feed:", err)
	}
	if bar != nil {
		bar.Finish()
	}
	s := f.Stats()
	if s.JournalMismatches > 0 {
		fmt.Fprintf(stderr, "feed: %d operations differ from the journal's record at their place (a changed file, or another input under the same name): they were fed again, not skipped\n", s.JournalMismatches)
	}
	if s.Failed > 0 && status == cli.ExitOK {
		status = cli.ExitFailed
	}
	if err := writeSummary(stdout, s, time.Since(start), failures.list); err != nil {
		fmt.Fprintln(stderr, "feed:", err)
	}
	if ctx.Err() != nil && status != cli.ExitUsage && (readCut || status != cli.ExitOK || s.Failed > 0) {
		// Interrupted before everything was fed: 130, as shells report Ctrl-C.
		status = cli.ExitInterrupted
		if o.journal != "" {
			fmt.Fprintf(stderr, "feed: interrupted; in-flight operations were cancelled; run the same command again to resume: -journal %s skips what was acknowledged\n", o.journal)
		} else {
			fmt.Fprintln(stderr, "feed: interrupted; in-flight operations were cancelled; to resume a feed where it stopped, run it with -journal FILE")
		}
	}
	return status
}

// defaultGCPercent is the feed command's GOGC. The feeder's live heap is a
// few megabytes, so Go's default of 100 collects after every few megabytes
// fed, which costs about a tenth of the CPU on small documents; 400 costs
// some 15–40 MB more memory (35 MB and 74 MB at most for 150 B and 4 KB
// documents, where Vespa's CLI takes 100–150 MB).
const defaultGCPercent = 400

// writeAllocs writes the allocation profile to path.
func writeAllocs(path string, stderr io.Writer) {
	fh, err := os.Create(path) //nolint:gosec // G304: the user names the file
	if err == nil {
		err = errors.Join(pprof.Lookup("allocs").WriteTo(fh, 0), fh.Close())
	}
	if err != nil {
		fmt.Fprintln(stderr, "feed: -memprofile:", err)
	}
}

// startCPUProfile writes a CPU profile to path until the returned function
// is called.
func startCPUProfile(path string) (func(), error) {
	fh, err := os.Create(path) //nolint:gosec // G304: the user names the file
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(fh); err != nil {
		return nil, errors.Join(err, fh.Close())
	}
	return func() {
		pprof.StopCPUProfile()
		_ = fh.Close()
	}, nil
}

// writeSummary prints the final JSON object.
func writeSummary(w io.Writer, s feed.Stats, elapsed time.Duration, failures []failure) error {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	codes := map[string]int64{}
	for code, n := range s.OutcomesByStatus {
		codes[strconv.Itoa(code)] = n
	}
	retries := map[string]int64{}
	for k, v := range s.Retries {
		retries[k] = v
	}
	if failures == nil {
		failures = []failure{}
	}
	sort.SliceStable(failures, func(i, j int) bool {
		if failures[i].Source != failures[j].Source {
			return failures[i].Source < failures[j].Source
		}
		return failures[i].Line < failures[j].Line
	})
	secs := elapsed.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(s.Succeeded) / secs
	}
	// A struct keeps the keys in a readable order.
	out := struct {
		Operations int64            `json:"feeder.operation.count"`
		OK         int64            `json:"feeder.ok.count"`
		Errors     int64            `json:"feeder.error.count"`
		Cancelled  int64            `json:"feeder.cancelled.count"`
		Skipped    int64            `json:"feeder.skipped.count"`
		Mismatches int64            `json:"feeder.journal.mismatch.count"`
		Seconds    float64          `json:"feeder.seconds"`
		OKRate     float64          `json:"feeder.ok.rate"`
		Requests   int64            `json:"http.request.count"`
		BytesOut   int64            `json:"http.request.bytes"`
		BytesIn    int64            `json:"http.response.bytes"`
		Codes      map[string]int64 `json:"http.response.code.counts"`
		Retries    map[string]int64 `json:"http.retry.counts"`
		LatencyMin float64          `json:"http.response.latency.millis.min"`
		LatencyAvg float64          `json:"http.response.latency.millis.avg"`
		LatencyP50 float64          `json:"http.response.latency.millis.p50"`
		LatencyP99 float64          `json:"http.response.latency.millis.p99"`
		LatencyMax float64          `json:"http.response.latency.millis.max"`
		Inflight   int              `json:"feeder.inflight.limit"`
		Failures   []failure        `json:"failures"`
	}{
		s.Operations, s.Succeeded, s.Failed, s.Cancelled, s.Skipped, s.JournalMismatches, secs, rate,
		s.Requests, s.BytesSent, s.BytesReceived, codes, retries,
		ms(s.Latency.Min), ms(s.Latency.Avg), ms(s.Latency.P50), ms(s.Latency.P99), ms(s.Latency.Max),
		s.InflightLimit, failures,
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
