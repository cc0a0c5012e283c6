package cloud

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// Client scripts one application instance in Vespa Cloud through its
// control-plane API: deploy to dev and perf zones and follow the run, list
// endpoints, submit to production and follow the build, delete deployments,
// create data-plane tokens. Create it with [NewClient]; it is safe for
// concurrent use.
//
// Reads and status polls run under the retry policy (retries.ControlPlane by
// default: errors and 5xx are retried, final 4xx such as 401/403 are not);
// uploads (Deploy, Submit, CreateToken) are sent exactly once
// (retries.Upload). With an API key, each attempt is signed again with a
// fresh timestamp and content hash.
type Client struct {
	app    ApplicationID
	base   *url.URL
	t      *ctlplane.Transport
	auth   string  // the authentication, described without its secret
	signer *signer // nil without an API key
	poll   time.Duration
}

// NewClient returns a client for app. Authentication is required: exactly one
// of [WithAPIKey], [WithAPIKeyFile], [WithAccessToken] or [FromEnvironment]
// (the API key where Vespa's CLI finds it). Other options:
// [WithEndpoint], [WithHTTPClient], [WithRetryPolicy], [WithLogger],
// [WithPollInterval], [WithClock], [WithUserAgent].
func NewClient(app ApplicationID, opts ...Option) (*Client, error) {
	if err := app.validate(); err != nil {
		return nil, err
	}
	app = app.withDefaults()
	c, err := newConfig(app, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case c.auths == 0:
		return nil, errors.New("cloud: no authentication: use WithAPIKey, WithAPIKeyFile, WithAccessToken or FromEnvironment")
	case c.auths > 1:
		return nil, errors.New("cloud: more than one of WithAPIKey, WithAPIKeyFile, WithAccessToken and FromEnvironment")
	}
	base := c.endpoint
	if base == nil {
		base = c.envEndpoint
	}
	if base == nil {
		base, _ = url.Parse(DefaultEndpoint)
	}
	t := c.Transport("cloud", c.HTTPClient)
	t.Token = c.accessToken
	auth := "access token " + redacted
	var sg *signer
	if c.apiKey != nil {
		s, err := newSigner(app.SerializedForm(), c.apiKey, c.now)
		if err != nil {
			return nil, err
		}
		t.Sign, sg = s.sign, s
		auth = "API key " + strconv.Quote(s.keyID) + " " + redacted
	}
	return &Client{app: app, base: base, t: t, auth: auth, signer: sg, poll: c.Poll}, nil
}

// Application returns the application instance the client scripts.
func (c *Client) Application() ApplicationID { return c.app }

// URL returns the control-plane API's base URL.
func (c *Client) URL() string { return c.base.String() }

// applicationURL returns /application/v4/tenant/T/application/A plus elems.
func (c *Client) applicationURL(elems ...string) *url.URL {
	return c.base.JoinPath(append([]string{"application/v4/tenant", c.app.Tenant, "application", c.app.Application}, elems...)...)
}

// instanceURL returns .../instance/I plus elems.
func (c *Client) instanceURL(elems ...string) *url.URL {
	return c.applicationURL(append([]string{"instance", c.app.Instance}, elems...)...)
}

// deploymentURL returns .../instance/I/environment/E/region/R.
func (c *Client) deploymentURL(z Zone) *url.URL {
	return c.instanceURL("environment", z.Environment, "region", z.Region)
}

// checkManualZone refuses zones that are not dev or perf.
func checkManualZone(op string, z Zone) error {
	if err := z.validate(); err != nil {
		return fmt.Errorf("cloud: %s: %w", op, err)
	}
	if !z.IsManual() {
		return fmt.Errorf("cloud: %s: zone %s is not a dev or perf zone; production deployments go through Submit", op, z)
	}
	return nil
}
