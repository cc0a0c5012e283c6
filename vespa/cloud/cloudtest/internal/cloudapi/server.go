package cloudapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config configures a Server. The zero value is usable.
type Config struct {
	// Now is the server's clock; nil means time.Now.
	Now func() time.Time
	// PublicKeys are the API keys (PEM public keys, or private keys whose
	// public half is meant) whose signatures are accepted. Empty accepts any
	// key whose signature verifies.
	PublicKeys [][]byte
	// AccessTokens are the accepted bearer access tokens.
	AccessTokens []string
	// RunStatus is how runs and production builds end; "" means "success".
	RunStatus string
	// LogInterval is the time between a run's log entries; 0 means 1 s.
	LogInterval time.Duration
	// MTLSEndpointURL and TokenEndpointURL are the data-plane URLs reported
	// for deployments; "" means a made-up *.z.vespa-app.cloud URL. When only
	// one is set it serves both.
	MTLSEndpointURL, TokenEndpointURL string
	// VespaVersion is the platform version runs report; "" means "8.0.0".
	VespaVersion string

	keys [][]byte // DER of PublicKeys
}

// Request records one request the server answered; its fields are
// documented on cloudtest.Request, which converts to it as it is.
type Request struct {
	Method, Path, RawQuery, KeyID string
	Signed                        bool // the signature verified
	Status                        int
	Dropped                       bool // acted on, and the reply dropped (DropReplies)
}

// Server is the emulated control plane. It is safe for concurrent use.
type Server struct {
	cfg Config

	mu          sync.Mutex
	runStatus   string
	runs        map[string][]*run           // by tenant/application/instance/job, oldest first
	deployments map[string]*Deployment      // by tenant/application/instance/env/region
	builds      map[string]map[int64]*build // by tenant/application
	faults      []int                       // statuses of the next replies to fail
	drops       int                         // replies still to drop after acting
	requests    []Request
	tokens      int
}

// Deployment is a deployment the server holds; its fields are documented
// on cloudtest.Deployment, which converts to it as it is.
type Deployment struct {
	Tenant, Application, Instance string
	Environment, Region           string
	Files                         []string // sorted
	VespaVersion                  string
}

// New returns a server configured by cfg, or an error when a public key does
// not parse.
func New(cfg Config) (*Server, error) {
	for i, k := range cfg.PublicKeys {
		der, ok := publicKeyDER(k)
		if !ok {
			return nil, fmt.Errorf("cloudapi: public key %d is not a PEM public or private key", i)
		}
		cfg.keys = append(cfg.keys, der)
	}
	if cfg.LogInterval <= 0 {
		cfg.LogInterval = time.Second
	}
	if cfg.VespaVersion == "" {
		cfg.VespaVersion = "8.0.0"
	}
	if cfg.MTLSEndpointURL == "" {
		cfg.MTLSEndpointURL = cfg.TokenEndpointURL
	}
	if cfg.TokenEndpointURL == "" {
		cfg.TokenEndpointURL = cfg.MTLSEndpointURL
	}
	status := cfg.RunStatus
	if status == "" {
		status = "success"
	}
	return &Server{
		cfg:         cfg,
		runStatus:   status,
		runs:        map[string][]*run{},
		deployments: map[string]*Deployment{},
		builds:      map[string]map[int64]*build{},
	}, nil
}

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}

// SetRunStatus sets how runs and builds started from now on end.
func (s *Server) SetRunStatus(status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runStatus = status
}

// FailNext makes the next n requests fail with status (before
// authentication), answered {"error-code":"INTERNAL_SERVER_ERROR",...}.
func (s *Server) FailNext(n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, status)
	}
}

// DropReplies makes the server act on each of the next n requests as usual,
// then close the connection instead of answering: the reply is lost, as when
// a network fails after the server did its work.
func (s *Server) DropReplies(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drops += n
}

// Requests returns the requests answered so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Deployment returns the deployment of tenant.application.instance in
// env.region.
func (s *Server) Deployment(tenant, application, instance, env, region string) (Deployment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.deployments[strings.Join([]string{tenant, application, instance, env, region}, "/")]
	if !ok {
		return Deployment{}, false
	}
	return *d, true
}

// maxBody bounds request bodies.
const maxBody = 256 << 20

// ServeHTTP answers a control-plane request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery}
	status, reply := s.serve(r, rec)
	rec.Status = status
	s.mu.Lock()
	drop := s.drops > 0
	if drop {
		s.drops--
		rec.Dropped = true
	}
	s.requests = append(s.requests, *rec)
	s.mu.Unlock()
	if drop {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
			return
		}
		panic(http.ErrAbortHandler) // no hijacking (HTTP/2): abort the stream
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(reply)
}

// serve answers r with a status and a JSON value.
func (s *Server) serve(r *http.Request, rec *Request) (int, any) {
	s.mu.Lock()
	if len(s.faults) > 0 {
		status := s.faults[0]
		s.faults = s.faults[1:]
		s.mu.Unlock()
		return status, errorBody("INTERNAL_SERVER_ERROR", "injected fault")
	}
	s.mu.Unlock()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", "reading body: "+err.Error())
	}
	auth := s.authenticate(r, body)
	rec.KeyID, rec.Signed = auth.keyID, auth.signed
	if auth.status != 0 {
		return auth.status, map[string]any{"code": auth.status, "message": auth.message}
	}
	if auth.signed && !contentHashMatches(r, body) {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", "Value of X-Content-Hash header does not match computed content hash")
	}
	p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(p) == 2 && p[0] == "cli" && p[1] == "v1" && r.Method == http.MethodGet {
		return http.StatusOK, map[string]any{"minVersion": "8.0.0"}
	}
	if len(p) < 4 || p[0] != "application" || p[1] != "v4" || p[2] != "tenant" {
		return http.StatusNotFound, errorBody("NOT_FOUND", "Nothing at '"+r.URL.Path+"'")
	}
	tenant := p[3]
	if auth.signed && !keyCovers(auth.keyID, p) {
		return http.StatusForbidden, map[string]any{"code": http.StatusForbidden, "message": "Access denied"}
	}
	rest := p[4:]
	switch {
	case len(rest) == 2 && rest[0] == "token" && r.Method == http.MethodPost:
		return s.createToken(tenant, rest[1])
	case len(rest) < 2 || rest[0] != "application":
		return http.StatusNotFound, errorBody("NOT_FOUND", "Nothing at '"+r.URL.Path+"'")
	}
	app := rest[1]
	rest = rest[2:]
	switch {
	case len(rest) == 1 && rest[0] == "submit" && r.Method == http.MethodPost:
		return s.submit(r, body, tenant, app)
	case len(rest) == 2 && rest[0] == "build-status" && r.Method == http.MethodGet:
		return s.buildStatus(tenant, app, rest[1])
	case len(rest) < 2 || rest[0] != "instance":
		return http.StatusNotFound, errorBody("NOT_FOUND", "Nothing at '"+r.URL.Path+"'")
	}
	id := appID{tenant, app, rest[1]}
	rest = rest[2:]
	switch {
	case len(rest) == 2 && rest[0] == "deploy" && r.Method == http.MethodPost:
		return s.deploy(r, body, id, rest[1])
	case len(rest) == 4 && rest[0] == "job" && rest[2] == "run" && r.Method == http.MethodGet:
		return s.runDetails(id, rest[1], rest[3], r.URL.Query().Get("after"))
	case len(rest) == 2 && rest[0] == "job" && r.Method == http.MethodGet:
		return s.listRuns(id, rest[1])
	case len(rest) == 2 && rest[0] == "job" && r.Method == http.MethodDelete:
		return s.abort(id, rest[1])
	case len(rest) == 4 && rest[0] == "environment" && rest[2] == "region":
		switch r.Method {
		case http.MethodGet:
			return s.deploymentInfo(id, rest[1], rest[3])
		case http.MethodDelete:
			return s.deactivate(id, rest[1], rest[3])
		}
		return http.StatusMethodNotAllowed, errorBody("METHOD_NOT_ALLOWED", "Method '"+r.Method+"' is not supported")
	}
	return http.StatusNotFound, errorBody("NOT_FOUND", "Nothing at '"+r.URL.Path+"'")
}

// keyCovers reports whether an API key id (tenant:application:instance) may
// act on the tenant and application of path p.
func keyCovers(keyID string, p []string) bool {
	parts := strings.Split(keyID, ":")
	if len(parts) != 3 || parts[0] != p[3] {
		return false
	}
	return len(p) < 6 || p[4] != "application" || parts[1] == p[5]
}

// appID is tenant, application and instance.
type appID struct{ tenant, application, instance string }

func (a appID) String() string { return a.tenant + "." + a.application + "." + a.instance }

func (a appID) key(more ...string) string {
	return strings.Join(append([]string{a.tenant, a.application, a.instance}, more...), "/")
}

func errorBody(code, message string) map[string]any {
	return map[string]any{"error-code": code, "message": message}
}

// splitJob splits a job name, such as dev-aws-us-east-1c or
// production-aws-us-east-1c, into an environment and a region.
func splitJob(job string) (env, region string, err error) {
	env, region, ok := strings.Cut(job, "-")
	if !ok || region == "" {
		return "", "", errors.New("invalid job name '" + job + "'")
	}
	if env == "production" {
		env = "prod"
	}
	return env, region, nil
}

func parseID(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}
