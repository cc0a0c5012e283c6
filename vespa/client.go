package vespa

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/govespa/govespa/vespa/retries"
)

// Client talks to one Vespa endpoint (a container cluster). It holds the
// credentials, the TLS settings, a connection pool and the retry policy of
// synchronous requests. Create it once with [NewClient] and reuse it; it is
// safe for concurrent use. The zero value is not usable.
type Client struct {
	endpoint   *url.URL
	base       string // endpoint without trailing '/'
	prefix     string // escaped path of the endpoint without trailing '/'
	cfg        config
	tlsCfg     *tls.Config
	hc         *http.Client // shared, on transport
	transport  http.RoundTripper
	rc         *resty.Client
	logger     *slog.Logger
	policy     retries.Policy
	auth       string
	authValue  []string // {auth}, shared by every request's header (never mutated)
	uaValue    []string // {user agent}, likewise
	timeout    time.Duration
	closeOnce  sync.Once
	mu         sync.Mutex
	transports []*headerTransport // made by NewHTTPClient, closed by Close
}

// NewClient returns a client for the Vespa endpoint, such as
// "http://localhost:8080" or "https://x.y.z.vespa-app.cloud". The endpoint
// must have the scheme http or https, a host, and no query or fragment; a path
// prefix is kept. Invalid options, unreadable certificate files and a token
// over plain http to a host that is not loopback are errors.
func NewClient(endpoint string, opts ...Option) (*Client, error) {
	u, err := parseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if o == nil {
			return nil, errors.New("vespa: NewClient: nil Option")
		}
		if err := o.apply(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.token != "" && u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("vespa: WithToken: refusing to send a token over plain http to %s (use https, or a loopback host)", u.Host)
	}
	policy := cfg.policy
	if cfg.attempts > 0 {
		policy = policy.WithMaxAttempts(cfg.attempts)
	}
	tlsCfg, err := buildTLS(&cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{
		endpoint: u,
		base:     strings.TrimSuffix(u.String(), "/"),
		prefix:   strings.TrimRight(u.EscapedPath(), "/"),
		cfg:      cfg,
		tlsCfg:   tlsCfg,
		logger:   cfg.logger,
		policy:   policy,
		timeout:  cfg.timeout,
	}
	if cfg.token != "" {
		c.auth = "Bearer " + string(cfg.token)
	}
	c.authValue, c.uaValue = []string{c.auth}, []string{cfg.userAgent}
	ht := c.newHeaderTransport()
	c.transport = ht
	c.hc = &http.Client{Transport: ht}
	// resty gets its own *http.Client on the same transport, so that its
	// settings (redirect policy) never leak into HTTPClient. Its retries and
	// debug mode stay off: retries re-send reader bodies empty, and debug
	// logs print Authorization.
	c.rc = resty.NewWithClient(&http.Client{Transport: ht}).
		SetRetryCount(0).
		SetDebug(false).
		SetHeader("User-Agent", cfg.userAgent).
		SetLogger(restyLogger{c.logger})
	return c, nil
}

func parseEndpoint(endpoint string) (*url.URL, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("vespa: invalid endpoint %q: %w", endpoint, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("vespa: invalid endpoint %q: the scheme must be http or https", endpoint)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("vespa: invalid endpoint %q: no host", endpoint)
	case u.RawQuery != "" || u.ForceQuery:
		return nil, fmt.Errorf("vespa: invalid endpoint %q: it must not have a query", endpoint)
	case u.Fragment != "":
		return nil, fmt.Errorf("vespa: invalid endpoint %q: it must not have a fragment", endpoint)
	case u.User != nil:
		return nil, errors.New("vespa: invalid endpoint: it must not hold user information (use WithToken or WithHeader)")
	}
	return u, nil
}

// isLoopback reports whether host is localhost or a loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Client) newHeaderTransport() *headerTransport {
	base := c.cfg.baseTransport
	if base == nil {
		base = newTransport(&c.cfg, c.tlsCfg)
	}
	return &headerTransport{base: base, auth: c.auth, ua: c.cfg.userAgent, headers: c.cfg.headers}
}

// Close closes the idle connections of the client and of every client made
// by [Client.NewHTTPClient]. Requests in flight are not interrupted. It
// always returns nil.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.hc.CloseIdleConnections()
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, t := range c.transports {
			t.CloseIdleConnections()
		}
		c.transports = nil
	})
	return nil
}

// Endpoint returns a copy of the client's endpoint URL.
func (c *Client) Endpoint() *url.URL {
	u := *c.endpoint
	return &u
}

// HTTPClient returns the client's shared *http.Client. Its transport does TLS
// (and mutual TLS) and adds Authorization, User-Agent and the extra headers
// to each request; it never retries and has no Timeout: deadlines come from
// the request's context.
func (c *Client) HTTPClient() *http.Client { return c.hc }

// NewHTTPClient returns a new *http.Client with its own transport and
// connection pool, and the same settings as [Client.HTTPClient]. The feeder
// makes one per connection. [Client.Close] closes its idle connections too.
func (c *Client) NewHTTPClient() *http.Client {
	t := c.newHeaderTransport()
	c.mu.Lock()
	c.transports = append(c.transports, t)
	c.mu.Unlock()
	return &http.Client{Transport: t}
}

// Connections returns the number of connections set by [WithConnections]
// (default [DefaultConnections]): the idle connections the client keeps per
// host, and the number of connections a feed.Feeder opens from it unless its
// own Config says otherwise.
func (c *Client) Connections() int { return c.cfg.connections }

// Logger returns the client's logger; never nil (it discards by default).
func (c *Client) Logger() *slog.Logger { return c.logger }

// RetryPolicy returns the policy of the client's synchronous requests:
// [retries.SyncRequest] unless replaced by [WithRetryPolicy] or adapted by
// [WithRetryAttempts].
func (c *Client) RetryPolicy() retries.Policy { return c.policy }

// Timeout returns the default Vespa timeout of operations ([WithTimeout]); 0
// means Vespa's own default.
func (c *Client) Timeout() time.Duration { return c.timeout }

// String describes the client without secrets.
func (c *Client) String() string {
	return fmt.Sprintf("vespa.Client(%s)", c.base)
}

// restyLogger routes resty's own messages to the client's logger at debug
// level.
type restyLogger struct{ l *slog.Logger }

func (r restyLogger) Errorf(format string, v ...any) { r.l.Debug(fmt.Sprintf("resty: "+format, v...)) }
func (r restyLogger) Warnf(format string, v ...any)  { r.l.Debug(fmt.Sprintf("resty: "+format, v...)) }
func (r restyLogger) Debugf(format string, v ...any) { r.l.Debug(fmt.Sprintf("resty: "+format, v...)) }

// Format writes [Client.String] for every verb, so that no formatting of a
// client (%#v included) shows its credentials.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }
