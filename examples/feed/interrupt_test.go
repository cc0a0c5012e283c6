package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/cli"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestRun_InterruptedExits130AndSaysHowToResume checks issue 30: a feed
// interrupted (its context ended, as Ctrl-C does through cli.Main) exits
// 130, not 1 like a failure, and says how to resume. Before it exited 1 and
// named no -journal.
func TestRun_InterruptedExits130AndSaysHowToResume(t *testing.T) {
	srv := vespatest.NewTestServer(t, vespatest.WithFaults(vespatest.FaultRule{Rate: 1, Fault: vespatest.FaultLatency(time.Minute)}))
	file := writeFile(t, `{"put":"id:ns:music::a","fields":{"n":1}}
{"put":"id:ns:music::b","fields":{"n":2}}
`)
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	got := run(ctx, []string{"-endpoint", srv.URL(), "-connections", "1", file}, strings.NewReader(""), &stdout, &stderr)
	if got != cli.ExitInterrupted {
		t.Errorf("status %d, want %d; stderr %s", got, cli.ExitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "-journal") {
		t.Errorf("stderr does not say how to resume: %s", stderr.String())
	}
}
