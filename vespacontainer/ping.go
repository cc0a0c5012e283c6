package vespacontainer

import (
	"context"
	"fmt"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Ping reports whether the Docker daemon testcontainers-go would use answers,
// within ctx. A test calls it to skip, with the reason, where there is no
// daemon: testcontainers-go itself panics when it finds none at all, and
// Ping turns that into an error.
func Ping(ctx context.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("vespacontainer: no Docker daemon: %v", r)
		}
	}()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("vespacontainer: %w", err)
	}
	defer func() { _ = cli.Close() }()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		return fmt.Errorf("vespacontainer: %w", err)
	}
	return nil
}
