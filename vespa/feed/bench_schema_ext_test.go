package feed_test

// BenchmarkFeedSchemaCheck measures what Config.Schema costs the feeder per
// document (issue 31: under 10 % of its CPU): the same puts through a real
// Feeder, unchecked and checked, to a sink that runs in a child process, so
// that cpu-µs/doc is the feeder's alone. Compare cpu-µs/doc of
// "checked" with "unchecked", for a small document (title, year, tags of
// the music schema of integration/testdata/app) and the same with its
// 384-float embedding. Run:
//
//	go test -run '^$' -bench FeedSchemaCheck -benchtime 100000x -count 3 ./vespa/feed
//
// On a machine shared with other work the difference of two cpu-µs/doc
// figures is noisy; the check's share of the checked feeder's CPU is read
// more steadily from a profile of one sub-benchmark:
//
//	go test -run '^$' -bench 'FeedSchemaCheck/embedding384/^checked$' -benchtime 200000x -cpuprofile cpu.out ./vespa/feed
//	go tool pprof -top cpu.out | grep -E 'Total samples|CheckPut$'

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/feedrig"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/schema"
)

func BenchmarkFeedSchemaCheck(b *testing.B) {
	url := outOfProcessSink(b)
	app := benchApp(b)
	small := []byte(`{"title":"A Head Full of Dreams","year":2015,"tags":["pop","rock","live"]}`)
	docs := []struct {
		name   string
		fields []byte
	}{{"small", small}, {"embedding384", withEmbedding(small)}}
	for _, d := range docs {
		if err := app.CheckPut("music", d.fields); err != nil {
			b.Fatal(err) // the benchmark's documents fit
		}
		b.Run(d.name+"/unchecked", func(b *testing.B) { feedPuts(b, url, vespa.HTTP2Batching, d.fields, nil) })
		b.Run(d.name+"/checked", func(b *testing.B) { feedPuts(b, url, vespa.HTTP2Batching, d.fields, app) })
	}
}

// withEmbedding returns fields (a JSON object) with a 384-float
// "embedding" added, in the short form of a dense tensor.
func withEmbedding(fields []byte) []byte {
	out := append([]byte(nil), fields[:len(fields)-1]...)
	out = append(out, `,"embedding":{"values":[`...)
	for i := range 384 {
		if i > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendFloat(out, float64(i%97)/97-0.5, 'f', 6, 64)
	}
	return append(out, "]}}"...)
}

// benchApp is the music schema of integration/testdata/app (its document
// fields; the rank profiles play no part in the check).
func benchApp(b *testing.B) *schema.Application {
	return appOf(b, `schema music {
    document music {
        field title type string { indexing: summary | index }
        field year type int { indexing: summary | attribute }
        field popularity type int { indexing: summary | attribute }
        field tags type array<string> { indexing: summary | attribute }
        field embedding type tensor<float>(x[384]) { indexing: attribute | index }
    }
}`)
}

// sinkEnv makes the test binary a sink process (TestSinkProcess).
const sinkEnv = "GOVESPA_FEED_BENCH_SINK"

// outOfProcessSink starts this test binary again as feedrig's sink
// (TestSinkProcess) and returns its URL; the process ends with the
// benchmark.
func outOfProcessSink(b *testing.B) string {
	b.Helper()
	cmd := exec.CommandContext(b.Context(), os.Args[0], "-test.run=^TestSinkProcess$") //nolint:gosec // G204: this test binary
	cmd.Env = append(os.Environ(), sinkEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close() // the sink stops at EOF
		done := make(chan struct{})
		go func() { defer close(done); _, _ = io.Copy(io.Discard, stdout); _ = cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "sink ")
	if err != nil || !ok {
		b.Fatalf("sink process: %q, %v", line, err)
	}
	return url
}

// TestSinkProcess is not a test: run by outOfProcessSink with sinkEnv set,
// it serves feedrig.Sink on loopback, writes "sink <url>" on stdout and
// serves until its stdin ends.
func TestSinkProcess(t *testing.T) {
	if os.Getenv(sinkEnv) == "" {
		t.Skip("the sink process of BenchmarkFeedSchemaCheck")
	}
	url, stop, err := feedrig.Serve(context.Background(), feedrig.Sink)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if _, err := os.Stdout.WriteString("sink " + url + "\n"); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
}
