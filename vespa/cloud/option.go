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

// option is an [Option], as in package deploy: it prints as its name
// (cloud.WithAPIKey), never as what it captured.
type option struct{ ctlplane.Option[config] }

func newOption(name string, set func(*config) error) Option {
	return option{ctlplane.Option[config]{Pkg: "cloud", Name: name, Set: set}}
}

func (o option) apply(c *config) error { return o.Apply(c) }

// WithEndpoint sets the URL of the control-plane API of a [Client]; the
// default is [DefaultEndpoint]. Use it to reach another system or an
// emulator (such as cloudtest's Server).
func WithEndpoint(endpoint string) Option {
	return newOption("WithEndpoint", func(c *config) error {
		u, err := ctlplane.ParseBaseURL(endpoint)
		if err != nil {
			return err
		}
		c.endpoint = u
		return nil
	})
}

// WithAPIKey makes a [Client] sign its requests with an API key: a PEM
// ECDSA P-256 private key, SEC 1 or PKCS #8 (see [ParseAPIKey]). Exactly one
// of WithAPIKey, [WithAPIKeyFile] and [WithAccessToken] must be given.
func WithAPIKey(pemKey []byte) Option {
	return newOption("WithAPIKey", func(c *config) error { return c.setAPIKey(pemKey) })
}

// WithAPIKeyFile is [WithAPIKey] with the key read from a file, such as
// ~/.vespa/<tenant>.api-key.pem ([FromEnvironment] finds that file, and
// Vespa's CLI's variables, by itself).
func WithAPIKeyFile(path string) Option {
	return newOption("WithAPIKeyFile", func(c *config) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := c.setAPIKey(b); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}

// WithAccessToken makes a [Client] send "Authorization: Bearer <token>", for
// an OAuth access token such as the one `vespa auth login` obtains.
func WithAccessToken(token string) Option {
	return newOption("WithAccessToken", func(c *config) error {
		if token == "" {
			return errors.New("empty token")
		}
		c.accessToken = token
		c.auths++
		return nil
	})
}

// WithRetryPolicy sets the retry policy of reads and status polls; the
// default is retries.ControlPlane (errors and 5xx retried, final 4xx not, 3
// attempts). Uploads ([Client.Deploy], [Client.Submit], [Client.CreateToken])
// are sent once whatever it says (retries.Upload).
func WithRetryPolicy(p retries.Policy) Option {
	return newOption("WithRetryPolicy", func(c *config) error { return c.SetRetryPolicy(p) })
}

// WithClock sets the clock whose time signs requests; the default is
// time.Now. For tests.
func WithClock(now func() time.Time) Option {
	return newOption("WithClock", func(c *config) error {
		if now == nil {
			return errors.New("nil clock")
		}
		c.now = now
		return nil
	})
}

// WithHTTPClient sets the HTTP client; the default is a client of its own
// over a clone of http.DefaultTransport. The client must not retry: retries
// are the policy's (see [WithRetryPolicy]); its Timeout, if any, bounds each
// attempt.
func WithHTTPClient(hc *http.Client) Option {
	return newOption("WithHTTPClient", func(c *config) error { return c.SetHTTPClient(hc) })
}

// WithLogger sets the logger of retries and waits; the default discards.
// Nothing logged contains keys, tokens or signatures.
func WithLogger(l *slog.Logger) Option {
	return newOption("WithLogger", func(c *config) error { return c.SetLogger(l) })
}

// WithUserAgent sets the User-Agent header; the default is [vespa.UserAgent].
func WithUserAgent(ua string) Option {
	return newOption("WithUserAgent", func(c *config) error { return c.SetUserAgent(ua) })
}

// WithPollInterval sets how often waits poll; the default is
// [DefaultPollInterval]. It must be positive.
func WithPollInterval(d time.Duration) Option {
	return newOption("WithPollInterval", func(c *config) error { return c.SetPollInterval(d) })
}

// config collects the options.
type config struct {
	ctlplane.Settings // shared with package deploy
	endpoint          *url.URL
	apiKey            []byte
	accessToken       string
	auths             int
	now               func() time.Time
	// app is the client's application, for options that depend on it.
	app ApplicationID
	// env looks up the environment, for FromEnvironment; os.LookupEnv.
	env func(string) (string, bool)
	// envEndpoint is the endpoint of $VESPA_CLI_CLOUD_SYSTEM, used when
	// WithEndpoint is not given.
	envEndpoint *url.URL
}

// setAPIKey sets the API key, which must parse ([ParseAPIKey]).
func (c *config) setAPIKey(pemKey []byte) error {
	if _, err := ParseAPIKey(pemKey); err != nil {
		return err
	}
	c.apiKey = pemKey
	c.auths++
	return nil
}

func newConfig(app ApplicationID, opts []Option) (*config, error) {
	c := &config{
		Settings: ctlplane.NewSettings(DefaultPollInterval, vespa.UserAgent),
		now:      time.Now,
		app:      app,
		env:      os.LookupEnv,
	}
	if err := ctlplane.ApplyOptions("cloud", opts, func(o Option) error { return o.apply(c) }); err != nil {
		return nil, err
	}
	c.Complete()
	return c, nil
}
