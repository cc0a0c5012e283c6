package deploy

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/govespa/govespa/vespa"
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
	return option{name: "WithHTTPClient", fn: func(c *config) error {
		if hc == nil {
			return errors.New("nil client")
		}
		c.httpClient = hc
		return nil
	}}
}

// WithContainerHTTPClient sets the HTTP client with which a [ConfigServer]
// polls containers' health ([ConfigServer.WaitForHealth], and so
// [ConfigServer.DeployAndWait]): the client that reaches the data plane,
// when it needs a token or a client certificate the config server does not,
// such as the HTTPClient of a *vespa.Client made with vespa.WithToken or
// vespa.WithCertificateFiles. The default is the config server's own client
// (see [WithHTTPClient]). Like that one it must not retry.
func WithContainerHTTPClient(hc *http.Client) Option {
	return option{name: "WithContainerHTTPClient", fn: func(c *config) error {
		if hc == nil {
			return errors.New("nil client")
		}
		c.containerClient = hc
		return nil
	}}
}

// WithRetryPolicy sets the retry policy of reads and status polls; the
// default is retries.ControlPlane (errors, 5xx and the config server's
// transient 409s retried, final 4xx not, 3 attempts). Deployments are sent
// once whatever it says (retries.Upload).
func WithRetryPolicy(p retries.Policy) Option {
	return option{name: "WithRetryPolicy", fn: func(c *config) error {
		if err := p.Err(); err != nil {
			return err
		}
		c.policy = p
		return nil
	}}
}

// WithLogger sets the logger of retries and waits; the default discards.
func WithLogger(l *slog.Logger) Option {
	return option{name: "WithLogger", fn: func(c *config) error {
		if l == nil {
			return errors.New("nil logger")
		}
		c.logger = l
		return nil
	}}
}

// WithPollInterval sets how often waits poll; the default is
// [DefaultPollInterval]. It must be positive.
func WithPollInterval(d time.Duration) Option {
	return option{name: "WithPollInterval", fn: func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%v is not positive", d)
		}
		c.poll = d
		return nil
	}}
}

// WithUserAgent sets the User-Agent header; the default is the data plane's,
// [vespa.UserAgent], so that one access log shows one client.
func WithUserAgent(ua string) Option {
	return option{name: "WithUserAgent", fn: func(c *config) error {
		c.userAgent = ua
		return nil
	}}
}

// option is an [Option]: a named function, so that an option prints as its
// name and never as the values it captured.
type option struct {
	name string
	fn   func(*config) error
}

func (o option) applyConfigServer(c *config) error { return o.fn(c) }

// String returns the option's name, such as "deploy.WithHTTPClient".
func (o option) String() string { return "deploy." + o.name }

// config collects the options.
type config struct {
	httpClient *http.Client
	// containerClient reaches containers' health; nil means httpClient.
	containerClient *http.Client
	policy          retries.Policy
	logger          *slog.Logger
	poll            time.Duration
	userAgent       string
}

func newConfig(opts []Option) (*config, error) {
	c := &config{
		policy:    retries.ControlPlane,
		logger:    slog.New(slog.DiscardHandler),
		poll:      DefaultPollInterval,
		userAgent: vespa.UserAgent,
	}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("deploy: option %d is nil", i)
		}
		if err := o.applyConfigServer(c); err != nil {
			return nil, fmt.Errorf("deploy: %v: %w", o, err)
		}
	}
	if c.httpClient == nil {
		c.httpClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return c, nil
}
