package cloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ConfigServer deploys application packages to a self-hosted Vespa config
// server (port 19071) and waits for them to take effect. Create it with
// [NewConfigServer]; it is safe for concurrent use. Every call runs under the
// retry policy (retries.ControlPlane by default).
type ConfigServer struct {
	base   *url.URL
	t      *transport // to the config server
	health *transport // to containers' health: t, or over WithContainerHTTPClient
	poll   time.Duration
}

// NewConfigServer returns a client of the config server at endpoint, such as
// "http://localhost:19071". Options: [WithHTTPClient], [WithRetryPolicy],
// [WithLogger], [WithPollInterval], [WithUserAgent], [WithContainerHTTPClient];
// the Vespa Cloud options
// ([WithEndpoint], [WithAPIKey], [WithAPIKeyFile], [WithAccessToken]) are
// refused.
func NewConfigServer(endpoint string, opts ...Option) (*ConfigServer, error) {
	u, err := parseBaseURL(endpoint)
	if err != nil {
		return nil, fmt.Errorf("cloud: config server: %w", err)
	}
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if c.endpoint != nil || c.auths > 0 {
		return nil, errors.New("cloud: config server: WithEndpoint, WithAPIKey, WithAPIKeyFile and WithAccessToken are Vespa Cloud options")
	}
	t := &transport{hc: c.httpClient, policy: c.policy, userAgent: c.userAgent, logger: c.logger}
	health := t
	if c.containerClient != nil {
		health = &transport{hc: c.containerClient, policy: c.policy, userAgent: c.userAgent, logger: c.logger}
	}
	return &ConfigServer{base: u, t: t, health: health, poll: c.poll}, nil
}

// URL returns the config server's base URL.
func (c *ConfigServer) URL() string { return c.base.String() }

// ConfigDeployParams are the optional parameters of [ConfigServer.Deploy];
// the zero value deploys the application "default", instance "default".
type ConfigDeployParams struct {
	// Application is the application name; "" means "default".
	Application string
	// Instance is the instance name; "" means "default".
	Instance string
	// Timeout is the config server's own timeout for the deployment; 0 means
	// its default. The call itself is bounded by its context.
	Timeout time.Duration
	// ContainerURLs are the containers whose health [ConfigServer.DeployAndWait]
	// waits for; nil means those the config server reports (its own host,
	// each container service's port), which are wrong when the ports are
	// mapped, as with Docker's -p 8081:8080: then give the URLs the caller
	// reaches, such as "http://localhost:8081". Empty but not nil waits for
	// no container.
	ContainerURLs []string
}

func (p ConfigDeployParams) names() (app, instance string) {
	app, instance = p.Application, p.Instance
	if app == "" {
		app = "default"
	}
	if instance == "" {
		instance = "default"
	}
	return app, instance
}

// LogMessage is a message a config server returned from a deployment.
type LogMessage struct {
	// Time is the time in milliseconds since the epoch.
	Time int64 `json:"time"`
	// Level is the level, such as "INFO", "WARNING" or "ERROR".
	Level string `json:"level"`
	// Message is the text.
	Message string `json:"message"`
}

// ConfigChangeActions are what a deployment needs done by hand or by Vespa:
// services to restart, document types to refeed or reindex. Each entry is
// kept as the config server wrote it.
type ConfigChangeActions struct {
	// Restart lists the services that must be restarted for the new config
	// to take effect; Vespa does not restart them by itself.
	Restart []json.RawMessage `json:"restart"`
	// Refeed lists the document types whose documents must be fed again,
	// such as after a field changed type incompatibly.
	Refeed []json.RawMessage `json:"refeed"`
	// Reindex lists the document types that Vespa reindexes in the
	// background, such as after an indexing change.
	Reindex []json.RawMessage `json:"reindex"`
}

// Session is the result of a deployment to a config server.
type Session struct {
	// ID is the session id, also the config generation the deployment makes.
	ID int64
	// Tenant is the tenant, always "default" on a self-hosted config server.
	Tenant string
	// Application is the deployed application's name, such as "default".
	Application string
	// Instance is the deployed instance's name, such as "default".
	Instance string
	// Activated reports whether the session was activated. A false value with
	// a nil error from Deploy cannot happen: Deploy returns [ErrNotActivated].
	Activated bool
	// Message is the config server's message, such as "Session 3 for tenant
	// 'default' prepared and activated.".
	Message string
	// URL is the deployed application's config-server URL.
	URL string
	// Log holds the messages the config server returned, such as warnings.
	Log []LogMessage
	// Actions are the required config change actions.
	Actions ConfigChangeActions
}

// deployReply is the JSON of prepareandactivate.
type deployReply struct {
	Log                 []LogMessage        `json:"log"`
	Tenant              string              `json:"tenant"`
	SessionID           string              `json:"session-id"`
	Activated           *bool               `json:"activated"`
	URL                 string              `json:"url"`
	Message             string              `json:"message"`
	ConfigChangeActions ConfigChangeActions `json:"configChangeActions"`
}

// decodeSession decodes a prepareandactivate reply.
func decodeSession(body []byte) (*Session, error) {
	var r deployReply
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("cloud: deploy: decoding reply: %w", err)
	}
	id, err := strconv.ParseInt(r.SessionID, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("cloud: deploy: reply has no valid session-id: %q", r.SessionID)
	}
	s := &Session{ID: id, Tenant: r.Tenant, Message: r.Message, URL: r.URL, Log: r.Log, Actions: r.ConfigChangeActions}
	// Older config servers leave "activated" out of a successful reply.
	s.Activated = r.Activated == nil || *r.Activated
	return s, nil
}

// Deploy uploads pkg with POST /application/v2/tenant/default/prepareandactivate
// (application/zip, streamed) and returns the session. A 200 reply saying the
// package was prepared but not activated returns the session with an error
// matching [ErrNotActivated] that carries the config server's message. Other
// failures are an [*Error] with the config server's error-code and message.
func (c *ConfigServer) Deploy(ctx context.Context, pkg *Package, params ConfigDeployParams) (*Session, error) {
	if pkg == nil {
		return nil, errors.New("cloud: deploy: nil package")
	}
	app, instance := params.names()
	u := c.base.JoinPath("application/v2/tenant/default/prepareandactivate")
	q := url.Values{}
	if app != "default" {
		q.Set("applicationName", app)
	}
	if instance != "default" {
		q.Set("instance", instance)
	}
	if params.Timeout > 0 {
		q.Set("timeout", strconv.FormatFloat(params.Timeout.Seconds(), 'f', -1, 64)+"s")
	}
	u.RawQuery = q.Encode()
	r, err := c.t.do(ctx, call{op: "deploy", method: "POST", url: u, contentType: "application/zip", write: pkg.WriteZip})
	if err != nil {
		return nil, err
	}
	s, err := decodeSession(r.body)
	if err != nil {
		return nil, err
	}
	s.Application, s.Instance = app, instance
	if !s.Activated {
		return s, fmt.Errorf("%w: %s", ErrNotActivated, s.Message)
	}
	return s, nil
}

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
// [ConfigDeployParams]), from .../serviceconverge.
func (c *ConfigServer) Convergence(ctx context.Context, application, instance string) (*Convergence, error) {
	app, inst := ConfigDeployParams{Application: application, Instance: instance}.names()
	u := c.base.JoinPath("application/v2/tenant/default/application", app,
		"environment/prod/region/default/instance", inst, "serviceconverge")
	r, err := c.t.do(ctx, call{op: "service convergence", method: "GET", url: u})
	if err != nil {
		return nil, err
	}
	var conv Convergence
	if err := json.Unmarshal(r.body, &conv); err != nil {
		return nil, fmt.Errorf("cloud: service convergence: decoding reply: %w", err)
	}
	return &conv, nil
}

// WaitForConvergence polls the convergence of s's application until it
// reports converged at s's generation or later, and returns it. It waits as
// long as ctx allows ([DefaultWaitTimeout] when ctx has no deadline); final
// 4xx errors end it at once, others are polled through.
func (c *ConfigServer) WaitForConvergence(ctx context.Context, s *Session) (*Convergence, error) {
	if s == nil {
		return nil, errors.New("cloud: wait for convergence: nil session")
	}
	var conv *Convergence
	err := poll(ctx, fmt.Sprintf("convergence of session %d", s.ID), c.poll, func(ctx context.Context) (bool, error) {
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
	base, err := parseBaseURL(containerURL)
	if err != nil {
		return fmt.Errorf("cloud: wait for health: %w", err)
	}
	u := base.JoinPath("state/v1/health")
	return poll(ctx, "health of "+base.String(), c.poll, func(ctx context.Context) (bool, error) {
		r, err := c.health.do(ctx, call{op: "health", method: "GET", url: u})
		if err != nil {
			return false, err
		}
		var h Health
		if err := json.Unmarshal(r.body, &h); err != nil {
			return false, fmt.Errorf("cloud: health: decoding reply: %w", err)
		}
		return strings.EqualFold(h.Status.Code, "up"), nil
	})
}

// DeployAndWait deploys pkg ([ConfigServer.Deploy]), waits for convergence
// ([ConfigServer.WaitForConvergence]), then for every container to be healthy
// ([ConfigServer.WaitForHealth]): params.ContainerURLs, or those the config
// server reports. All waits share ctx's deadline.
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
func (c *ConfigServer) DeployAndWait(ctx context.Context, pkg *Package, params ConfigDeployParams) (*Session, error) {
	s, err := c.Deploy(ctx, pkg, params)
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
