package vespa

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"golang.org/x/net/http/httpproxy"

	"github.com/govespa/govespa/vespa/internal/h2"
	"github.com/govespa/govespa/vespa/internal/wire"
)

// buildTLS returns the TLS configuration of the client.
func buildTLS(c *config) (*tls.Config, error) {
	cfg := c.tlsConfig
	if cfg == nil {
		cfg = &tls.Config{}
	}
	if cfg.MinVersion < tls.VersionTLS12 {
		cfg.MinVersion = tls.VersionTLS12
	}
	for _, f := range c.certFiles {
		cert, err := tls.LoadX509KeyPair(f[0], f[1])
		if err != nil {
			return nil, fmt.Errorf("vespa: WithCertificateFiles(%q, %q): %w", f[0], f[1], err)
		}
		cfg.Certificates = append(cfg.Certificates, cert)
	}
	cfg.Certificates = append(cfg.Certificates, c.certs...)
	if len(c.caFiles) > 0 || len(c.caPEMs) > 0 {
		pool := x509.NewCertPool()
		for _, f := range c.caFiles {
			pem, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("vespa: WithCAFile(%q): %w", f, err)
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("vespa: WithCAFile(%q): no PEM certificate in the file", f)
			}
		}
		for i, pem := range c.caPEMs {
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("vespa: WithCAPEM (#%d): no PEM certificate", i+1)
			}
		}
		cfg.RootCAs = pool
	}
	if c.insecure {
		cfg.InsecureSkipVerify = true
	}
	return cfg, nil
}

// newTransport returns a new transport with the client's settings: its own
// connection pool, TLS, and protocols. HTTP/2 alone ([HTTP2]) goes through
// govespa's batching transport (vespa/internal/h2) unless
// [WithHTTP2Transport] chose net/http's or a proxy is configured for the
// endpoint (the batching transport dials directly); everything else is
// net/http's.
func newTransport(c *config, tlsCfg *tls.Config, endpoint *url.URL) http.RoundTripper {
	if c.httpVersion == HTTP2 && c.http2Transport == HTTP2Batching && !proxied(endpoint) {
		return &h2.Transport{TLSClientConfig: tlsCfg.Clone(), IdleConnTimeout: c.idle,
			ReadIdleTimeout: c.readIdle, PingTimeout: c.pingTimeout, DialContext: newDialer(c.reach).DialContext}
	}
	return newNetHTTPTransport(c, tlsCfg)
}

// proxied reports whether the environment names a proxy for endpoint. It
// reads the environment at each call (http.ProxyFromEnvironment reads it once
// per process).
func proxied(endpoint *url.URL) bool {
	p, err := httpproxy.FromEnvironment().ProxyFunc()(endpoint)
	return err != nil || p != nil
}

// newNetHTTPTransport returns a new *http.Transport with the client's
// settings.
func newNetHTTPTransport(c *config, tlsCfg *tls.Config) *http.Transport {
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           newDialer(c.reach).DialContext,
		TLSClientConfig:       tlsCfg.Clone(),
		TLSHandshakeTimeout:   10 * time.Second,
		MaxIdleConns:          c.connections,
		MaxIdleConnsPerHost:   c.connections,
		IdleConnTimeout:       c.idle,
		ExpectContinueTimeout: time.Second,
		// The body is given to us gzipped only when we ask for it; leave
		// DisableCompression false so that Go asks for and inflates gzip.
	}
	p := new(http.Protocols)
	switch c.httpVersion {
	case HTTP1:
		p.SetHTTP1(true)
	case HTTP2:
		p.SetHTTP2(true)
		p.SetUnencryptedHTTP2(true) // prior-knowledge h2c for http://
	default:
		p.SetHTTP1(true)
		p.SetHTTP2(true)
		t.ForceAttemptHTTP2 = true
	}
	t.Protocols = p
	t.HTTP2 = &http.HTTP2Config{SendPingTimeout: c.readIdle, PingTimeout: c.pingTimeout}
	return t
}

// headerTransport adds the client's fixed headers (authorization, user
// agent, extra headers) to each request for the endpoint's origin, without
// changing the caller's request. It never retries and refuses every
// redirect hop, whatever the *http.Client's redirect policy. Credentials
// only ever go to the endpoint's origin: a request to another origin goes
// without the token and the extra headers, and is refused when the client
// presents a TLS client certificate.
type headerTransport struct {
	base     http.RoundTripper // raw, or the user's wrapper around it
	raw      http.RoundTripper // the client's own transport, for CloseIdleConnections
	sec      func() *secrets   // behind a closure: see secrets
	scheme   string            // the endpoint's, for the fast origin check
	host     string
	origin   string // wire.Origin of the endpoint
	hasCerts bool
}

// RoundTrip implements http.RoundTripper.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Response != nil {
		// A redirect hop, made by an *http.Client that follows redirects
		// (the client's own never do). Vespa never redirects the data plane
		// or queries: following would turn a write into a GET that
		// "succeeds", or send the body elsewhere.
		closeBody(req)
		return nil, fmt.Errorf("vespa: refusing to follow a redirect (status %d, to %s): Vespa never redirects /document/v1 or /search/; check the endpoint",
			req.Response.StatusCode, wire.RedactURL(req.URL.String()))
	}
	if !t.sameOrigin(req.URL) {
		return t.foreign(req)
	}
	if !t.hasHeaders(req.Header) {
		r2 := *req
		r2.Header = req.Header.Clone()
		if r2.Header == nil {
			r2.Header = http.Header{}
		}
		t.setHeaders(r2.Header)
		req = &r2
	}
	return t.base.RoundTrip(req)
}

func (t *headerTransport) sameOrigin(u *url.URL) bool {
	if u.Host == t.host && u.Scheme == t.scheme {
		return true
	}
	return wire.Origin(u) == t.origin
}

// foreign sends a request for another origin than the endpoint's, without
// the client's credentials, or refuses it.
func (t *headerTransport) foreign(req *http.Request) (*http.Response, error) {
	if t.hasCerts && req.URL.Scheme == "https" {
		closeBody(req)
		return nil, fmt.Errorf("vespa: refusing to send a request to %s through a client with a TLS client certificate for %s", wire.RedactURL(wire.Origin(req.URL)), t.origin)
	}
	r2 := *req
	r2.Header = req.Header.Clone()
	if r2.Header == nil {
		r2.Header = http.Header{}
	}
	sec := t.sec()
	if sec.auth != "" && sameValue(r2.Header, "Authorization", sec.auth) {
		delete(r2.Header, "Authorization")
	}
	for k := range sec.headers {
		delete(r2.Header, k)
	}
	if len(r2.Header["User-Agent"]) == 0 {
		r2.Header["User-Agent"] = sec.uaValue
	}
	return t.base.RoundTrip(&r2)
}

// closeBody closes the body of a request that is not sent, as a
// RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// hasHeaders reports whether h already holds every fixed header (the hot
// path sets them itself, so no clone is needed).
func (t *headerTransport) hasHeaders(h http.Header) bool {
	if h == nil {
		return false
	}
	sec := t.sec()
	if sec.auth != "" && !sameValue(h, "Authorization", sec.auth) {
		return false
	}
	if !sameValue(h, "User-Agent", sec.uaValue[0]) {
		return false
	}
	for k, vs := range sec.headers {
		if len(h[k]) != len(vs) {
			return false
		}
		for i := range vs {
			if h[k][i] != vs[i] {
				return false
			}
		}
	}
	return true
}

func sameValue(h http.Header, key, v string) bool {
	vs := h[key]
	return len(vs) == 1 && vs[0] == v
}

// setHeaders writes the fixed headers into h.
func (t *headerTransport) setHeaders(h http.Header) {
	sec := t.sec()
	for k, vs := range sec.headers {
		h[k] = append([]string(nil), vs...)
	}
	if sec.auth != "" {
		h["Authorization"] = sec.authValue
	}
	h["User-Agent"] = sec.uaValue
}

// CloseIdleConnections closes the idle connections of the client's own
// transport (below any wrapper, which need not pass the call on).
func (t *headerTransport) CloseIdleConnections() {
	if c, ok := t.raw.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// Format hides the transport's fields (its Authorization value) from every
// formatting verb.
func (t *headerTransport) Format(f fmt.State, _ rune) {
	_, _ = io.WriteString(f, "vespa.headerTransport")
}

// StreamLimit returns the streams the server lets the transport's
// connections open at once, where the transport is govespa's HTTP/2 one and
// has had the server's settings; see feed's adaptive limit.
func (t *headerTransport) StreamLimit() (int, bool) {
	if sl, ok := t.raw.(interface{ StreamLimit() (int, bool) }); ok {
		return sl.StreamLimit()
	}
	return 0, false
}
