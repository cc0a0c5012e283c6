package cloudtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/cloud/cloudtest/internal/cloudapi"
)

// Server emulates Vespa Cloud's control-plane API (application/v4) on a
// loopback port, for deployment scripts and their tests: it verifies API-key
// signatures as the controller does (ECDSA P-256 over method, URL, timestamp
// and content hash; more than 5 minutes of clock skew, an unknown key or a bad
// signature gets 401 "Access denied", a key of another tenant or application
// 403), accepts dev and perf deployments whose runs log one entry per log
// interval and end in a chosen status, lists endpoints, deactivates
// deployments, takes production submissions whose builds finish after three
// log intervals, and creates data-plane tokens. Replies are shaped as the
// controller's.
//
// Like httptest.Server, URL has no trailing slash and Close blocks until
// in-flight requests end. A Server is safe for concurrent use.
type Server struct {
	api *cloudapi.Server
	srv *httptest.Server
}

// Option configures a [Server].
type Option interface {
	apply(*cloudapi.Config)
}

type optionFunc func(*cloudapi.Config)

func (f optionFunc) apply(c *cloudapi.Config) { f(c) }

// WithAPIKey registers an API key, given as its PEM public key or as the
// PEM private key itself. Once one key is registered, only registered keys are
// accepted; without any, every key whose signature verifies is.
func WithAPIKey(pemKey []byte) Option {
	return optionFunc(func(c *cloudapi.Config) { c.PublicKeys = append(c.PublicKeys, pemKey) })
}

// WithAccessToken accepts "Authorization: Bearer <token>".
func WithAccessToken(token string) Option {
	return optionFunc(func(c *cloudapi.Config) { c.AccessTokens = append(c.AccessTokens, token) })
}

// WithClock sets the server's clock (default time.Now), which checks
// signature timestamps and paces run logs.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c *cloudapi.Config) { c.Now = now })
}

// WithRunStatus sets how runs and production builds end: "success" (the
// default), or a failure such as "deploymentFailed", "installationFailed",
// "outOfCapacity", "endpointCertificateTimeout", "testFailure", "error".
func WithRunStatus(status string) Option {
	return optionFunc(func(c *cloudapi.Config) { c.RunStatus = status })
}

// WithLogInterval sets the time between a run's log entries (default
// 1 s); a run with n entries ends n intervals after it starts.
func WithLogInterval(d time.Duration) Option {
	return optionFunc(func(c *cloudapi.Config) { c.LogInterval = d })
}

// WithEndpointURLs sets the data-plane URLs that deployments report for
// their mTLS and token endpoints, such as the URL of a vespatest.Server; an empty
// one takes the other's value. By default they are made-up
// *.z.vespa-app.cloud URLs.
func WithEndpointURLs(mtlsURL, tokenURL string) Option {
	return optionFunc(func(c *cloudapi.Config) { c.MTLSEndpointURL, c.TokenEndpointURL = mtlsURL, tokenURL })
}

// WithVespaVersion sets the platform version that runs report (default
// "8.0.0").
func WithVespaVersion(v string) Option {
	return optionFunc(func(c *cloudapi.Config) { c.VespaVersion = v })
}

// StartServer starts a Server on 127.0.0.1 and returns it, or an
// error when an option is invalid (such as a key that is not PEM).
func StartServer(opts ...Option) (*Server, error) {
	var cfg cloudapi.Config
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	api, err := cloudapi.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("cloudtest: %w", err)
	}
	return &Server{api: api, srv: httptest.NewServer(api)}, nil
}

// NewServer is [StartServer] for tests and examples: it panics
// when an option is invalid.
func NewServer(opts ...Option) *Server {
	s, err := StartServer(opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// NewTestServer starts a Server that is closed when tb's test ends;
// an invalid option fails the test.
func NewTestServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := StartServer(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// URL returns the server's base URL, such as "http://127.0.0.1:41234", with
// no trailing slash.
func (s *Server) URL() string { return s.srv.URL }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Handler returns the server's handler, to serve it in-process (for example
// under testing/synctest, where a real listener cannot run).
func (s *Server) Handler() http.Handler { return s.api }

// Close shuts the server down, blocking until in-flight requests end.
func (s *Server) Close() { s.srv.Close() }

// SetRunStatus sets how runs and builds started from now on end (see
// [WithRunStatus]).
func (s *Server) SetRunStatus(status string) { s.api.SetRunStatus(status) }

// FailNext makes the next n requests fail with status (such as 503), before
// any authentication, with an {"error-code","message"} body.
func (s *Server) FailNext(n, status int) { s.api.FailNext(n, status) }

// DropReplies makes the server act on each of the next n requests as usual
// (start the run, take the submission, create the token), then close the
// connection instead of answering: the reply is lost after the work was
// done, the case in which a client must not send again.
func (s *Server) DropReplies(n int) { s.api.DropReplies(n) }

// Request records a request a [Server] answered: its method, path, query,
// key ID, whether its signature verified, the reply's status, and whether
// that reply was dropped (see [Server.DropReplies]).
type Request struct {
	// Method is the request's HTTP method.
	Method string
	// Path is the request's raw path.
	Path string
	// RawQuery is the request's raw query string.
	RawQuery string
	// KeyID is the X-Key-Id of a signed request.
	KeyID string
	// Signed reports that the request carried a signature that verified.
	Signed bool
	// Status is the status of the reply.
	Status int
	// Dropped reports that the request was acted on and its reply dropped:
	// the connection was closed instead (see [Server.DropReplies]).
	Dropped bool
}

// Requests returns the requests answered so far, oldest first.
func (s *Server) Requests() []Request {
	rs := s.api.Requests()
	out := make([]Request, len(rs))
	for i, r := range rs {
		out[i] = Request(r) // the emulator's record has the same fields
	}
	return out
}

// Deployment is a deployment a [Server] holds: the application and zone it
// is of, the paths of its package's files (sorted) and its pinned Vespa
// version, if any.
type Deployment struct {
	// Tenant, Application and Instance name the application.
	Tenant string
	// Application is the application's name; see Tenant.
	Application string
	// Instance is the instance's name; see Tenant.
	Instance string
	// Environment is the zone's environment, such as "dev".
	Environment string
	// Region is the zone's region, such as "aws-us-east-1c".
	Region string
	// Files are the paths of the deployed package's files, sorted.
	Files []string
	// VespaVersion is the pinned version, if any.
	VespaVersion string
}

// Deployment returns the deployment of tenant.application.instance in
// env.region, if there is one.
func (s *Server) Deployment(tenant, application, instance, env, region string) (Deployment, bool) {
	d, ok := s.api.Deployment(tenant, application, instance, env, region)
	return Deployment(d), ok // the emulator's record has the same fields
}
