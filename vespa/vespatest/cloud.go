package vespatest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/cloudapi"
)

// CloudServer emulates Vespa Cloud's control-plane API (application/v4) on a
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
// in-flight requests end. A CloudServer is safe for concurrent use.
type CloudServer struct {
	api *cloudapi.Server
	srv *httptest.Server
}

// CloudOption configures a [CloudServer].
type CloudOption interface {
	applyCloud(*cloudapi.Config)
}

type cloudOptionFunc func(*cloudapi.Config)

func (f cloudOptionFunc) applyCloud(c *cloudapi.Config) { f(c) }

// CloudWithAPIKey registers an API key, given as its PEM public key or as the
// PEM private key itself. Once one key is registered, only registered keys are
// accepted; without any, every key whose signature verifies is.
func CloudWithAPIKey(pemKey []byte) CloudOption {
	return cloudOptionFunc(func(c *cloudapi.Config) { c.PublicKeys = append(c.PublicKeys, pemKey) })
}

// CloudWithAccessToken accepts "Authorization: Bearer <token>".
func CloudWithAccessToken(token string) CloudOption {
	return cloudOptionFunc(func(c *cloudapi.Config) { c.AccessTokens = append(c.AccessTokens, token) })
}

// CloudWithClock sets the server's clock (default time.Now), which checks
// signature timestamps and paces run logs.
func CloudWithClock(now func() time.Time) CloudOption {
	return cloudOptionFunc(func(c *cloudapi.Config) { c.Now = now })
}

// CloudWithRunStatus sets how runs and production builds end: "success" (the
// default), or a failure such as "deploymentFailed", "installationFailed",
// "outOfCapacity", "endpointCertificateTimeout", "testFailure", "error".
func CloudWithRunStatus(status string) CloudOption {
	return cloudOptionFunc(func(c *cloudapi.Config) { c.RunStatus = status })
}

// CloudWithLogInterval sets the time between a run's log entries (default
// 1 s); a run with n entries ends n intervals after it starts.
func CloudWithLogInterval(d time.Duration) CloudOption {
	return cloudOptionFunc(func(c *cloudapi.Config) { c.LogInterval = d })
}

// CloudWithEndpointURLs sets the data-plane URLs that deployments report for
// their mTLS and token endpoints, such as the URL of a [Server]; an empty
// one takes the other's value. By default they are made-up
// *.z.vespa-app.cloud URLs.
func CloudWithEndpointURLs(mtlsURL, tokenURL string) CloudOption {
	return cloudOptionFunc(func(c *cloudapi.Config) { c.MTLSEndpointURL, c.TokenEndpointURL = mtlsURL, tokenURL })
}

// CloudWithVespaVersion sets the platform version that runs report (default
// "8.0.0").
func CloudWithVespaVersion(v string) CloudOption {
	return cloudOptionFunc(func(c *cloudapi.Config) { c.VespaVersion = v })
}

// StartCloudServer starts a CloudServer on 127.0.0.1 and returns it, or an
// error when an option is invalid (such as a key that is not PEM).
func StartCloudServer(opts ...CloudOption) (*CloudServer, error) {
	var cfg cloudapi.Config
	for _, o := range opts {
		if o != nil {
			o.applyCloud(&cfg)
		}
	}
	api, err := cloudapi.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("vespatest: %w", err)
	}
	return &CloudServer{api: api, srv: httptest.NewServer(api)}, nil
}

// NewCloudServer is [StartCloudServer] for tests and examples: it panics
// when an option is invalid.
func NewCloudServer(opts ...CloudOption) *CloudServer {
	s, err := StartCloudServer(opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// NewCloudTestServer starts a CloudServer that is closed when tb's test ends;
// an invalid option fails the test.
func NewCloudTestServer(tb testing.TB, opts ...CloudOption) *CloudServer {
	tb.Helper()
	s, err := StartCloudServer(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// URL returns the server's base URL, such as "http://127.0.0.1:41234", with
// no trailing slash.
func (s *CloudServer) URL() string { return s.srv.URL }

// Client returns an HTTP client for the server.
func (s *CloudServer) Client() *http.Client { return s.srv.Client() }

// Handler returns the server's handler, to serve it in-process (for example
// under testing/synctest, where a real listener cannot run).
func (s *CloudServer) Handler() http.Handler { return s.api }

// Close shuts the server down, blocking until in-flight requests end.
func (s *CloudServer) Close() { s.srv.Close() }

// SetRunStatus sets how runs and builds started from now on end (see
// [CloudWithRunStatus]).
func (s *CloudServer) SetRunStatus(status string) { s.api.SetRunStatus(status) }

// FailNext makes the next n requests fail with status (such as 503), before
// any authentication, with an {"error-code","message"} body.
func (s *CloudServer) FailNext(n, status int) { s.api.FailNext(n, status) }

// CloudRequest records a request a [CloudServer] answered.
type CloudRequest struct {
	// Method is the request's HTTP method.
	Method string
	// Path is the request's raw path.
	Path string
	// RawQuery is the request's raw query string.
	RawQuery string
	// KeyID is the X-Key-Id of a signed request.
	KeyID string
	// Signed reports that the request's signature verified.
	Signed bool
	// Status is the reply's status.
	Status int
}

// Requests returns the requests answered so far, oldest first.
func (s *CloudServer) Requests() []CloudRequest {
	var out []CloudRequest
	for _, r := range s.api.Requests() {
		out = append(out, CloudRequest{Method: r.Method, Path: r.Path, RawQuery: r.RawQuery, KeyID: r.KeyID, Signed: r.Signed, Status: r.Status})
	}
	return out
}

// CloudDeployment is a deployment a [CloudServer] holds.
type CloudDeployment struct {
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
	// VespaVersion is the platform version.
	VespaVersion string
}

// Deployment returns the deployment of tenant.application.instance in
// env.region, if there is one.
func (s *CloudServer) Deployment(tenant, application, instance, env, region string) (CloudDeployment, bool) {
	d, ok := s.api.Deployment(tenant, application, instance, env, region)
	if !ok {
		return CloudDeployment{}, false
	}
	return CloudDeployment{Tenant: d.Tenant, Application: d.Application, Instance: d.Instance,
		Environment: d.Environment, Region: d.Region, Files: d.Files, VespaVersion: d.VespaVersion}, true
}
