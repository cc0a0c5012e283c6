package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// ConfigServer deploys application packages to a self-hosted Vespa config
// server (port 19071) and waits for them to take effect. Create it with
// [NewConfigServer]; it is safe for concurrent use. Reads and status polls
// run under the retry policy (retries.ControlPlane by default); a deployment
// is sent once (retries.Upload).
type ConfigServer struct {
	base   *url.URL
	t      *ctlplane.Transport // to the config server
	health *ctlplane.Transport // to containers' health: t, or over WithContainerHTTPClient
	poll   time.Duration
}

// NewConfigServer returns a client of the config server at endpoint, such as
// "http://localhost:19071". A nil or invalid option is an error naming it.
func NewConfigServer(endpoint string, opts ...Option) (*ConfigServer, error) {
	u, err := ctlplane.ParseBaseURL(endpoint)
	if err != nil {
		return nil, fmt.Errorf("deploy: config server: %w", err)
	}
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	t := c.Transport("deploy", c.HTTPClient)
	health := t
	if c.containerClient != nil {
		health = c.Transport("deploy", c.containerClient)
	}
	return &ConfigServer{base: u, t: t, health: health, poll: c.Poll}, nil
}

// URL returns the config server's base URL.
func (c *ConfigServer) URL() string { return c.base.String() }

// Params are the optional parameters of [ConfigServer.Deploy]; the zero
// value deploys the application "default", instance "default", with the
// time left on ctx as the config server's timeout.
type Params struct {
	// Application is the application name; "" means "default".
	Application string
	// Instance is the instance name; "" means "default".
	Instance string
	// Timeout bounds the config server's own work on the deployment (its
	// prepare and activate): sent as the timeout parameter, in seconds as a
	// plain number ("90", "2.5"), the only form the config server parses
	// (Double.parseDouble; anything else silently gets its default, the
	// ZooKeeper barrier timeout of 360 s). When it runs out the config
	// server answers 408 REQUEST_TIMEOUT. Zero means the time left until
	// ctx's deadline, so that the server gives up when the caller does;
	// without a deadline nothing is sent and the server's default applies.
	// The call itself is bounded by ctx. Negative is an error.
	Timeout time.Duration
	// ContainerURLs are the containers whose health [ConfigServer.DeployAndWait]
	// waits for; nil means those the config server reports (its own host,
	// each container service's port), which are wrong when the ports are
	// mapped, as with Docker's -p 8081:8080: then give the URLs the caller
	// reaches, such as "http://localhost:8081". Empty but not nil waits for
	// no container.
	ContainerURLs []string
}

func (p Params) names() (app, instance string) {
	app, instance = p.Application, p.Instance
	if app == "" {
		app = "default"
	}
	if instance == "" {
		instance = "default"
	}
	return app, instance
}

// TimeoutParam formats d as the config server's timeout parameter: seconds
// as a plain decimal number with at most millisecond precision, such as
// "90" or "0.25" (the config server reads it with Double.parseDouble and
// keeps whole milliseconds). Durations under a millisecond give "0.001".
func TimeoutParam(d time.Duration) string {
	d = max(d.Truncate(time.Millisecond), time.Millisecond)
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
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
	r, err := ctlplane.DecodeJSON[deployReply]("deploy", "deploy", body)
	if err != nil {
		return nil, err
	}
	id, err := strconv.ParseInt(r.SessionID, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("deploy: reply has no valid session-id: %q", r.SessionID)
	}
	s := &Session{ID: id, Tenant: r.Tenant, Message: r.Message, URL: r.URL, Log: r.Log, Actions: r.ConfigChangeActions}
	// Older config servers leave "activated" out of a successful reply.
	s.Activated = r.Activated == nil || *r.Activated
	return s, nil
}

// Deploy uploads pkg with POST /application/v2/tenant/default/prepareandactivate
// (application/zip, streamed) and returns the session.
//
// The upload is sent once, never retried (retries.Upload), as Vespa's CLI
// sends it: a second attempt after a lost reply would make a second session.
// When the request went out but no reply came (the connection dropped, ctx
// ended), the error matches [ErrOutcomeUnknown] and says how to check
// whether the session was activated. Before anything is sent the package is
// checked: a symbolic link that resolves outside it is an error matching
// [ErrUnsafeLink].
//
// A 200 reply saying the package was prepared but not activated returns the
// session with an error matching [ErrNotActivated] that carries the config
// server's message. Other failures are an [*Error] with the config server's
// error-code and message; a 409 APPLICATION_LOCK_FAILURE (another deployment
// holds the lock) is returned too, for the caller to decide.
func (c *ConfigServer) Deploy(ctx context.Context, pkg *Package, params Params) (*Session, error) {
	if pkg == nil {
		return nil, errors.New("deploy: nil package")
	}
	if params.Timeout < 0 {
		return nil, fmt.Errorf("deploy: negative timeout %v", params.Timeout)
	}
	if _, err := pkg.Files(); err != nil { // unsafe links, unreadable files: before anything is sent
		return nil, err
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
	timeout := params.Timeout
	if d, ok := ctx.Deadline(); ok && timeout == 0 {
		timeout = time.Until(d)
		if timeout <= 0 {
			return nil, fmt.Errorf("deploy: deploy application %q: no time left on ctx for the config server's timeout: %w", app, context.DeadlineExceeded)
		}
	}
	if timeout > 0 {
		q.Set("timeout", TimeoutParam(timeout))
	}
	u.RawQuery = q.Encode()
	r, err := c.t.Upload(ctx, ctlplane.Call{Op: "deploy", Method: "POST", URL: u, ContentType: "application/zip", Write: pkg.WriteZip,
		Check: fmt.Sprintf("check which session is active (GET %s, or `vespa status deployment`) before deploying again",
			c.base.JoinPath("application/v2/tenant/default/application", app))})
	if err != nil {
		return nil, err
	}
	s, err := decodeSession(r.Body)
	if err != nil {
		return nil, err
	}
	s.Application, s.Instance = app, instance
	if !s.Activated {
		return s, fmt.Errorf("%w: %s", ErrNotActivated, s.Message)
	}
	return s, nil
}

// String describes the config-server client: its URL.
func (c ConfigServer) String() string {
	base := "<nil>"
	if c.base != nil {
		base = c.base.String()
	}
	return "deploy.ConfigServer{URL:" + base + "}"
}

// Format prints [ConfigServer.String] for every verb (%v, %+v, %#v, %s,
// %q, %x...): its transports' internals are of no use to a reader.
func (c ConfigServer) Format(f fmt.State, verb rune) { ctlplane.FormatSafe(f, verb, c.String()) }
