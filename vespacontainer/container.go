package vespacontainer

import (
	"errors"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/govespa/govespa/vespa"
)

const (
	// DefaultImage is Vespa's own image at a concrete Vespa 8 release, never
	// a moving tag, so that a test run today and one next year start the
	// same Vespa.
	DefaultImage = "vespaengine/vespa:8.649.29"
	// ContainerPort is the container API's port inside the container:
	// /document/v1, /search/ and /state/v1.
	ContainerPort = "8080/tcp"
	// ConfigServerPort is the config server's port inside the container
	// (the deploy API, /application/v2).
	ConfigServerPort = "19071/tcp"
	// DefaultMemory is the memory limit [Run] gives a container unless
	// [WithMemory] says otherwise: the 4 GB Vespa's documentation asks for.
	DefaultMemory = 4 << 30
	// DefaultStartupTimeout bounds the wait for the config server, the
	// deployment and the container API unless [WithStartupTimeout] says
	// otherwise: a cold config server often needs more than a minute.
	DefaultStartupTimeout = 5 * time.Minute
)

// ErrImageNotPresent is returned (wrapped, with the image's name) by [Run]
// with [WithoutPull] when the Docker daemon does not have the image.
var ErrImageNotPresent = errors.New("vespacontainer: image not present locally")

// Container is a running Vespa container. Its embedded
// testcontainers.Container gives its logs, Exec and Terminate.
type Container struct {
	testcontainers.Container

	endpoint     string
	configServer string
}

// URL is the base URL of the container API (/document/v1, /search/) as
// published on the host, such as http://127.0.0.1:32768, without a trailing
// slash.
func (c *Container) URL() string { return c.endpoint }

// ConfigServerURL is the base URL of the config server as published on the
// host, or "" when the container was started [WithoutConfigServer].
func (c *Container) ConfigServerURL() string { return c.configServer }

// Client returns a data-plane client for [Container.URL], with opts.
func (c *Container) Client(opts ...vespa.Option) (*vespa.Client, error) {
	return vespa.NewClient(c.endpoint, opts...)
}
