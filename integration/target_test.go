package integration

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
)

// Target is "a Vespa" the suite runs against: where its container and its
// config server answer, how a client must be set up to reach them, and
// where its logs are. Implementations: the emulator (target_emulator_test.go),
// a vespaengine/vespa container (target_container_test.go, build tag
// integration) and a running Vespa named by environment variables
// (target_external_test.go).
type Target interface {
	// Name names the target in test names and failure messages.
	Name() string
	// Endpoint is the base URL of the container cluster (query,
	// document/v1, /state/v1), without a trailing slash.
	Endpoint() string
	// ConfigServer is the base URL of the config server (deploy API).
	ConfigServer() string
	// Cluster is the content cluster of testdata/app's music documents.
	Cluster() string
	// ClientOptions are the options a vespa.Client needs to reach Endpoint
	// (credentials, TLS).
	ClientOptions() []vespa.Option
	// ConfigServerOptions are the options of the deploy.ConfigServer client
	// (poll interval, HTTP client).
	ConfigServerOptions() []deploy.Option
	// Timeout bounds the whole suite on this target, deploy included.
	Timeout() time.Duration
	// DumpLogs writes what the target logged (Vespa's vespa.log, the
	// container's output, the emulator's log) to w; a target without logs
	// writes nothing.
	DumpLogs(ctx context.Context, w io.Writer) error
}

// targetProvider starts (or finds) one kind of target for a test; it skips t
// when the target is not available here.
type targetProvider struct {
	name  string
	start func(t *testing.T) Target
}

// targetProviders are the targets the suite runs against, in order. The
// container target adds itself in an init function when it is built
// (build tag integration); the JDisc target adds itself in target_jdisc_test.go.
var targetProviders = []targetProvider{
	{name: "emulator", start: startEmulatorTarget},
	{name: "external", start: startExternalTarget},
}

// forEachTarget runs body as a subtest per target, named after it, so that
// every failure says which target it happened on. When a subtest fails, the
// target's logs are dumped to the test log and kept in its artifact
// directory (go test -artifacts keeps them after the run).
func forEachTarget(t *testing.T, body func(t *testing.T, tg Target)) {
	t.Helper()
	for _, p := range targetProviders {
		t.Run(p.name, func(t *testing.T) {
			tg := p.start(t)
			t.Cleanup(func() {
				if t.Failed() {
					dumpTargetLogs(t, tg)
				}
			})
			body(t, tg)
		})
	}
}

// maxLoggedLogBytes bounds how much of a target's log goes to the test log;
// the whole of it is in the artifact file.
const maxLoggedLogBytes = 32 << 10

// dumpTargetLogs writes tg's logs to t's artifact directory and the end of
// them to t.Log.
func dumpTargetLogs(t *testing.T, tg Target) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var buf bytes.Buffer
	if err := tg.DumpLogs(ctx, &buf); err != nil {
		t.Logf("[%s] could not read the logs: %v", tg.Name(), err)
	}
	if buf.Len() == 0 {
		t.Logf("[%s] no logs", tg.Name())
		return
	}
	file := filepath.Join(artifactDir(t), tg.Name()+".log")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Logf("[%s] could not keep the logs: %v", tg.Name(), err)
	}
	text := buf.String()
	if len(text) > maxLoggedLogBytes {
		text = "...\n" + text[len(text)-maxLoggedLogBytes:]
	}
	t.Logf("[%s] logs (all of them in %s):\n%s", tg.Name(), file, strings.TrimRight(text, "\n"))
}

// newTargetClient returns a vespa.Client for tg's container, closed when t
// ends.
func newTargetClient(t *testing.T, tg Target, opts ...vespa.Option) *vespa.Client {
	t.Helper()
	c, err := vespa.NewClient(tg.Endpoint(), append(tg.ClientOptions(), opts...)...)
	if err != nil {
		t.Fatalf("[%s] vespa.NewClient(%s): %v", tg.Name(), tg.Endpoint(), err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
