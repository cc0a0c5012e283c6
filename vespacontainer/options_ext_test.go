package vespacontainer_test

import (
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/govespa/govespa/vespacontainer"
)

// A bad option is refused by Run before any container is created, so these
// run without a Docker daemon.
func TestRun_BadOptionsRefusedBeforeDocker(t *testing.T) {
	cases := []struct {
		name string
		opts []vespacontainer.Option
		want string
	}{
		{"application without config server", []vespacontainer.Option{vespacontainer.WithApplication("app"), vespacontainer.WithoutConfigServer()}, `WithApplication("app") needs a config server`},
		{"empty application", []vespacontainer.Option{vespacontainer.WithApplication("")}, "WithApplication: empty directory"},
		{"negative memory", []vespacontainer.Option{vespacontainer.WithMemory(-1)}, "WithMemory: negative limit -1"},
		{"zero startup", []vespacontainer.Option{vespacontainer.WithStartupTimeout(0)}, "WithStartupTimeout: 0s is not positive"},
		{"negative startup", []vespacontainer.Option{vespacontainer.WithStartupTimeout(-time.Second)}, "WithStartupTimeout: -1s is not positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts []testcontainers.ContainerCustomizer
			for _, o := range c.opts {
				opts = append(opts, o)
			}
			ctr, err := vespacontainer.Run(t.Context(), "no-such-image:never", opts...)
			if ctr != nil {
				t.Errorf("a container was returned: %v", ctr.GetContainerID())
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "vespacontainer: ") {
				t.Fatalf("Run: %v, want an error starting with vespacontainer: and containing %q", err, c.want)
			}
		})
	}
}
