package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespacontainer"
)

// The container targets start Vespa in a container through the public
// vespacontainer module (testcontainers-go), as a user's tests would:
//   - "container": Vespa's own image (vespacontainer.DefaultImage). It
//     runs only when the image is present locally or GOVESPA_VESPA_CONTAINER
//     is "pull" (about 1.5 GB to pull, 4 GB of memory); "require" fails
//     instead of skipping when it is absent.
//   - "jdisc-container": the JDisc harness in an image built here from a
//     local base image (jdisc.BuildImage), with no registry.
//
// Both need a Docker daemon; GOVESPA_CONTAINER=off skips them, "require"
// fails instead of skipping when no daemon answers or the harness image
// cannot be built.
const (
	envContainer      = "GOVESPA_CONTAINER"
	envVespaContainer = "GOVESPA_VESPA_CONTAINER"
	// envKeepContainer, when set, leaves the containers running after the
	// tests (for docker exec and curl), and logs their IDs.
	envKeepContainer = "GOVESPA_KEEP_CONTAINER"
	// dockerProbeTimeout bounds the check that a daemon answers.
	dockerProbeTimeout = 5 * time.Second
	// vespaLogPath is Vespa's own log inside its container.
	vespaLogPath = "/opt/vespa/logs/vespa/vespa.log"
	// vespaLogLines is how much of vespa.log a dump holds.
	vespaLogLines = 3000
)

func init() {
	targetProviders = append(targetProviders,
		targetProvider{name: "container", start: startVespaContainerTarget},
		targetProvider{name: "jdisc-container", start: startJDiscContainerTarget})
}

var dockerProbe struct {
	once sync.Once
	err  error
}

// requireDocker skips t (or fails it under GOVESPA_CONTAINER=require) unless
// a Docker daemon answers a ping within dockerProbeTimeout. The reason is
// printed once, visible without -v.
func requireDocker(t *testing.T, target string) {
	t.Helper()
	mode := os.Getenv(envContainer)
	if mode == "off" {
		t.Skipf("[%s] %s=off", target, envContainer)
	}
	dockerProbe.once.Do(func() { dockerProbe.err = pingDocker() })
	if err := dockerProbe.err; err != nil {
		if mode == "require" {
			t.Fatalf("[%s] no Docker daemon: %v (%s=require)", target, err, envContainer)
		}
		testutil.Notice("integration: container targets skipped: no Docker daemon answers (%v); start one (README, Integration targets) or set %s=off", oneLine(err), envContainer)
		t.Skipf("[%s] no Docker daemon: %v", target, err)
	}
}

// pingDocker asks the daemon testcontainers-go would use for a ping,
// bounded; testcontainers-go panics where it finds no daemon at all.
func pingDocker() error {
	ctx, cancel := context.WithTimeout(context.Background(), dockerProbeTimeout)
	defer cancel()
	return vespacontainer.Ping(ctx)
}

func oneLine(err error) string {
	s := err.Error()
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// containerTarget is a container started by vespacontainer.Run, one per
// kind and test binary: started by the first test that asks for it and
// terminated by TestMain after the last one.
type containerTarget struct {
	name    string
	ctr     *vespacontainer.Container
	cluster string
	// logPath is a log file inside the container that DumpLogs tails; "" for none.
	logPath string
	timeout time.Duration
}

type sharedTarget struct {
	once sync.Once
	tg   *containerTarget
	err  error
	skip string
	logs bytes.Buffer
}

// run starts a container with vespacontainer.Run (logs of a failed start
// kept for the test), and registers its termination.
func (s *sharedTarget) run(ctx context.Context, img string, opts ...testcontainers.ContainerCustomizer) (*vespacontainer.Container, error) {
	opts = append(opts, vespacontainer.WithLogsOnFailure(&s.logs))
	start := time.Now()
	ctr, err := vespacontainer.Run(ctx, img, opts...)
	if ctr != nil {
		addPackageCleanup(func() { terminateContainer(ctr) })
	}
	if err == nil {
		fmt.Fprintf(os.Stderr, "integration: container %s at %s (started in %v)\n", img, ctr.URL(), time.Since(start).Round(time.Millisecond))
	}
	return ctr, err
}

// result returns the started target, or skips or fails t as the start said.
func (s *sharedTarget) result(t *testing.T, name string) Target {
	t.Helper()
	if s.skip != "" {
		t.Skip(s.skip)
	}
	if s.err != nil {
		t.Fatalf("[%s] %v\n%s", name, s.err, s.logs.String())
	}
	return s.tg
}

var sharedVespa sharedTarget

// startVespaContainerTarget returns the package's vespaengine/vespa
// container, starting it the first time. The image is never pulled unless
// GOVESPA_VESPA_CONTAINER=pull.
func startVespaContainerTarget(t *testing.T) Target {
	t.Helper()
	const name = "container"
	requireDocker(t, name)
	mode := os.Getenv(envVespaContainer)
	sharedVespa.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		opts := []testcontainers.ContainerCustomizer{
			testcontainers.WithConfigModifier(func(c *container.Config) { c.Hostname = "vespa-container" }),
		}
		if mode != "pull" {
			opts = append(opts, vespacontainer.WithoutPull())
		}
		ctr, err := sharedVespa.run(ctx, vespacontainer.DefaultImage, opts...)
		if errors.Is(err, vespacontainer.ErrImageNotPresent) && mode != "require" {
			sharedVespa.skip = fmt.Sprintf("[%s] %s is not present locally", name, vespacontainer.DefaultImage)
			testutil.Notice("integration: the %s target skipped: %s is not present locally; docker pull it, or set %s=pull to let the test pull it", name, vespacontainer.DefaultImage, envVespaContainer)
			return
		}
		if ctr != nil {
			sharedVespa.tg = &containerTarget{name: name, ctr: ctr, cluster: "music", logPath: vespaLogPath, timeout: 20 * time.Minute}
		}
		sharedVespa.err = err
	})
	return sharedVespa.result(t, name)
}

// terminateContainer removes the container, unless GOVESPA_KEEP_CONTAINER
// asks to keep it.
func terminateContainer(ctr *vespacontainer.Container) {
	if os.Getenv(envKeepContainer) != "" {
		fmt.Fprintf(os.Stderr, "integration: keeping container %s (%s is set)\n", ctr.GetContainerID(), envKeepContainer)
		return
	}
	if err := testcontainers.TerminateContainer(ctr); err != nil {
		fmt.Fprintf(os.Stderr, "integration: terminating container %s: %v\n", ctr.GetContainerID(), err)
	}
}

func (c *containerTarget) Name() string                  { return c.name }
func (c *containerTarget) Endpoint() string              { return c.ctr.URL() }
func (c *containerTarget) ConfigServer() string          { return c.ctr.ConfigServerURL() }
func (c *containerTarget) Cluster() string               { return c.cluster }
func (c *containerTarget) ClientOptions() []vespa.Option { return nil }
func (c *containerTarget) Timeout() time.Duration        { return c.timeout }

// ConfigServerOptions polls every second: a first deploy converges in tens of
// seconds.
func (c *containerTarget) ConfigServerOptions() []deploy.Option {
	return []deploy.Option{deploy.WithPollInterval(time.Second)}
}

// DumpLogs writes the container's output, then the end of its log file,
// read with docker exec.
func (c *containerTarget) DumpLogs(ctx context.Context, w io.Writer) error {
	fmt.Fprintf(w, "=== container %s output ===\n", c.ctr.GetContainerID())
	var errs []error
	if rc, err := c.ctr.Logs(ctx); err != nil {
		errs = append(errs, fmt.Errorf("container logs: %w", err))
	} else {
		_, err := io.Copy(w, rc)
		rc.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("container logs: %w", err))
		}
	}
	if c.logPath == "" {
		return errors.Join(errs...)
	}
	fmt.Fprintf(w, "\n=== %s (last %d lines) ===\n", c.logPath, vespaLogLines)
	code, r, err := c.ctr.Exec(ctx, []string{"tail", "-n", fmt.Sprint(vespaLogLines), c.logPath}, tcexec.Multiplexed())
	if err != nil {
		errs = append(errs, fmt.Errorf("exec tail %s: %w", c.logPath, err))
	} else {
		if _, err := io.Copy(w, r); err != nil {
			errs = append(errs, fmt.Errorf("reading %s: %w", c.logPath, err))
		}
		if code != 0 {
			errs = append(errs, fmt.Errorf("tail %s exited with %d", c.logPath, code))
		}
	}
	return errors.Join(errs...)
}
