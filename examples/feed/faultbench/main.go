// Command faultbench measures the feed command side by side with Vespa's own
// CLI (vespa feed) against one independent fault server on loopback, in one
// run: the same feed file, the same server, the same faults, the clients in
// alternating order.
//
//	go run ./examples/feed/faultbench -cli /path/to/vespa -mode sparse
//
// The server speaks /document/v1 over HTTP/1.1 and h2c and stores the IDs it
// acknowledges, so that every client's "stored" count is the server's, not
// the client's. Its modes:
//
//   - sparse: each request, at random, gets a 429 (-p429), a 503 (-p503) or
//     a dropped connection or stream (-pdrop); the rest succeed at once, or
//     after -latency.
//   - capacity: the server works on at most -capacity requests at once, each
//     for -service; a request beyond that gets a 429 at once (Vespa's
//     answer when its queue is full).
//   - none: every request succeeds at once, or after -latency.
//   - all: one command for both sides of the adaptive limit: none with no
//     latency (the pace), none at each of -latencies (Vespa far away: the
//     server has no limit, every answer waits), capacity and sparse, then
//     a table with each mode's rates, its ratio to the CLI, 429s, and for
//     the latency modes the ratio to the no-latency pace.
//
// It prints one JSON line per client and round (documents/s, stored, exit
// status, 429s the client provoked) and a summary with the ratio of the
// feed command's median rate to the CLI's. Vespa's CLI is not part of this
// repository: build it from Vespa's source and name it with -cli or
// $GOVESPA_VESPA_CLI.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/internal/feedrig"
)

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) })
}

// options are the command's flags.
type options struct {
	docs         int
	mode         string
	p429         float64
	p503         float64
	pdrop        float64
	capacity     int
	service      time.Duration
	latency      time.Duration
	latencies    []time.Duration
	rounds       int
	cli          string
	bin          string
	baseline     string
	feedArgs     []string
	baselineArgs []string
	cliArgs      []string
	seed         uint64
	show         bool
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("faultbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.docs, "docs", 20000, "number of small puts in the feed file")
	fs.StringVar(&o.mode, "mode", "sparse", "server mode: sparse, capacity, none or all")
	fs.Float64Var(&o.p429, "p429", 0.05, "sparse: probability of a 429")
	fs.Float64Var(&o.p503, "p503", 0.02, "sparse: probability of a 503")
	fs.Float64Var(&o.pdrop, "pdrop", 0.01, "sparse: probability of a dropped connection (HTTP/1.1) or stream (HTTP/2)")
	fs.IntVar(&o.capacity, "capacity", 64, "capacity: requests worked on at once; more get a 429")
	fs.DurationVar(&o.service, "service", 2*time.Millisecond, "capacity: time to serve one request")
	fs.DurationVar(&o.latency, "latency", 0, "sparse and none: time to serve every request that is not a fault")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds; each runs both clients, in alternating order")
	fs.StringVar(&o.cli, "cli", os.Getenv("GOVESPA_VESPA_CLI"), "Vespa CLI `binary` (default $GOVESPA_VESPA_CLI)")
	fs.StringVar(&o.bin, "feed", "", "feed command `binary` (default: go build github.com/govespa/govespa/examples/feed)")
	fs.StringVar(&o.baseline, "baseline", "", "another feed command `binary` (an earlier version, say), run as a third client, govespa-baseline")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the server's faults")
	fs.BoolVar(&o.show, "show", false, "copy each client's own output to stderr")
	feedArgs := fs.String("feed-args", "", "extra flags for the feed command, space-separated")
	baselineArgs := fs.String("baseline-args", "", "extra flags for the -baseline feed command, space-separated (default: -feed-args)")
	cliArgs := fs.String("cli-args", "", "extra flags for vespa feed, space-separated")
	latencies := fs.String("latencies", "20ms,50ms", "all: the added latencies of the latency modes, comma-separated")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for l := range strings.SplitSeq(*latencies, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(l))
		if err != nil || d <= 0 {
			return o, fmt.Errorf("-latencies: %q is not a positive duration", l)
		}
		o.latencies = append(o.latencies, d)
	}
	o.feedArgs, o.cliArgs = strings.Fields(*feedArgs), strings.Fields(*cliArgs)
	o.baselineArgs = o.feedArgs
	if *baselineArgs != "" {
		o.baselineArgs = strings.Fields(*baselineArgs)
	}
	switch {
	case o.cli == "":
		return o, errors.New("no Vespa CLI: give -cli or set GOVESPA_VESPA_CLI")
	case o.mode != "sparse" && o.mode != "capacity" && o.mode != "none" && o.mode != "all":
		return o, fmt.Errorf("-mode %q: want sparse, capacity, none or all", o.mode)
	case o.docs <= 0 || o.rounds <= 0 || o.capacity <= 0:
		return o, errors.New("-docs, -rounds and -capacity must be positive")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return cli.UsageError(stderr, "faultbench", err)
	}
	if err := bench(ctx, o, stdout, stderr); err != nil {
		return cli.Failed(stderr, "faultbench", err)
	}
	return 0
}

// result is one client's run.
type result struct {
	Client        string  `json:"client"`
	Round         int     `json:"round"`
	Mode          string  `json:"mode"`
	LatencyMillis int64   `json:"latency_ms"`
	Documents     int     `json:"documents"`
	Stored        int64   `json:"stored"`
	Seconds       float64 `json:"seconds"`
	DocsPerSec    float64 `json:"docs_per_second"`
	Exit          int     `json:"exit"`
	Requests      int64   `json:"requests"`
	Got429        int64   `json:"responses_429"`
	Got503        int64   `json:"responses_503"`
	Drops         int64   `json:"drops"`
	CPUSeconds    float64 `json:"cpu_seconds"`
}

func bench(ctx context.Context, o options, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "faultbench")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bin := o.bin
	if bin == "" {
		if bin, err = feedrig.BuildFeed(ctx, dir, stderr); err != nil {
			return err
		}
	}
	file := filepath.Join(dir, "feed.jsonl")
	if _, _, err := feedrig.WriteFeed(file, int64(o.docs), 0, func(i int64) []byte {
		return fmt.Appendf(nil, `{"title":"A Head Full of Dreams","artist":"Coldplay","year":%d}`, 1990+i%30)
	}); err != nil {
		return err
	}
	if o.mode != "all" {
		_, err := benchMode(ctx, o, bin, file, dir, stdout)
		return err
	}
	var rows []summary
	for _, m := range modesOfAll(o) {
		sum, err := benchMode(ctx, m, bin, file, dir, stdout)
		if err != nil {
			return err
		}
		rows = append(rows, sum)
	}
	return writeTable(stdout, rows)
}

// modesOfAll returns the runs of -mode all: the pace, the latency modes,
// capacity and sparse.
func modesOfAll(o options) []options {
	pace := o
	pace.mode, pace.latency = "none", 0
	out := []options{pace}
	for _, l := range o.latencies {
		m := pace
		m.latency = l
		out = append(out, m)
	}
	for _, mode := range []string{"capacity", "sparse"} {
		m := o
		m.mode, m.latency = mode, 0
		out = append(out, m)
	}
	return out
}

// summary is the outcome of one mode.
type summary struct {
	Mode      string
	Latency   time.Duration
	Ours      float64 // median documents/s of the feed command
	Theirs    float64 // the CLI's
	Ratio     float64 // median of the rounds' ratios
	AllStored bool
	Ours429   int64
	Theirs429 int64
}

// writeTable prints the summaries of -mode all as a Markdown table; the
// latency modes also show their pace against the first row's (no latency).
func writeTable(w io.Writer, rows []summary) error {
	var b strings.Builder
	b.WriteString("\n| mode | added latency | govespa docs/s | vespa-cli docs/s | govespa/cli | govespa vs its pace | 429s govespa / cli | every doc stored, exit 0 |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	pace := rows[0].Ours
	for _, r := range rows {
		vsPace := "—"
		if r.Mode == "none" {
			vsPace = fmt.Sprintf("%.2f×", r.Ours/pace)
		}
		fmt.Fprintf(&b, "| %s | %v | %.0f | %.0f | %.2f× | %s | %d / %d | %v |\n",
			r.Mode, r.Latency, r.Ours, r.Theirs, r.Ratio, vsPace, r.Ours429, r.Theirs429, r.AllStored)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// benchMode runs every client against one server in o's mode, writes a JSON
// line per run and a summary line, and returns the summary.
func benchMode(ctx context.Context, o options, bin, file, dir string, stdout io.Writer) (summary, error) {
	srv, err := startServer(ctx, o)
	if err != nil {
		return summary{}, err
	}
	defer srv.stop()

	clients := map[string][]string{
		"govespa":   append(append([]string{bin, "-endpoint", srv.url}, o.feedArgs...), file),
		"vespa-cli": append(append([]string{o.cli, "feed", "-t", srv.url}, o.cliArgs...), file),
	}
	if o.baseline != "" {
		clients["govespa-baseline"] = append(append([]string{o.baseline, "-endpoint", srv.url}, o.baselineArgs...), file)
	}
	enc := json.NewEncoder(stdout)
	rates := map[string][]float64{}
	got429 := map[string][]int64{}
	allStored := true
	for round := range o.rounds {
		order := []string{"govespa", "vespa-cli"}
		if o.baseline != "" {
			order = append(order, "govespa-baseline")
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, name := range order {
			r, err := runClient(ctx, srv, clients[name], dir, o.show)
			if err != nil {
				return summary{}, fmt.Errorf("%s: %w", name, err)
			}
			r.Client, r.Round, r.Mode, r.Documents, r.LatencyMillis = name, round+1, o.mode, o.docs, o.latency.Milliseconds()
			if err := enc.Encode(r); err != nil {
				return summary{}, err
			}
			rates[name] = append(rates[name], r.DocsPerSec)
			got429[name] = append(got429[name], r.Got429)
			allStored = allStored && r.Stored == int64(o.docs) && r.Exit == 0
		}
	}
	ours, theirs := median(rates["govespa"]), median(rates["vespa-cli"])
	// The ratio of each round, whose clients ran back to back, is steadier
	// on a busy machine than the ratio of the medians.
	var perRound []float64
	for i := range rates["govespa"] {
		perRound = append(perRound, rates["govespa"][i]/rates["vespa-cli"][i])
	}
	line := map[string]any{
		"mode": o.mode, "latency_ms": o.latency.Milliseconds(), "documents": o.docs, "rounds": o.rounds,
		"govespa.median_docs_per_second": ours, "vespa-cli.median_docs_per_second": theirs,
		"ratio": ours / theirs, "ratio.median_of_rounds": median(perRound), "every_doc_stored_and_exit_0": allStored,
		"govespa.median_429s": medianInt(got429["govespa"]), "vespa-cli.median_429s": medianInt(got429["vespa-cli"]),
	}
	if o.baseline != "" {
		var b []float64
		for i := range rates["govespa-baseline"] {
			b = append(b, rates["govespa-baseline"][i]/rates["vespa-cli"][i])
		}
		line["govespa-baseline.ratio.median_of_rounds"] = median(b)
		line["govespa-baseline.median_docs_per_second"] = median(rates["govespa-baseline"])
		line["govespa-baseline.median_429s"] = medianInt(got429["govespa-baseline"])
	}
	sum := summary{
		Mode: o.mode, Latency: o.latency, Ours: ours, Theirs: theirs, Ratio: median(perRound), AllStored: allStored,
		Ours429: medianInt(got429["govespa"]), Theirs429: medianInt(got429["vespa-cli"]),
	}
	return sum, enc.Encode(line)
}

// runClient runs one client against a freshly emptied server.
func runClient(ctx context.Context, srv *server, argv []string, dir string, show bool) (result, error) {
	srv.reset()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...) //nolint:gosec // G204: running the clients the user named is this program's job
	// The CLI keeps its configuration under VESPA_CLI_HOME: a temporary one.
	cmd.Env = append(os.Environ(), "VESPA_CLI_HOME="+dir, "VESPA_CLI_CACHE_DIR="+dir, "VESPA_CLI_DATA_PLANE_TOKEN=")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if show {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return result{}, err
	}
	r := result{
		Seconds: elapsed.Seconds(), Exit: cmd.ProcessState.ExitCode(),
		Stored: srv.stored.Load(), Requests: srv.requests.Load(),
		Got429: srv.got429.Load(), Got503: srv.got503.Load(), Drops: srv.drops.Load(),
	}
	r.DocsPerSec = float64(r.Stored) / r.Seconds
	r.CPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	return r, nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianInt(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// server is the fault server.
type server struct {
	o    options
	url  string
	stop func()

	mu    sync.Mutex
	rng   *rand.Rand
	store map[string]struct{}

	busy     atomic.Int64
	stored   atomic.Int64
	requests atomic.Int64
	got429   atomic.Int64
	got503   atomic.Int64
	drops    atomic.Int64
}

func startServer(ctx context.Context, o options) (*server, error) {
	s := &server{o: o, rng: rand.New(rand.NewPCG(o.seed, o.seed^0xfeed)), store: map[string]struct{}{}}
	var err error
	if s.url, s.stop, err = feedrig.Serve(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// reset empties the store and the counters, for the next client.
func (s *server) reset() {
	s.mu.Lock()
	s.store = map[string]struct{}{}
	s.mu.Unlock()
	for _, c := range []*atomic.Int64{&s.stored, &s.requests, &s.got429, &s.got503, &s.drops} {
		c.Store(0)
	}
}

// ServeHTTP answers one /document/v1 request.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if !strings.HasPrefix(r.URL.Path, "/document/v1/") {
		w.WriteHeader(http.StatusOK) // health checks and the like
		return
	}
	s.requests.Add(1)
	path := r.URL.Path
	w.Header().Set("Content-Type", "application/json")
	switch s.o.mode {
	case "sparse":
		s.mu.Lock()
		x := s.rng.Float64()
		s.mu.Unlock()
		switch {
		case x < s.o.pdrop:
			s.drops.Add(1)
			panic(http.ErrAbortHandler) // closes the connection (HTTP/1.1) or resets the stream (HTTP/2)
		case x < s.o.pdrop+s.o.p429:
			s.reject(w, path, http.StatusTooManyRequests, "Rejecting execution due to overload: 256 requests already enqueued")
			return
		case x < s.o.pdrop+s.o.p429+s.o.p503:
			s.reject(w, path, http.StatusServiceUnavailable, "Service Unavailable: no available handler threads")
			return
		}
	case "capacity":
		if s.busy.Add(1) > int64(s.o.capacity) {
			s.busy.Add(-1)
			s.reject(w, path, http.StatusTooManyRequests, "Rejecting execution due to overload: queue full")
			return
		}
		time.Sleep(s.o.service)
		s.busy.Add(-1)
	}
	if s.o.mode != "capacity" && s.o.latency > 0 {
		time.Sleep(s.o.latency)
	}
	id := docID(path)
	s.mu.Lock()
	if _, ok := s.store[id]; !ok {
		s.store[id] = struct{}{}
		s.stored.Add(1)
	}
	s.mu.Unlock()
	_, _ = fmt.Fprintf(w, `{"pathId":%s,"id":%s}`, strconv.Quote(path), strconv.Quote(id)) //nolint:gosec // G705: a JSON answer with quoted strings, not HTML
}

func (s *server) reject(w http.ResponseWriter, path string, status int, msg string) {
	switch status {
	case http.StatusTooManyRequests:
		s.got429.Add(1)
	case http.StatusServiceUnavailable:
		s.got503.Add(1)
	}
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"pathId":%s,"message":%s}`, strconv.Quote(path), strconv.Quote(msg)) //nolint:gosec // G705: a JSON answer with quoted strings, not HTML
}

// docID returns the document ID of a /document/v1/<ns>/<type>/docid/<key>
// path.
func docID(path string) string {
	parts := strings.Split(strings.TrimPrefix(path, "/document/v1/"), "/")
	if len(parts) != 4 {
		return path
	}
	return "id:" + parts[0] + ":" + parts[1] + "::" + parts[3]
}
