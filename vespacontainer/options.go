package vespacontainer

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/testcontainers/testcontainers-go"
)

// Option is an option of [Run] from this package. It is also a
// testcontainers.ContainerCustomizer (one that changes nothing in the
// request), so that it goes in the same list as testcontainers-go's own
// options.
type Option interface {
	testcontainers.ContainerCustomizer
	apply(*settings) error
}

type option func(*settings) error

func (o option) apply(s *settings) error { return o(s) }

// Customize leaves the request alone: Run reads the option itself.
func (option) Customize(*testcontainers.GenericContainerRequest) error { return nil }

// settings are what this package's options set.
type settings struct {
	app          string
	memory       int64
	startup      time.Duration
	logs         io.Writer
	noPull       bool
	configServer bool
}

func defaults() settings {
	return settings{memory: DefaultMemory, startup: DefaultStartupTimeout, configServer: true}
}

// WithApplication deploys the application package in dir (services.xml,
// schemas/*.sd, ...) through the container's config server once it is up,
// and waits until the deployment has converged. Without it nothing is
// deployed: Vespa's container port answers only once an application is.
func WithApplication(dir string) Option {
	return option(func(s *settings) error {
		if dir == "" {
			return errors.New("WithApplication: empty directory")
		}
		s.app = dir
		return nil
	})
}

// WithMemory sets the container's memory limit in bytes (default
// [DefaultMemory]: Vespa asks for at least 4 GB, and with less its config
// server may never listen). Zero means no limit.
func WithMemory(bytes int64) Option {
	return option(func(s *settings) error {
		if bytes < 0 {
			return fmt.Errorf("WithMemory: negative limit %d", bytes)
		}
		s.memory = bytes
		return nil
	})
}

// WithStartupTimeout bounds the wait for the config server, the deployment
// and the container API together (default [DefaultStartupTimeout]). Pulling
// the image is bounded by Run's context only.
func WithStartupTimeout(d time.Duration) Option {
	return option(func(s *settings) error {
		if d <= 0 {
			return fmt.Errorf("WithStartupTimeout: %v is not positive", d)
		}
		s.startup = d
		return nil
	})
}

// WithLogsOnFailure writes the container's output to w when Run fails after
// the container was created, so that a test log shows why Vespa did not
// come up.
func WithLogsOnFailure(w io.Writer) Option {
	return option(func(s *settings) error {
		s.logs = w
		return nil
	})
}

// WithoutPull makes Run fail with [ErrImageNotPresent] when the daemon does
// not have the image, instead of pulling it.
func WithoutPull() Option {
	return option(func(s *settings) error {
		s.noPull = true
		return nil
	})
}

// WithoutConfigServer starts an image that serves its application from the
// start and has no config server: only [ContainerPort] is exposed, nothing
// is deployed, and [Container.ConfigServer] is empty. It cannot be combined
// with [WithApplication]; give such an image its application with
// testcontainers.WithFiles or its own arguments.
func WithoutConfigServer() Option {
	return option(func(s *settings) error {
		s.configServer = false
		return nil
	})
}
