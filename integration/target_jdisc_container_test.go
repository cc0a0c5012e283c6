package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"

	"github.com/govespa/govespa/integration/jdisc"
	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespacontainer"
)

// jdiscContainerTarget is the JDisc harness in a container: the same Vespa
// container code as the jdisc target, started through vespacontainer.Run
// from an image built here (jdisc.BuildImage) on a local base image.
type jdiscContainerTarget struct {
	containerTarget
	h *jdisc.Harness
}

var sharedJDiscContainer sharedTarget

// startJDiscContainerTarget returns the package's harness container, with
// an empty store, building its image and starting it the first time.
func startJDiscContainerTarget(t *testing.T) Target {
	t.Helper()
	const name = "jdisc-container"
	requireDocker(t, name)
	require := os.Getenv(envContainer) == "require"
	if _, err := jdisc.Check(); err != nil && !require {
		skipUnavailable(t, name, err)
	} else if err != nil {
		t.Fatalf("[%s] %v (%s=require)", name, err, envContainer)
	}
	sharedJDiscContainer.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		start := time.Now()
		b, err := jdisc.Build(ctx, nil)
		if errors.Is(err, jdisc.ErrUnavailable) && !require {
			sharedJDiscContainer.skip = fmt.Sprintf("[%s] skipped: %v", name, err)
			testutil.Notice("integration: JDisc targets skipped: %s; set %s=off to skip them without this line", oneLine(err), envJDisc)
			return
		}
		if err != nil {
			sharedJDiscContainer.err = err
			return
		}
		img, err := jdisc.BuildImage(ctx, b)
		if errors.Is(err, jdisc.ErrNoBaseImage) && !require {
			sharedJDiscContainer.skip = fmt.Sprintf("[%s] %v", name, err)
			testutil.Notice("integration: the %s target skipped: %v, or set %s=off", name, err, envContainer)
			return
		}
		if err != nil {
			sharedJDiscContainer.err = err
			return
		}
		fmt.Fprintf(os.Stderr, "integration: harness image %s ready in %v\n", img, time.Since(start).Round(time.Millisecond))
		cluster, err := jdisc.ContentCluster(appDir)
		if err != nil {
			sharedJDiscContainer.err = err
			return
		}
		ctr, err := sharedJDiscContainer.run(ctx, img,
			vespacontainer.WithoutConfigServer(), vespacontainer.WithoutPull(),
			vespacontainer.WithMemory(2<<30), vespacontainer.WithStartupTimeout(3*time.Minute),
			testcontainers.WithFiles(testcontainers.ContainerFile{HostFilePath: appDir, ContainerFilePath: "/app", FileMode: 0o755}),
			testcontainers.WithCmd("--schemas", "/app/schemas", "--port", strconv.Itoa(jdisc.ImagePort), "--cluster", cluster),
			// The harness serves until its standard input closes.
			testcontainers.WithConfigModifier(func(c *container.Config) { c.OpenStdin = true }),
		)
		if ctr != nil {
			sharedJDiscContainer.tg = &containerTarget{name: name, ctr: ctr, cluster: cluster, timeout: 10 * time.Minute}
		}
		sharedJDiscContainer.err = err
	})
	tg := sharedJDiscContainer.result(t, name).(*containerTarget)
	h := jdisc.Attach(tg.Endpoint(), tg.cluster)
	if err := h.Reset(t.Context()); err != nil {
		t.Fatalf("[%s] reset: %v", name, err)
	}
	return &jdiscContainerTarget{containerTarget: *tg, h: h}
}

func (j *jdiscContainerTarget) preDeployed() {}

func (j *jdiscContainerTarget) noGroupingResults() string {
	return "the harness has no content nodes, which compute grouping results"
}

// ConfigServer is empty: the harness serves its application from the start.
func (j *jdiscContainerTarget) ConfigServer() string { return "" }
