package cloud

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/ctlplane"
	"github.com/govespa/govespa/vespa/retries"
)

// DefaultEndpoint is the URL of Vespa Cloud's control-plane API (the public
// system).
const DefaultEndpoint = "https://api-ctl.vespa-cloud.com:4443"

// DefaultPollInterval is how often waits poll: a run's log, a build's status.
const DefaultPollInterval = 2 * time.Second

// DefaultWaitTimeout bounds every wait whose context has no deadline.
const DefaultWaitTimeout = 30 * time.Minute

// Option configures a [Client]. Options are sealed: only this package
// implements them, so an option of another constructor (such as a
// deploy.Option) does not compile here. A nil or invalid option makes
// [NewClient] return an error naming it.
type Option interface {
	apply(*config) error
}

// WithEndpoint sets the URL of the control-plane API of a [Client]; the
// default is [DefaultEndpoint]. Use it to reach another system or an
// emulator (such as cloudtest's Server).
func WithEndpoint(endpoint string) Option {
	return option{name: "WithEndpoint", fn: func(c *config) error {
		u, err := ctlplane.ParseBaseURL(endpoint)
		if err != nil {
			return fmt.Errorf("WithEndpoint: %w", err)
		}
		c.endpoint = u
		return nil
	}}
}

// WithAPIKey makes a [Client] sign its requests with an API key: a PEM
// ECDSA P-256 private key, SEC 1 or PKCS #8 (see [ParseAPIKey]). Exactly one
// of WithAPIKey, [WithAPIKeyFile] and [WithAccessToken] must be given.
func WithAPIKey(pemKey []byte) Option {
	return option{name: "WithAPIKey", fn: func(c *config) error {
		if _, err := ParseAPIKey(pemKey); err != nil {
			return fmt.Errorf("WithAPIKey: %w", err)
		}
		c.apiKey = pemKey
		c.auths++
		return nil
	}}
}

// WithAPIKeyFile is [WithAPIKey] with the key read from a file, such as
// ~/.vespa/<tenant>.api-key.pem ([FromEnvironment] finds that file, and
// Vespa's CLI's variables, by itself).
func WithAPIKeyFile(path string) Option {
	return option{name: "WithAPIKeyFile", fn: func(c *config) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("WithAPIKeyFile: %w", err)
		}
		if _, err := ParseAPIKey(b); err != nil {
			return fmt.Errorf("WithAPIKeyFile %s: %w", path, err)
		}
		c.apiKey = b
		c.auths++
		return nil
	}}
}

// WithAccessToken makes a [Client] send "Authorization: Bearer <token>", for
// an OAuth access token such as the one `vespa auth login` obtains.
func WithAccessToken(token string) Option {
	return option{name: "WithAccessToken", fn: func(c *config) error {
		if token == "" {
			return errors.New("WithAccessToken: empty token")
		}
		c.accessToken = token
		c.auths++
		return nil
	}}
}

// WithHTTPClient sets the HTTP client; the default is a client of its own
// over a clone of http.DefaultTransport. The client must not retry: retries
// are the policy's (see [WithRetryPolicy]); its Timeout, if any, bounds each
// attempt.
func WithHTTPClient(hc *http.Client) Option {
	return option{name: "WithHTTPClient", fn: func(c *config) error {
		if hc == nil {
			return errors.New("WithHTTPClient: nil client")
		}
		c.httpClient = hc
		return nil
	}}
}

// WithRetryPolicy sets the retry policy of reads and status polls; the
// default is retries.ControlPlane (errors and 5xx retried, final 4xx not, 3
// attempts). Uploads ([Client.Deploy], [Client.Submit], [Client.CreateToken])
// are sent once whatever it says (retries.Upload).
func WithRetryPolicy(p retries.Policy) Option {
	return option{name: "WithRetryPolicy", fn: func(c *config) error {
		if err := p.Err(); err != nil {
			return fmt.Errorf("WithRetryPolicy: %w", err)
		}
		c.policy = p
		return nil
	}}
}

// WithLogger sets the logger of retries and waits; the default discards.
// Nothing logged contains keys, tokens or signatures.
func WithLogger(l *slog.Logger) Option {
	return option{name: "WithLogger", fn: func(c *config) error {
		if l == nil {
			return errors.New("WithLogger: nil logger")
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
			return fmt.Errorf("WithPollInterval: %v is not positive", d)
		}
		c.poll = d
		return nil
	}}
}

// WithClock sets the clock whose time signs requests; the default is
// time.Now. For tests.
func WithClock(now func() time.Time) Option {
	return option{name: "WithClock", fn: func(c *config) error {
		if now == nil {
			return errors.New("WithClock: nil clock")
		}
		c.now = now
		return nil
	}}
}

// WithUserAgent sets the User-Agent header; the default is [vespa.UserAgent].
func WithUserAgent(ua string) Option {
	return option{name: "WithUserAgent", fn: func(c *config) error {
		c.userAgent = ua
		return nil
	}}
}

// option is an [Option]: a named function, so that an option prints as its
// name (cloud.WithAPIKey) and never as the values it captured.
type option struct {
	name string
	fn   func(*config) error
}

func (o option) apply(c *config) error { return o.fn(c) }

// String returns the option's name, such as "cloud.WithAPIKey": never the
// key, token or other value it was given.
func (o option) String() string { return "cloud." + o.name }

// Format prints [option.String] for every verb.
func (o option) Format(f fmt.State, verb rune) { formatSafe(f, verb, o.String()) }

// config collects the options.
type config struct {
	endpoint    *url.URL
	apiKey      []byte
	accessToken string
	auths       int
	httpClient  *http.Client
	policy      retries.Policy
	logger      *slog.Logger
	poll        time.Duration
	now         func() time.Time
	userAgent   string
	// app is the client's application, for options that depend on it.
	app ApplicationID
	// env looks up the environment, for FromEnvironment; os.LookupEnv.
	env func(string) (string, bool)
	// envEndpoint is the endpoint of $VESPA_CLI_CLOUD_SYSTEM, used when
	// WithEndpoint is not given.
	envEndpoint *url.URL
}

func newConfig(app ApplicationID, opts []Option) (*config, error) {
	c := &config{
		policy:    retries.ControlPlane,
		logger:    slog.New(slog.DiscardHandler),
		poll:      DefaultPollInterval,
		now:       time.Now,
		userAgent: vespa.UserAgent,
		app:       app,
		env:       os.LookupEnv,
	}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("cloud: option %d is nil", i)
		}
		if err := o.apply(c); err != nil {
			return nil, fmt.Errorf("cloud: %w", err)
		}
	}
	if c.httpClient == nil {
		c.httpClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return c, nil
}
