package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/govespa/govespa/integration/jdisc"
	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
)

// envJDisc controls the JDisc target: "off" skips it, "require" fails
// instead of skipping when java or mvn is missing; anything else runs it
// when both are on PATH.
const envJDisc = "GOVESPA_JDISC"

func init() {
	targetProviders = append(targetProviders, targetProvider{name: "jdisc", start: startJDiscTarget})
}

// jdiscTarget is the JDisc harness (package integration/jdisc): Vespa's own
// container code for document/v1, visiting and query handling over an
// in-memory store. It runs testdata/app from the start and has no config
// server, so the suite's deploy step only waits for it (preDeployed).
type jdiscTarget struct {
	h *jdisc.Harness
}

// sharedJDisc holds the test binary's harnesses, one per application
// package, each built and started once.
var sharedJDisc struct {
	mu   sync.Mutex
	apps map[string]*jdiscStart
}

// jdiscStart is the start of one application's harness.
type jdiscStart struct {
	once sync.Once
	h    *jdisc.Harness
	err  error
}

// jdiscHarness returns the test binary's harness for testdata/app.
func jdiscHarness(t *testing.T) *jdisc.Harness {
	t.Helper()
	return jdiscHarnessFor(t, appDir)
}

// jdiscHarnessFor returns the test binary's harness serving the application
// package app, building (cached) and starting it the first time; TestMain
// stops it after the last test. It skips t when the harness cannot run here.
func jdiscHarnessFor(t *testing.T, app string) *jdisc.Harness {
	t.Helper()
	mode := os.Getenv(envJDisc)
	if mode == "off" {
		t.Skipf("[jdisc] %s=off", envJDisc)
	}
	if _, err := jdisc.Check(); err != nil {
		skipUnavailable(t, "jdisc", err)
	}
	sharedJDisc.mu.Lock()
	if sharedJDisc.apps == nil {
		sharedJDisc.apps = map[string]*jdiscStart{}
	}
	st := sharedJDisc.apps[app]
	if st == nil {
		st = &jdiscStart{}
		sharedJDisc.apps[app] = st
	}
	sharedJDisc.mu.Unlock()
	st.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		start := time.Now()
		b, err := jdisc.Build(ctx, nil)
		if err != nil {
			st.err = err
			return
		}
		built := time.Since(start)
		h, err := jdisc.Start(ctx, b, jdisc.Config{App: app})
		if err != nil {
			st.err = err
			return
		}
		fmt.Fprintf(os.Stderr, "integration: JDisc harness for %s at %s (build %v, cached %v; JVM ready in %v)\n",
			app, h.URL, built.Round(time.Millisecond), b.Cached, h.Startup)
		st.h = h
		addPackageCleanup(h.Close)
	})
	if errors.Is(st.err, jdisc.ErrUnavailable) {
		skipUnavailable(t, "jdisc", st.err)
	}
	if st.err != nil {
		t.Fatalf("[jdisc] %v", st.err)
	}
	return st.h
}

// skipUnavailable skips t because the harness cannot be built or run here
// (err wraps jdisc.ErrUnavailable), printing the reason once, visible
// without -v; under GOVESPA_JDISC=require it fails t instead.
func skipUnavailable(t *testing.T, target string, err error) {
	t.Helper()
	if os.Getenv(envJDisc) == "require" {
		t.Fatalf("[%s] %v (%s=require)", target, err, envJDisc)
	}
	testutil.Notice("integration: JDisc targets skipped: %s; set %s=off to skip them without this line", oneLine(err), envJDisc)
	t.Skipf("[%s] skipped: %v", target, err)
}

// startJDiscTarget returns the harness as a suite target, with an empty
// store.
func startJDiscTarget(t *testing.T) Target {
	t.Helper()
	h := jdiscHarness(t)
	if err := h.Reset(t.Context()); err != nil {
		t.Fatalf("[jdisc] reset: %v", err)
	}
	return &jdiscTarget{h: h}
}

func (j *jdiscTarget) Name() string                         { return "jdisc" }
func (j *jdiscTarget) Endpoint() string                     { return j.h.URL }
func (j *jdiscTarget) ConfigServer() string                 { return "" }
func (j *jdiscTarget) Cluster() string                      { return j.h.Cluster }
func (j *jdiscTarget) ClientOptions() []vespa.Option        { return nil }
func (j *jdiscTarget) ConfigServerOptions() []deploy.Option { return nil }
func (j *jdiscTarget) Timeout() time.Duration               { return 10 * time.Minute }
func (j *jdiscTarget) preDeployed()                         {}

// noGroupingResults is implemented by targets that cannot compute grouping
// results; the suite's grouping test skips on them with the reason.
type noGroupingResults interface {
	noGroupingResults() string
}

// noGroupingResults: grouping is computed by Vespa's content nodes (proton),
// which the harness does not have. (Its real container does check grouping
// requests: it refuses max(inf) while grouping.globalMaxGroups is enabled.)
func (j *jdiscTarget) noGroupingResults() string {
	return "the harness has no content nodes, which compute grouping results"
}

func (j *jdiscTarget) DumpLogs(_ context.Context, w io.Writer) error {
	_, err := w.Write(j.h.Logs())
	return err
}
