package vespa

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/schema"
)

// Option configures a [Client] at [NewClient]. Options are sealed: only this
// package's With* functions make them. No option's text form (%v, %+v, %#v,
// String) shows a secret.
type Option interface {
	apply(*config) error
	fmt.Stringer
}

// HTTPVersion selects the HTTP protocol versions of the client's transport.
type HTTPVersion int

// The HTTP versions of [WithHTTPVersion].
const (
	// HTTPAuto negotiates HTTP/2 over TLS (ALPN, falling back to HTTP/1.1)
	// and uses HTTP/1.1 for plain http. The default.
	HTTPAuto HTTPVersion = iota
	// HTTP1 uses HTTP/1.1 only.
	HTTP1
	// HTTP2 uses HTTP/2 only: over TLS through ALPN, and over plain http as
	// h2c with prior knowledge (Vespa's containers accept both).
	HTTP2
)

// String returns "auto", "1.1" or "2".
func (v HTTPVersion) String() string {
	switch v {
	case HTTPAuto:
		return "auto"
	case HTTP1:
		return "1.1"
	case HTTP2:
		return "2"
	}
	return fmt.Sprintf("HTTPVersion(%d)", int(v))
}

// DefaultConnections is the default connection pool size ([WithConnections]).
const DefaultConnections = 8

// DefaultIdleConnTimeout is how long an idle connection is kept: under the
// 30 s that Vespa Cloud's load balancers allow.
const DefaultIdleConnTimeout = 25 * time.Second

// WithToken sends "Authorization: Bearer <token>" with every request (a
// Vespa Cloud data-plane token). A token is refused over plain http unless
// the endpoint's host is loopback. An empty token is an error.
func WithToken(token string) Option { return tokenOption{secret(token)} }

// WithCertificateFiles presents the client certificate and key in the PEM
// files certFile and keyFile (mutual TLS). Files that cannot be read or
// parsed make [NewClient] fail.
func WithCertificateFiles(certFile, keyFile string) Option {
	return certFilesOption{certFile, keyFile}
}

// WithCertificate presents cert as the client certificate (mutual TLS).
func WithCertificate(cert tls.Certificate) Option { return certOption{cert} }

// WithCAFile trusts the PEM certificates in file (in addition to nothing
// else: the system roots are not used) to verify the server.
func WithCAFile(file string) Option { return caFileOption{file} }

// WithCAPEM trusts the PEM certificates in pem to verify the server, like
// [WithCAFile].
func WithCAPEM(pem []byte) Option { return caPEMOption{pem} }

// WithTLSConfig starts the TLS configuration from a clone of cfg; the other
// TLS options are applied on top of it. The minimum version is raised to
// TLS 1.2 if cfg allows less. A nil cfg is an error.
func WithTLSConfig(cfg *tls.Config) Option { return tlsConfigOption{cfg} }

// WithInsecureSkipVerify turns server certificate verification off. It is
// for tests against self-signed servers only; verification is on by default.
func WithInsecureSkipVerify() Option { return insecureOption{} }

// WithHeader adds header name: value to every request. It may be given
// several times; later values for the same name are added, not replaced.
// Values never appear in the option's text form.
func WithHeader(name, value string) Option { return headerOption{name, secret(value)} }

// WithUserAgent sets the User-Agent header. Default: [UserAgent].
func WithUserAgent(ua string) Option { return userAgentOption(ua) }

// WithConnections sets the size of the connection pool: the idle
// connections kept per host (HTTP/1.1). Default [DefaultConnections]; n must
// be at least 1.
func WithConnections(n int) Option { return connectionsOption(n) }

// WithHTTPVersion selects the HTTP versions used. Default [HTTPAuto].
func WithHTTPVersion(v HTTPVersion) Option { return httpVersionOption(v) }

// HTTP2Transport selects the implementation of HTTP/2 ([WithHTTP2Transport]).
type HTTP2Transport int

// The HTTP/2 implementations of [WithHTTP2Transport].
const (
	// HTTP2Batching is govespa's own HTTP/2 transport, the default: made
	// for many small concurrent requests (the feeder's), it writes every
	// frame queued on a connection in one write and reads every frame that
	// arrived in one read. It dials directly: when the environment names a
	// proxy for the endpoint, net/http's is used instead.
	HTTP2Batching HTTP2Transport = iota
	// HTTP2NetHTTP is net/http's HTTP/2.
	HTTP2NetHTTP
)

// String returns "batching" or "net/http".
func (t HTTP2Transport) String() string {
	switch t {
	case HTTP2Batching:
		return "batching"
	case HTTP2NetHTTP:
		return "net/http"
	}
	return fmt.Sprintf("HTTP2Transport(%d)", int(t))
}

// WithHTTP2Transport selects the implementation of HTTP/2 used under
// WithHTTPVersion([HTTP2]). Default [HTTP2Batching]. [HTTPAuto] and [HTTP1]
// always use net/http.
func WithHTTP2Transport(t HTTP2Transport) Option { return http2TransportOption(t) }

// WithIdleConnTimeout sets how long idle connections are kept. Default
// [DefaultIdleConnTimeout]; d must be positive.
func WithIdleConnTimeout(d time.Duration) Option { return idleOption(d) }

// WithLogger sets the logger of the client. Default: a logger that discards
// everything. A nil logger is an error.
func WithLogger(l *slog.Logger) Option { return loggerOption{l} }

// WithRetryPolicy replaces the policy of the client's synchronous requests.
// Default [retries.SyncRequest]. An invalid policy ([retries.Policy.Err]) is
// an error.
func WithRetryPolicy(p retries.Policy) Option { return retryOption{p} }

// WithRetryAttempts sets the number of attempts (including the first) of the
// client's sync policy, whichever it is. n must be at least 1; 1 disables
// retrying.
func WithRetryAttempts(n int) Option { return attemptsOption(n) }

// WithTimeout sets the default Vespa timeout of every operation whose
// [OperationOptions.Timeout] is zero. Default 0: Vespa's own (180 s). d must
// not be negative.
func WithTimeout(d time.Duration) Option { return timeoutOption(d) }

// WithTransportWrapper wraps every transport the client makes — the shared
// one ([Client.HTTPClient], used by documents, visits and queries) and each
// one [Client.NewHTTPClient] makes (one per feeder connection) — with
// wrap(base), so that one wrapper sees every request of the client:
// OpenTelemetry's otelhttp.NewTransport, metrics, request IDs. wrap is
// called once per transport, at [NewClient] and at each NewHTTPClient; it
// must return a non-nil RoundTripper that passes requests on to base, and
// must not retry. It may add or set headers: with a wrapper, every request
// has a header map of its own. A document request's URL is what
// http.NewRequest would make (Path decoded, RawPath the exact escaped path
// sent, Host the endpoint's). base is the client's own transport
// (TLS, connection pool); the requests the wrapper sees carry the client's
// credentials (Authorization), so a wrapper that logs must leave them out.
// A nil wrap is an error. Default: no wrapper.
func WithTransportWrapper(wrap func(base http.RoundTripper) http.RoundTripper) Option {
	return wrapperOption{wrap}
}

// WithDocumentLimit bounds the answer to one document operation that the
// client reads into memory (a get's document, mostly). A larger answer is an
// [*Error] matching [ErrResponseTooLarge], and the rest of it is not read.
// Default [DefaultDocumentLimit] (64 MiB); n must be positive.
func WithDocumentLimit(n int64) Option { return limitOption{name: "WithDocumentLimit", n: n} }

// WithVisitPageLimit bounds one page of a visit (or of a remove or update
// by selection) read into memory, as [WithDocumentLimit] does for
// documents. Default [DefaultVisitPageLimit] (256 MiB); n must be positive.
func WithVisitPageLimit(n int64) Option {
	return limitOption{name: "WithVisitPageLimit", n: n, visit: true}
}

// The default limits on answers read into memory.
const (
	// DefaultDocumentLimit is the default of [WithDocumentLimit].
	DefaultDocumentLimit = 64 << 20 // 64 MiB
	// DefaultVisitPageLimit is the default of [WithVisitPageLimit].
	DefaultVisitPageLimit = 256 << 20 // 256 MiB
)

// secret is a string that never shows itself in formatted output.
type secret string

// Format writes "[REDACTED]" for every verb.
func (secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte("[REDACTED]")) }

type config struct {
	token          secret
	certFiles      [][2]string
	certs          []tls.Certificate
	caFiles        []string
	caPEMs         [][]byte
	tlsConfig      *tls.Config
	insecure       bool
	headers        http.Header
	userAgent      string
	connections    int
	httpVersion    HTTPVersion
	http2Transport HTTP2Transport
	idle           time.Duration
	readIdle       time.Duration // WithHealthCheck
	pingTimeout    time.Duration
	logger         *slog.Logger
	policy         retries.Policy
	attempts       int
	timeout        time.Duration
	wrapper        func(http.RoundTripper) http.RoundTripper
	docLimit       int64
	visitLimit     int64
	baseTransport  http.RoundTripper   // tests only: replaces the *http.Transport
	patience       time.Duration       // WithConnectPatience
	reach          *reach              // made by NewClient, shared by every transport of the client
	schema         *schema.Application // WithSchema
}

func defaultConfig() config {
	return config{
		headers:     http.Header{},
		userAgent:   UserAgent,
		connections: DefaultConnections,
		idle:        DefaultIdleConnTimeout,
		readIdle:    DefaultReadIdleTimeout,
		pingTimeout: DefaultPingTimeout,
		patience:    DefaultConnectPatience,
		logger:      slog.New(slog.DiscardHandler),
		policy:      retries.SyncRequestPolicy(),
		docLimit:    DefaultDocumentLimit,
		visitLimit:  DefaultVisitPageLimit,
	}
}

type tokenOption struct{ token secret }

func (o tokenOption) apply(c *config) error {
	if o.token == "" {
		return errors.New("vespa: WithToken: empty token")
	}
	if strings.ContainsAny(string(o.token), "\r\n") {
		return errors.New("vespa: WithToken: token contains a line break")
	}
	c.token = o.token
	return nil
}
func (o tokenOption) String() string             { return "WithToken([REDACTED])" }
func (o tokenOption) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(o.String())) }

type certFilesOption struct{ cert, key string }

func (o certFilesOption) apply(c *config) error {
	if o.cert == "" || o.key == "" {
		return errors.New("vespa: WithCertificateFiles: empty file name")
	}
	c.certFiles = append(c.certFiles, [2]string{o.cert, o.key})
	return nil
}
func (o certFilesOption) String() string {
	return fmt.Sprintf("WithCertificateFiles(%q, %q)", o.cert, o.key)
}

type certOption struct{ cert tls.Certificate }

func (o certOption) apply(c *config) error {
	if len(o.cert.Certificate) == 0 {
		return errors.New("vespa: WithCertificate: the certificate has no certificate chain")
	}
	c.certs = append(c.certs, o.cert)
	return nil
}
func (o certOption) String() string             { return "WithCertificate([REDACTED])" }
func (o certOption) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(o.String())) }

type caFileOption struct{ file string }

func (o caFileOption) apply(c *config) error {
	if o.file == "" {
		return errors.New("vespa: WithCAFile: empty file name")
	}
	c.caFiles = append(c.caFiles, o.file)
	return nil
}
func (o caFileOption) String() string { return fmt.Sprintf("WithCAFile(%q)", o.file) }

type caPEMOption struct{ pem []byte }

func (o caPEMOption) apply(c *config) error {
	if len(o.pem) == 0 {
		return errors.New("vespa: WithCAPEM: empty PEM")
	}
	c.caPEMs = append(c.caPEMs, o.pem)
	return nil
}
func (o caPEMOption) String() string             { return fmt.Sprintf("WithCAPEM(%d bytes)", len(o.pem)) }
func (o caPEMOption) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(o.String())) }

type tlsConfigOption struct{ cfg *tls.Config }

func (o tlsConfigOption) apply(c *config) error {
	if o.cfg == nil {
		return errors.New("vespa: WithTLSConfig: nil *tls.Config")
	}
	c.tlsConfig = o.cfg.Clone()
	return nil
}
func (o tlsConfigOption) String() string             { return "WithTLSConfig(*tls.Config)" }
func (o tlsConfigOption) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(o.String())) }

type insecureOption struct{}

func (insecureOption) apply(c *config) error { c.insecure = true; return nil }
func (insecureOption) String() string        { return "WithInsecureSkipVerify()" }

type headerOption struct {
	name  string
	value secret
}

func (o headerOption) apply(c *config) error {
	if o.name == "" || strings.ContainsAny(o.name, " \t\r\n:") {
		return fmt.Errorf("vespa: WithHeader: invalid header name %q", o.name)
	}
	if strings.ContainsAny(string(o.value), "\r\n") {
		return fmt.Errorf("vespa: WithHeader(%q): the value contains a line break", o.name)
	}
	c.headers.Add(o.name, string(o.value))
	return nil
}
func (o headerOption) String() string             { return fmt.Sprintf("WithHeader(%q, [REDACTED])", o.name) }
func (o headerOption) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(o.String())) }

type userAgentOption string

func (o userAgentOption) apply(c *config) error {
	if o == "" || strings.ContainsAny(string(o), "\r\n") {
		return fmt.Errorf("vespa: WithUserAgent: invalid user agent %q", string(o))
	}
	c.userAgent = string(o)
	return nil
}
func (o userAgentOption) String() string { return fmt.Sprintf("WithUserAgent(%q)", string(o)) }

type connectionsOption int

func (o connectionsOption) apply(c *config) error {
	if o < 1 {
		return fmt.Errorf("vespa: WithConnections(%d): must be at least 1", int(o))
	}
	c.connections = int(o)
	return nil
}
func (o connectionsOption) String() string { return fmt.Sprintf("WithConnections(%d)", int(o)) }

type httpVersionOption HTTPVersion

func (o httpVersionOption) apply(c *config) error {
	switch HTTPVersion(o) {
	case HTTPAuto, HTTP1, HTTP2:
		c.httpVersion = HTTPVersion(o)
		return nil
	}
	return fmt.Errorf("vespa: WithHTTPVersion(%d): unknown version", int(o))
}
func (o httpVersionOption) String() string {
	return "WithHTTPVersion(" + HTTPVersion(o).String() + ")"
}

type http2TransportOption HTTP2Transport

func (o http2TransportOption) apply(c *config) error {
	switch HTTP2Transport(o) {
	case HTTP2Batching, HTTP2NetHTTP:
		c.http2Transport = HTTP2Transport(o)
		return nil
	}
	return fmt.Errorf("vespa: WithHTTP2Transport(%d): unknown transport", int(o))
}
func (o http2TransportOption) String() string {
	return "WithHTTP2Transport(" + HTTP2Transport(o).String() + ")"
}

type idleOption time.Duration

func (o idleOption) apply(c *config) error {
	if o <= 0 {
		return fmt.Errorf("vespa: WithIdleConnTimeout(%v): must be positive", time.Duration(o))
	}
	c.idle = time.Duration(o)
	return nil
}
func (o idleOption) String() string {
	return fmt.Sprintf("WithIdleConnTimeout(%v)", time.Duration(o))
}

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) apply(c *config) error {
	if o.l == nil {
		return errors.New("vespa: WithLogger: nil logger")
	}
	c.logger = o.l
	return nil
}
func (o loggerOption) String() string { return "WithLogger(*slog.Logger)" }

type retryOption struct{ p retries.Policy }

func (o retryOption) apply(c *config) error {
	if err := o.p.Err(); err != nil {
		return fmt.Errorf("vespa: WithRetryPolicy: %w", err)
	}
	c.policy = o.p
	return nil
}
func (o retryOption) String() string { return "WithRetryPolicy(" + o.p.String() + ")" }

type attemptsOption int

func (o attemptsOption) apply(c *config) error {
	if o < 1 {
		return fmt.Errorf("vespa: WithRetryAttempts(%d): must be at least 1", int(o))
	}
	c.attempts = int(o)
	return nil
}
func (o attemptsOption) String() string { return fmt.Sprintf("WithRetryAttempts(%d)", int(o)) }

type timeoutOption time.Duration

func (o timeoutOption) apply(c *config) error {
	if o < 0 {
		return fmt.Errorf("vespa: WithTimeout(%v): must not be negative", time.Duration(o))
	}
	c.timeout = time.Duration(o)
	return nil
}
func (o timeoutOption) String() string { return fmt.Sprintf("WithTimeout(%v)", time.Duration(o)) }

type wrapperOption struct {
	wrap func(http.RoundTripper) http.RoundTripper
}

func (o wrapperOption) apply(c *config) error {
	if o.wrap == nil {
		return errors.New("vespa: WithTransportWrapper: nil function")
	}
	c.wrapper = o.wrap
	return nil
}
func (o wrapperOption) String() string { return "WithTransportWrapper(func)" }

type limitOption struct {
	name  string
	n     int64
	visit bool
}

func (o limitOption) apply(c *config) error {
	if o.n <= 0 {
		return fmt.Errorf("vespa: %s(%d): must be positive", o.name, o.n)
	}
	if o.visit {
		c.visitLimit = o.n
	} else {
		c.docLimit = o.n
	}
	return nil
}
func (o limitOption) String() string { return fmt.Sprintf("%s(%d)", o.name, o.n) }

// baseTransportOption replaces the *http.Transport (tests only; see
// export_test.go).
type baseTransportOption struct{ rt http.RoundTripper }

func (o baseTransportOption) apply(c *config) error { c.baseTransport = o.rt; return nil }
func (o baseTransportOption) String() string        { return "withBaseTransport" }
