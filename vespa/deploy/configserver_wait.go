package deploy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// ServiceStatus is one service in a [Convergence].
type ServiceStatus struct {
	// ClusterName is the cluster the service belongs to, such as "default".
	ClusterName string `json:"clusterName"`
	// Host is the host name the service runs on, as the config server knows
	// it (inside Docker, the container's name, not an address the caller
	// can reach).
	Host string `json:"host"`
	// Port is the service's state port: for a container, its HTTP port
	// (see [ConfigServer.ContainerURLs]).
	Port int `json:"port"`
	// Type is the kind of service, such as "container", "searchnode" or
	// "distributor".
	Type string `json:"type"`
	// URL is the config server's URL for this service's convergence,
	// .../serviceconverge/<host>:<port>.
	URL string `json:"url"`
	// CurrentGeneration is the config generation the service runs.
	CurrentGeneration int64 `json:"currentGeneration"`
}

// Convergence is the config server's view of whether every service runs the
// wanted config generation.
type Convergence struct {
	// Services are the application's services, each with the generation it
	// runs.
	Services []ServiceStatus `json:"services"`
	// CurrentGeneration is the lowest generation any service runs.
	CurrentGeneration int64 `json:"currentGeneration"`
	// WantedGeneration is the generation of the active session, which every
	// service should run.
	WantedGeneration int64 `json:"wantedGeneration"`
	// Converged reports that CurrentGeneration has reached
	// WantedGeneration: every service runs the active config.
	Converged bool `json:"converged"`
}

// Convergence returns the current convergence of an application (names as in
// [Params]), from .../serviceconverge.
func (c *ConfigServer) Convergence(ctx context.Context, application, instance string) (*Convergence, error) {
	app, inst := Params{Application: application, Instance: instance}.names()
	u := c.base.JoinPath("application/v2/tenant/default/application", app,
		"environment/prod/region/default/instance", inst, "serviceconverge")
	return ctlplane.DoJSON[Convergence](ctx, c.t, ctlplane.Call{Op: "service convergence", Method: "GET", URL: u})
}

// WaitForConvergence polls the convergence of s's application until it
// reports converged at s's generation or later, and returns it. It waits as
// long as ctx allows ([DefaultWaitTimeout] when ctx has no deadline); final
// 4xx errors end it at once, others are polled through, the config server's
// transient 409s included (APPLICATION_LOCK_FAILURE, CONFIG_NOT_CONVERGED,
// LOAD_BALANCER_NOT_READY, PARENT_HOST_NOT_READY: see
// retries.TransientConflictCodes). When ctx ends, the error matches ctx's
// error and keeps the last poll's own error (one the deadline did not cause).
func (c *ConfigServer) WaitForConvergence(ctx context.Context, s *Session) (*Convergence, error) {
	if s == nil {
		return nil, errors.New("deploy: wait for convergence: nil session")
	}
	var conv *Convergence
	err := ctlplane.Poll(ctx, "deploy", fmt.Sprintf("convergence of session %d", s.ID), c.poll, DefaultWaitTimeout, func(ctx context.Context) (bool, error) {
		cv, err := c.Convergence(ctx, s.Application, s.Instance)
		if err != nil {
			return false, err
		}
		conv = cv
		return cv.Converged && cv.CurrentGeneration >= s.ID, nil
	})
	if err != nil {
		return conv, err
	}
	return conv, nil
}

// ContainerURLs returns the base URLs of the container services in conv: the
// config server's scheme and host with each container service's port, as
// Vespa's CLI finds them.
func (c *ConfigServer) ContainerURLs(conv *Convergence) []string {
	if conv == nil {
		return nil
	}
	var urls []string
	seen := map[int]bool{}
	for _, s := range conv.Services {
		if s.Type != "container" || s.Port <= 0 || seen[s.Port] {
			continue
		}
		seen[s.Port] = true
		u := url.URL{Scheme: c.base.Scheme, Host: net.JoinHostPort(c.base.Hostname(), strconv.Itoa(s.Port))}
		urls = append(urls, u.String())
	}
	return urls
}

// Health is a container's /state/v1/health.
type Health struct {
	// Status is the container's health status.
	Status struct {
		// Code is "up", "down" or "initializing".
		Code string `json:"code"`
		// Message says why, when the code is not "up"; often empty.
		Message string `json:"message,omitempty"`
	} `json:"status"`
}

// WaitForHealth polls containerURL/state/v1/health until its status code is
// "up" (the status of the reply says nothing: it is always 200). It waits as
// long as ctx allows ([DefaultWaitTimeout] when ctx has no deadline); a
// final 4xx, such as the 403 of a container that wants a token, ends it at
// once. It polls with the client of [WithContainerHTTPClient] when one was
// given, whatever the URL (the config server's own health included).
func (c *ConfigServer) WaitForHealth(ctx context.Context, containerURL string) error {
	base, err := ctlplane.ParseBaseURL(containerURL)
	if err != nil {
		return fmt.Errorf("deploy: wait for health: %w", err)
	}
	u := base.JoinPath("state/v1/health")
	return ctlplane.Poll(ctx, "deploy", "health of "+base.String(), c.poll, DefaultWaitTimeout, func(ctx context.Context) (bool, error) {
		h, err := ctlplane.DoJSON[Health](ctx, c.health, ctlplane.Call{Op: "health", Method: "GET", URL: u})
		if err != nil {
			return false, err
		}
		return strings.EqualFold(h.Status.Code, "up"), nil
	})
}

// DeployAndWait deploys pkg ([ConfigServer.Deploy]); when the config server
// prepared it but could not activate it yet, activates the prepared session
// until it takes ([ConfigServer.WaitForActivation], no second upload); then
// waits for convergence ([ConfigServer.WaitForConvergence]), then for every
// container to be healthy ([ConfigServer.WaitForHealth]): params.ContainerURLs,
// or those the config server reports. All waits share ctx's deadline.
//
// # Containers behind mapped ports
//
// When params.ContainerURLs is nil, the container URLs are built from what
// the config server reports: its own host name with each container's port
// as the container sees it ([ConfigServer.ContainerURLs]). Behind Docker's
// port mapping (-p 8081:8080), or any proxy or NAT, those URLs are wrong and
// the wait fails or, worse, polls another process: pass the URLs the caller
// reaches in params.ContainerURLs. A container that wants a data-plane token
// or client certificate is reached with [WithContainerHTTPClient].
func (c *ConfigServer) DeployAndWait(ctx context.Context, pkg *Package, params Params) (*Session, error) {
	s, err := c.Deploy(ctx, pkg, params)
	if errors.Is(err, ErrNotActivated) && s != nil {
		// Prepared, not activated (a host still booting, say): activate the
		// prepared session again, which uploads nothing, until it takes.
		err = c.WaitForActivation(ctx, s)
	}
	if err != nil {
		return s, err
	}
	conv, err := c.WaitForConvergence(ctx, s)
	if err != nil {
		return s, err
	}
	urls := params.ContainerURLs
	if urls == nil {
		urls = c.ContainerURLs(conv)
	}
	for _, u := range urls {
		if err := c.WaitForHealth(ctx, u); err != nil {
			return s, err
		}
	}
	return s, nil
}
