package vespacontainer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Run starts img (DefaultImage when empty) with opts: this package's
// options and testcontainers-go's. It waits for the config server's health,
// deploys the application of [WithApplication] and waits until the container
// API answers /document/v1 and /search/. A container that was created is
// returned even with an error, so that the caller can read its logs and
// terminate it (testcontainers.CleanupContainer before the error check).
func Run(ctx context.Context, img string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	if img == "" {
		img = DefaultImage
	}
	s := defaults()
	var customs []testcontainers.ContainerCustomizer
	for _, o := range opts {
		if o, ok := o.(Option); ok {
			if err := o.apply(&s); err != nil {
				return nil, fmt.Errorf("vespacontainer: %w", err)
			}
			continue
		}
		customs = append(customs, o)
	}
	if !s.configServer && s.app != "" {
		return nil, fmt.Errorf("vespacontainer: WithApplication(%q) needs a config server, and WithoutConfigServer was given", s.app)
	}
	if s.noPull {
		if err := imagePresent(ctx, img); err != nil {
			return nil, err
		}
	}
	ctr, err := testcontainers.Run(ctx, img, append(s.request(), customs...)...)
	var c *Container
	if ctr != nil {
		c = &Container{Container: ctr}
	}
	if err == nil {
		err = c.ready(ctx, s)
	}
	if err != nil {
		if c != nil && s.logs != nil {
			c.writeLogs(ctx, s.logs)
		}
		return c, fmt.Errorf("vespacontainer: %s: %w", img, err)
	}
	return c, nil
}

// request is the module's part of the container request: ports, memory
// and the wait for the first health check.
func (s settings) request() []testcontainers.ContainerCustomizer {
	port := ContainerPort
	ports := []string{ContainerPort}
	if s.configServer {
		port = ConfigServerPort
		ports = append(ports, ConfigServerPort)
	}
	return []testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(ports...),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.Memory = s.memory
		}),
		testcontainers.WithWaitStrategyAndDeadline(s.startup,
			wait.ForHTTP("/state/v1/health").
				WithPort(port).
				WithStartupTimeout(s.startup).
				WithResponseMatcher(healthIsUp),
		),
	}
}

// healthIsUp reports whether a /state/v1/health body says "up": the status
// is 200 whatever the state, so only the body tells.
func healthIsUp(body io.Reader) bool {
	var h struct {
		Status struct {
			Code string `json:"code"`
		} `json:"status"`
	}
	return json.NewDecoder(body).Decode(&h) == nil && h.Status.Code == "up"
}

// imagePresent returns nil when the daemon has img, an error wrapping
// ErrImageNotPresent when it does not, and the daemon's error otherwise.
func imagePresent(ctx context.Context, img string) error {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("vespacontainer: %w", err)
	}
	defer func() { _ = cli.Close() }()
	if _, err := cli.ImageInspect(ctx, img); err != nil {
		if errdefs.IsNotFound(err) {
			return fmt.Errorf("%w: %s (docker pull it, or build it, first)", ErrImageNotPresent, img)
		}
		return fmt.Errorf("vespacontainer: inspecting %s: %w", img, err)
	}
	return nil
}

// writeLogs copies the container's output to w, best effort: it is called
// on a failure already being reported.
func (c *Container) writeLogs(ctx context.Context, w io.Writer) {
	// The logs are read even when ctx is what ended the start.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), logsTimeout)
	defer cancel()
	rc, err := c.Logs(ctx)
	if err != nil {
		fmt.Fprintf(w, "vespacontainer: reading the logs of %s: %v\n", c.GetContainerID(), err)
		return
	}
	defer rc.Close()
	fmt.Fprintf(w, "=== output of container %s ===\n", c.GetContainerID())
	_, _ = io.Copy(w, rc)
}
