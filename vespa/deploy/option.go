package deploy

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/ctlplane"
	"github.com/govespa/govespa/vespa/retries"
)

// DefaultPollInterval is how often waits poll: a config server's
// convergence, a container's health.
const DefaultPollInterval = 2 * time.Second

// DefaultWaitTimeout bounds every wait whose context has no deadline.
const DefaultWaitTimeout = 30 * time.Minute

// Option configures a [ConfigServer]. Options are sealed: only this package
// implements them, so an option of another constructor (such as a
// cloud.Option) does not compile here. A nil or invalid option makes
// [NewConfigServer] return an error naming it.
type Option interface {
	applyConfigServer(*config) error
}

// WithHTTPClient sets the HTTP client; the default is a client of its own
// over a clone of http.DefaultTransport. The client must not retry: retries
// are the policy's (see [WithRetryPolicy]); its Timeout, if any, bounds each
// attempt.
func WithHTTPClient(hc *http.Client) Option {
	return newOption("WithHTTPClient", func(c *config) error { return c.SetHTTPClient(hc) })
}

// WithContainerHTTPClient sets the HTTP client with which a [ConfigServer]
// polls containers' health ([ConfigServer.WaitForHealth], and so
// [ConfigServer.DeployAndWait]): the client that reaches the data plane,
// when it needs a token or a client certificate the config server does not,
// such as the HTTPClient of a *vespa.Client made with vespa.WithToken or
// vespa.WithCertificateFiles. The default is the config server's own client
// (see [WithHTTPClient]). Like that one it must not retry.
func WithContainerHTTPClient(hc *http.Client) Option {
	return newOption("WithContainerHTTPClient", func(c *config) error { return ctlplane.SetNonNil(&c.containerClient, hc, "client") })
}

// WithRetryPolicy sets the retry policy of reads and status polls; the
// default is retries.ControlPlane (errors, 5xx and the config server's
// transient 409s retried, final 4xx not, 3 attempts). Deployments are sent
// once whatever it says (retries.Upload).
func WithRetryPolicy(p retries.Policy) Option {
	return newOption("WithRetryPolicy", func(c *config) error { return c.SetRetryPolicy(p) })
}

// WithLogger sets the logger of retries and waits; the default discards.
func WithLogger(l *slog.Logger) Option {
	return newOption("WithLogger", func(c *config) error { return c.SetLogger(l) })
}

// WithPollInterval sets how often waits poll; the default is
// [DefaultPollInterval]. It must be positive.
func WithPollInterval(d time.Duration) Option {
	return newOption("WithPollInterval", func(c *config) error { return c.SetPollInterval(d) })
}

// WithUserAgent sets the User-Agent header; the default is the data plane's,
// [vespa.UserAgent], so that one access log shows one client.
func WithUserAgent(ua string) Option {
	return newOption("WithUserAgent", func(c *config) error { return c.SetUserAgent(ua) })
}

// option is an [Option]: a named function (ctlplane.Option), so that an
// option prints as its name (deploy.WithHTTPClient) for every verb and never
// as the values it captured, and its errors start with its name.
type option struct{ ctlplane.Option[config] }

func newOption(name string, set func(*config) error) Option {
	return option{ctlplane.Option[config]{Pkg: "deploy", Name: name, Set: set}}
}

func (o option) applyConfigServer(c *config) error { return o.Apply(c) }

// config collects the options.
type config struct {
	// Settings are the HTTP client, policy, logger, poll interval and
	// User-Agent, which package cloud has too.
	ctlplane.Settings
	// containerClient reaches containers' health; nil means HTTPClient.
	containerClient *http.Client
}

func newConfig(opts []Option) (*config, error) {
	c := &config{Settings: ctlplane.NewSettings(DefaultPollInterval, vespa.UserAgent)}
	if err := ctlplane.ApplyOptions("deploy", opts, func(o Option) error { return o.applyConfigServer(c) }); err != nil {
		return nil, err
	}
	c.Complete()
	return c, nil
}
