package integration

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/vespatest"
)

// emulatorTarget is the in-process emulator, started without any schema:
// it learns the music schema from the suite's deploy of testdata/app to its
// config server, as a real Vespa does.
type emulatorTarget struct {
	srv *vespatest.Server
	cfg string
	log *testutil.SyncBuffer
}

// startEmulatorTarget starts an emulator for t, closed when t ends. It is
// always available.
func startEmulatorTarget(t *testing.T) Target {
	t.Helper()
	buf := &testutil.SyncBuffer{}
	logger := slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := vespatest.Start(vespatest.WithLogger(logger))
	if err != nil {
		t.Fatalf("[emulator] vespatest.Start: %v", err)
	}
	t.Cleanup(srv.Close)
	cfg := srv.ConfigServerURL()
	if cfg == "" {
		t.Fatal("[emulator] the config server did not start")
	}
	return &emulatorTarget{srv: srv, cfg: cfg, log: buf}
}

func (e *emulatorTarget) Name() string                  { return "emulator" }
func (e *emulatorTarget) Endpoint() string              { return e.srv.URL() }
func (e *emulatorTarget) ConfigServer() string          { return e.cfg }
func (e *emulatorTarget) Cluster() string               { return "music" }
func (e *emulatorTarget) ClientOptions() []vespa.Option { return nil }
func (e *emulatorTarget) Timeout() time.Duration        { return 10 * time.Minute }

// ConfigServerOptions polls quickly: the emulator converges at once, and
// the default two-second interval would only slow the suite down.
func (e *emulatorTarget) ConfigServerOptions() []deploy.Option {
	return []deploy.Option{deploy.WithPollInterval(20 * time.Millisecond)}
}

func (e *emulatorTarget) DumpLogs(_ context.Context, w io.Writer) error {
	_, err := w.Write(e.log.Bytes())
	return err
}
