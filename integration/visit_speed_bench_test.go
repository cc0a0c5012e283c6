package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// BenchmarkVisit_SideBySideWithCLI visits one corpus with Vespa's CLI
// (vespa visit, its default settings) and with govespa (a Visitor, its
// default settings), in the same run, against the emulator with 20 ms added
// to every visit page, and reports documents/s for each; then govespa again
// through 429, 503 and dropped-connection faults on top of the latency.
// Every run must yield each document exactly once. The CLI is found as in
// vespacli_test.go (GOVESPA_VESPA_CLI, else "vespa" on PATH); without it the
// CLI's part is skipped. Run it with
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
	const pageLatency = 20 * time.Millisecond
	latency := vespatest.FaultRule{Op: vespatest.OpVisit, Rate: 1, Fault: vespatest.FaultLatency(pageLatency)}
	if err := srv.AddFault(latency); err != nil {
		b.Fatal(err)
	}

	var cliRate float64
	b.Run("vespa-cli", func(b *testing.B) {
		bin := benchFindCLI(b)
		for b.Loop() {
			start := time.Now()
			seen := benchRunCLIVisit(b, bin, srv.URL())
			elapsed := time.Since(start)
			benchCheckExactlyOnce(b, seen, n)
			cliRate = float64(n) / elapsed.Seconds()
			b.ReportMetric(cliRate, "docs/s")
			b.Logf("vespa visit: %d documents in %.2fs (%.0f documents/s)", n, elapsed.Seconds(), cliRate)
		}
	})
	c, err := vespa.NewClient(srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	visit := func(b *testing.B, name string) {
		for b.Loop() {
			start := time.Now()
			seen := map[string]int{}
			for d, err := range c.Visit(b.Context(), vespa.VisitRequest{Cluster: "content"}) {
				if err != nil {
					b.Fatal(err)
				}
				seen[d.ID]++
			}
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
	b.Run("govespa", func(b *testing.B) { visit(b, "defaults") })
	b.Run("govespa-faults", func(b *testing.B) {
		srv.ClearFaults()
		for _, r := range []vespatest.FaultRule{
			{Op: vespatest.OpVisit, Rate: 0.05, Fault: vespatest.Fault{Latency: pageLatency, Status: 429}},
			{Op: vespatest.OpVisit, Rate: 0.03, Fault: vespatest.Fault{Latency: pageLatency, Status: 503}},
			{Op: vespatest.OpVisit, Rate: 0.01, Fault: vespatest.Fault{Latency: pageLatency, Drop: true}},
			latency,
		} {
			if err := srv.AddFault(r); err != nil {
				b.Fatal(err)
			}
		}
		before := srv.FaultStats()
		visit(b, "with 5% 429, 3% 503, 1% drops")
		after := srv.FaultStats()
		b.Logf("faults injected: %d × 429, %d × 503, %d drops", after.ByStatus[429]-before.ByStatus[429], after.ByStatus[503]-before.ByStatus[503], after.Dropped-before.Dropped)
	})
	// The CLI through the same faults, for the record: it is not required
	// to survive them, so its outcome is logged, not judged.
	b.Run("vespa-cli-faults", func(b *testing.B) {
		bin := benchFindCLI(b)
		for b.Loop() {
			start := time.Now()
			seen, err := benchRunCLIVisitOnce(b, bin, srv.URL())
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
