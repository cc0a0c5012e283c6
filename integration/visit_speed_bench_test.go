package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// BenchmarkVisit_SideBySideWithCLI visits one corpus with Vespa's CLI
// (vespa visit, its default settings) and with govespa (Client.Visit, its
// default settings), in the same run, behind a front that adds 20 ms to
// every /document/v1 request, and reports documents/s for each; then govespa
// and the CLI again through 429, 503 and dropped-connection faults on top of
// the latency. govespa must yield each document exactly once in every run.
//
// The front serves pages from the emulator and keeps them by URL, and each
// client visits once untimed before it is timed, so that the timed runs
// measure the clients and their request pattern, not the emulator's CPU
// (this machine may be busy). The CLI is found as in vespacli_test.go
// (GOVESPA_VESPA_CLI, else "vespa" on PATH); without it the CLI's parts are
// skipped. Run it with
//
//	GOVESPA_VESPA_CLI=/path/to/vespa go test ./integration -run '^$' -bench SideBySideWithCLI -benchtime 1x
//
// VISIT_BENCH_DOCS sets the corpus size (default 100000).
func BenchmarkVisit_SideBySideWithCLI(b *testing.B) {
	n := 100000
	if s := os.Getenv("VISIT_BENCH_DOCS"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
			b.Fatalf("VISIT_BENCH_DOCS=%q: not a positive number", s)
		}
	}
	srv, err := vespatest.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	for i := range n {
		id := fmt.Sprintf("id:bench:music::doc-%06d", i)
		if err := srv.PutDocument(id, json.RawMessage(fmt.Sprintf(`{"title":"song %d","year":%d}`, i, 1950+i%70))); err != nil {
			b.Fatal(err)
		}
	}
	front := newBenchFront(srv.Handler(), 20*time.Millisecond)
	defer front.Close()

	var cliRate float64
	b.Run("vespa-cli", func(b *testing.B) {
		bin := benchFindCLI(b)
		benchRunCLIVisit(b, bin, front.URL) // warm the front
		for b.Loop() {
			start := time.Now()
			seen := benchRunCLIVisit(b, bin, front.URL)
			elapsed := time.Since(start)
			benchCheckExactlyOnce(b, seen, n)
			cliRate = float64(n) / elapsed.Seconds()
			b.ReportMetric(cliRate, "docs/s")
			b.Logf("vespa visit: %d documents in %.2fs (%.0f documents/s)", n, elapsed.Seconds(), cliRate)
		}
	})
	c, err := vespa.NewClient(front.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	visitOnce := func(b *testing.B) map[string]int {
		seen := map[string]int{}
		for d, err := range c.Visit(b.Context(), vespa.VisitRequest{Cluster: "content"}) {
			if err != nil {
				b.Fatal(err)
			}
			seen[d.ID]++
		}
		return seen
	}
	visit := func(b *testing.B, name string) {
		for b.Loop() {
			start := time.Now()
			seen := visitOnce(b)
			elapsed := time.Since(start)
			benchCheckExactlyOnce(b, seen, n)
			rate := float64(n) / elapsed.Seconds()
			b.ReportMetric(rate, "docs/s")
			if cliRate > 0 {
				b.ReportMetric(rate/cliRate, "x-cli")
			}
			b.Logf("govespa %s: %d documents in %.2fs (%.0f documents/s; %.1f× the CLI)", name, n, elapsed.Seconds(), rate, rate/max(cliRate, 1e-9))
		}
	}
	b.Run("govespa", func(b *testing.B) {
		benchCheckExactlyOnce(b, visitOnce(b), n) // warm the front
		visit(b, "defaults")
	})
	b.Run("govespa-faults", func(b *testing.B) {
		front.faults.Store(true)
		defer front.faults.Store(false)
		before := front.stats()
		visit(b, "with 5% 429, 3% 503, 1% drops")
		after := front.stats()
		b.Logf("faults injected: %d × 429, %d × 503, %d drops", after[0]-before[0], after[1]-before[1], after[2]-before[2])
	})
	// The CLI through the same faults, for the record: it is not required
	// to survive them, so its outcome is logged, not judged.
	b.Run("vespa-cli-faults", func(b *testing.B) {
		bin := benchFindCLI(b)
		front.faults.Store(true)
		defer front.faults.Store(false)
		for b.Loop() {
			start := time.Now()
			seen, err := benchRunCLIVisitOnce(b, bin, front.URL)
			dups := 0
			for _, k := range seen {
				if k > 1 {
					dups++
				}
			}
			b.Logf("vespa visit through the faults: %d of %d documents, %d more than once, in %.2fs; error: %v", len(seen), n, dups, time.Since(start).Seconds(), err)
		}
	})
}

// benchFront serves a handler behind a fixed latency on /document/v1
// requests, keeps its 200 answers to GETs by URL and Accept header, and
// injects 429 (5%), 503 (3%) and dropped connections (1%) while faults is
// set.
type benchFront struct {
	*httptest.Server
	faults atomic.Bool
	mu     sync.Mutex
	cache  map[string]benchAnswer
	rng    *rand.Rand
	counts [3]int // 429s, 503s, drops
}

type benchAnswer struct {
	contentType string
	body        []byte
}

func newBenchFront(h http.Handler, latency time.Duration) *benchFront {
	f := &benchFront{cache: map[string]benchAnswer{}, rng: rand.New(rand.NewPCG(8, 9))} // a seed whose first 100 draws hold each fault
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/document/v1/") {
			h.ServeHTTP(w, r)
			return
		}
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
		switch f.fault() {
		case 1:
			http.Error(w, `{"message":"Rejecting execution due to overload"}`, http.StatusTooManyRequests)
			return
		case 2:
			http.Error(w, `{"message":"Service Unavailable"}`, http.StatusServiceUnavailable)
			return
		case 3:
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		key := r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("Accept")
		f.mu.Lock()
		a, ok := f.cache[key]
		f.mu.Unlock()
		if !ok {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != http.StatusOK || r.Method != http.MethodGet {
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
				return
			}
			a = benchAnswer{rec.Header().Get("Content-Type"), rec.Body.Bytes()}
			f.mu.Lock()
			f.cache[key] = a
			f.mu.Unlock()
		}
		w.Header().Set("Content-Type", a.contentType)
		_, _ = w.Write(a.body)
	}))
	return f
}

// fault draws the fault of one request: 0 none, 1 a 429, 2 a 503, 3 a drop.
func (f *benchFront) fault() int {
	if !f.faults.Load() {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	x := f.rng.Float64()
	for i, p := range []float64{0.05, 0.08, 0.09} {
		if x < p {
			f.counts[i]++
			return i + 1
		}
	}
	return 0
}

func (f *benchFront) stats() [3]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts
}

// benchFindCLI returns the Vespa CLI to run, or skips b.
func benchFindCLI(b *testing.B) string {
	b.Helper()
	name := os.Getenv(cliBinaryEnv)
	if name == "" {
		name = "vespa"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		b.Skipf("Vespa's CLI is not available (%s=%q): %v", cliBinaryEnv, os.Getenv(cliBinaryEnv), err)
	}
	return path
}

// benchRunCLIVisit runs "vespa visit" with its defaults at target, its
// configuration in a temporary directory, and counts the IDs it prints; a
// failure fails b.
func benchRunCLIVisit(b *testing.B, bin, target string) map[string]int {
	b.Helper()
	seen, err := benchRunCLIVisitOnce(b, bin, target)
	if err != nil {
		b.Fatal(err)
	}
	return seen
}

// benchRunCLIVisitOnce is benchRunCLIVisit returning the failure.
func benchRunCLIVisitOnce(b *testing.B, bin, target string) (map[string]int, error) {
	b.Helper()
	dir := b.TempDir()
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "visit", "--target", target)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "VESPA_CLI_HOME="+filepath.Join(dir, "home"), "VESPA_CLI_CACHE_DIR="+filepath.Join(dir, "cache"), "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var doc struct {
			ID  string `json:"id"`
			Put string `json:"put"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			_ = cmd.Wait()
			return seen, fmt.Errorf("vespa visit printed %q: %w", sc.Text(), err)
		}
		seen[doc.ID+doc.Put]++
	}
	if err := cmd.Wait(); err != nil {
		return seen, fmt.Errorf("vespa visit: %w\n%s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return seen, nil
}

// benchCheckExactlyOnce fails b unless seen holds n IDs, each once.
func benchCheckExactlyOnce(b *testing.B, seen map[string]int, n int) {
	b.Helper()
	dups := 0
	for _, k := range seen {
		if k != 1 {
			dups++
		}
	}
	if len(seen) != n || dups != 0 {
		b.Fatalf("%d distinct documents (want %d), %d seen more than once", len(seen), n, dups)
	}
}
