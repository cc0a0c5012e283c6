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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/govespa/govespa/vespa/internal/wire"
	"github.com/govespa/govespa/vespa/retries"
)

// Client talks to one Vespa endpoint (a container cluster). It holds the
// credentials, the TLS settings, a connection pool and the retry policy of
// synchronous requests. Create it once with [NewClient] and reuse it; it is
// safe for concurrent use. The zero value is not usable.
type Client struct {
	endpoint   *url.URL
	base       string          // endpoint without trailing '/'
	root       string          // scheme://host of the endpoint
	prefix     string          // escaped path of the endpoint without trailing '/'
	cfg        func() *config  // behind a closure, as sec: see secrets
	sec        func() *secrets // the credentials and TLS settings
	hc         *http.Client    // shared, on transport; never follows redirects
	transport  http.RoundTripper
	x          *wire.Exchange // the exchange of health checks and visit pages
	logger     *slog.Logger
	policy     retries.Policy
	timeout    time.Duration
	closeOnce  sync.Once
	mu         sync.Mutex
	transports []*headerTransport // made by NewHTTPClient, closed by Close
}

// secrets holds what a Client sends as credentials, and its TLS settings
// (client certificates and their keys). A Client and its transports reach
// it, and their config, only through a closure: fmt prints a func as an
// address, whatever the verb and however deep, so no formatting of any
// value that holds a *Client (or even a copy of a Client: the "bad verb"
// forms such as %t and %s print a nested pointer's fields) reaches a token,
// a header value or a private key.
type secrets struct {
	auth      string   // "Bearer <token>" or ""
	authValue []string // {auth}, shared by every request's header (never mutated)
	uaValue   []string // {user agent}, likewise
	headers   http.Header
	tls       *tls.Config
	// withBody and plain are the whole headers of SendOnce's common
	// requests (a put or update's, with its Content-Type, and the others'),
	// built once and shared by every such request that goes straight to
	// the transport (wire.Direct): nothing may modify them.
	withBody, plain http.Header
}

// Format hides the credentials from every verb.
func (*secrets) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, "[REDACTED]") }

// Format hides the configuration from every verb.
func (*config) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, "[REDACTED]") }

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
	if cfg.httpVersion == HTTP2 && u.Scheme == "http" && cfg.baseTransport == nil && proxied(u) {
		// net/http would send the h2c preface to the proxy, which speaks
		// HTTP/1.1: every request would fail, late and obscurely.
		return nil, fmt.Errorf("vespa: WithHTTPVersion(HTTP2): the environment (HTTP_PROXY) sends %s through a proxy, and h2c cannot pass an HTTP/1.1 proxy; use https, HTTPAuto or HTTP1, or name the host in NO_PROXY", u.Host)
	}
	policy := cfg.policy
	if cfg.attempts > 0 {
		policy = policy.WithMaxAttempts(cfg.attempts)
	}
	tlsCfg, err := buildTLS(&cfg)
	if err != nil {
		return nil, err
	}
	sec := &secrets{headers: cfg.headers, tls: tlsCfg}
	if cfg.token != "" {
		sec.auth = "Bearer " + string(cfg.token)
	}
	sec.authValue, sec.uaValue = []string{sec.auth}, []string{cfg.userAgent}
	sec.withBody, sec.plain = http.Header{"Content-Type": jsonContentType}, http.Header{}
	sec.setFixedHeaders(sec.withBody)
	sec.setFixedHeaders(sec.plain)
	cfg.reach = &reach{patience: cfg.patience, logger: cfg.logger}
	conf := &cfg
	c := &Client{
		endpoint: u,
		base:     strings.TrimSuffix(u.String(), "/"),
		root:     u.Scheme + "://" + u.Host,
		prefix:   strings.TrimRight(u.EscapedPath(), "/"),
		cfg:      func() *config { return conf },
		sec:      func() *secrets { return sec },
		logger:   cfg.logger,
		policy:   policy,
		timeout:  cfg.timeout,
	}
	ht, err := c.newHeaderTransport()
	if err != nil {
		return nil, err
	}
	c.transport = ht
	c.x = wire.New(wire.Config{Transport: ht, UserAgent: cfg.userAgent, Logger: c.logger})
	c.hc = c.x.HTTPClient()
	return c, nil
}

func parseEndpoint(endpoint string) (*url.URL, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		// Neither the endpoint nor url.Parse's error (which repeats it) is
		// shown as it is: it may hold a password.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if strings.Contains(endpoint, "@") {
			err = errors.New("it does not parse as a URL")
		}
		return nil, fmt.Errorf("vespa: invalid endpoint %s: %w%s", redactEndpoint(endpoint), err, schemeHint(endpoint))
	}
	shown := wire.RedactURL(endpoint)
	if i := strings.LastIndexByte(shown, '@'); i >= 0 { // user information that url.Parse did not see as such
		shown = "[REDACTED]" + shown[i:]
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("vespa: invalid endpoint %q: the scheme must be http or https%s", shown, schemeHint(shown))
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("vespa: invalid endpoint %q: no host", shown)
	case u.RawQuery != "" || u.ForceQuery:
		return nil, fmt.Errorf("vespa: invalid endpoint %q: it must not have a query", shown)
	case u.Fragment != "":
		return nil, fmt.Errorf("vespa: invalid endpoint %q: it must not have a fragment", shown)
	case u.User != nil:
		return nil, errors.New("vespa: invalid endpoint: it must not hold user information (use WithToken or WithHeader)")
	}
	if api := apiPath(u.Path); api != "" {
		return nil, fmt.Errorf("vespa: invalid endpoint %q: it ends in Vespa's API path %s, which the client adds itself; give the container's root, %q", shown, api, u.Scheme+"://"+u.Host)
	}
	return u, nil
}

// schemeHint returns a hint for an endpoint written without a scheme, such
// as "127.0.0.1:8080" or "localhost:8080", or "".
func schemeHint(endpoint string) string {
	if strings.Contains(endpoint, "://") || strings.ContainsAny(endpoint, "@ ") || endpoint == "" {
		return ""
	}
	return fmt.Sprintf(" (no scheme: did you mean %q?)", "http://"+endpoint)
}

// apiPath returns the Vespa API path that an endpoint's path ends in
// ("/search/", "/document/v1/"), or "": the client appends those itself, so
// such an endpoint would make every call 404. Any other path is a prefix (a
// proxy's) and kept.
func apiPath(path string) string {
	p := strings.TrimRight(path, "/")
	for _, api := range []string{"/search", "/document/v1", "/document"} {
		if strings.HasSuffix(p, api) {
			return api + "/"
		}
	}
	return ""
}

// redactEndpoint returns an endpoint that does not parse, quoted, without
// what may be user information: everything up to its last '@'.
func redactEndpoint(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		return strconv.Quote("[REDACTED]" + s[i:])
	}
	return strconv.Quote(s)
}

// isLoopback reports whether host is localhost or a loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newHeaderTransport returns a new transport with its own connection pool,
// wrapped by WithTransportWrapper's function.
func (c *Client) newHeaderTransport() (*headerTransport, error) {
	return c.newHeaderTransportFor(c.cfg())
}

// newHeaderTransportFor is newHeaderTransport with the settings of cfg.
func (c *Client) newHeaderTransportFor(cfg *config) (*headerTransport, error) {
	tlsCfg := c.sec().tls
	raw := cfg.baseTransport
	if raw == nil {
		raw = newTransport(cfg, tlsCfg, c.endpoint)
	}
	base := raw
	if cfg.wrapper != nil {
		if base = cfg.wrapper(raw); base == nil {
			return nil, errors.New("vespa: WithTransportWrapper: the function returned a nil http.RoundTripper")
		}
	}
	return &headerTransport{
		base:     base,
		raw:      raw,
		sec:      c.sec,
		scheme:   c.endpoint.Scheme,
		host:     c.endpoint.Host,
		origin:   wire.Origin(c.endpoint),
		hasCerts: len(tlsCfg.Certificates) > 0 || tlsCfg.GetClientCertificate != nil,
	}, nil
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
// to each request for the endpoint's origin (and to no other); it never
// retries, never follows a redirect (a 3xx is returned as the response) and
// has no Timeout: deadlines come from the request's context.
func (c *Client) HTTPClient() *http.Client { return c.hc }

// NewHTTPClient returns a new *http.Client with its own transport and
// connection pool (wrapped by [WithTransportWrapper]'s function), and the
// same settings as [Client.HTTPClient]. The feeder makes one per
// connection. [Client.Close] closes its idle connections too.
func (c *Client) NewHTTPClient() *http.Client {
	return c.newHTTPClientFor(c.cfg())
}

// newHTTPClientFor is NewHTTPClient with the settings of cfg.
func (c *Client) newHTTPClientFor(cfg *config) *http.Client {
	t, err := c.newHeaderTransportFor(cfg)
	if err != nil {
		// The wrapper gave a transport at NewClient and not now: send
		// through the shared transport rather than fail.
		c.logger.Warn("vespa: NewHTTPClient: " + err.Error() + "; using the shared transport")
		return &http.Client{Transport: c.transport, CheckRedirect: wire.NoRedirects}
	}
	c.mu.Lock()
	c.transports = append(c.transports, t)
	c.mu.Unlock()
	return &http.Client{Transport: t, CheckRedirect: wire.NoRedirects}
}

// Connections returns the number of connections set by [WithConnections]
// (default [DefaultConnections]): the idle connections the client keeps per
// host, and the number of connections a feed.Feeder opens from it unless its
// own Config says otherwise.
func (c *Client) Connections() int { return c.cfg().connections }

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

// Format writes [Client.String] for every verb, so that no formatting of a
// client (%#v included) shows its credentials.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }
