package vespatest

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/configserver"
	"github.com/govespa/govespa/vespa/vespatest/internal/docapi"
	"github.com/govespa/govespa/vespa/vespatest/internal/docid"
	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
	"github.com/govespa/govespa/vespa/vespatest/internal/store"
)

// Server is a running emulator: the container API (document/v1, /search/,
// health) on one listener and, on demand, the config-server API on another.
// All methods are safe for concurrent use.
type Server struct {
	cfg      config
	app      atomic.Pointer[schema.Application]
	store    *store.Store
	docs     *docapi.Backend // /document/v1
	faults   *fault.Set
	health   atomic.Pointer[string]
	sessions atomic.Int64 // last deploy session id

	ln      net.Listener
	srv     *http.Server
	url     string
	handler http.Handler
	search  http.Handler
	creds   *credentials // nil without TLS

	clientOnce sync.Once
	client     *http.Client

	cfgMu     sync.Mutex
	cfgServer *configserver.Server
	cfgClosed bool // Close has run: no config server starts after it

	closeOnce sync.Once
	served    chan struct{} // closed when the Serve goroutine returns
}

// NewServer starts an emulator on a free loopback port and returns it. It
// panics if the options are invalid or the listener cannot be opened, as
// httptest.NewServer does; use [Start] to get an error instead. Close it when
// done.
//
// When a test binary is run with -vespatest.serve=addr (for example
// go test -run TestX -timeout 0 -vespatest.serve=127.0.0.1:8080), NewServer,
// [NewTestServer] and [Start] listen on addr instead, print to stderr where
// the emulator serves and how to point Vespa's CLI and curl at it, and block
// forever, as httptest.NewServer does with -httptest.serve: the failing
// test's emulator stays up, with the schemas and application package its
// options gave it, until the process is interrupted. The test's code after
// NewServer does not run. The flag exists only in binaries built by go test,
// and only when given; programs importing this package get no flag.
func NewServer(opts ...Option) *Server {
	s, err := Start(opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// NewTestServer starts an emulator for one test: it fails tb at once on an
// error, closes the server in tb.Cleanup and sends the server's log to tb.Log.
func NewTestServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	// tb.Output writes to the test's log as tb.Log does, one entry a line,
	// without the file:line of this package that tb.Log would show.
	logger := slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := Start(append([]Option{WithLogger(logger)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Start is [NewServer] returning an error instead of panicking.
func Start(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(&cfg); err != nil {
			return nil, err
		}
	}
	if err := schema.ValidateSchemas(cfg.schemas); err != nil {
		return nil, err
	}
	if serveAddr != "" {
		cfg.addr = serveAddr // -vespatest.serve: a person will point a client here
	}
	s := &Server{cfg: cfg, store: store.New(), faults: fault.NewSet(cfg.seed)}
	s.docs = &docapi.Backend{Store: s.store, Application: &s.app, Faults: s.faults,
		IgnoreUndefined: cfg.ignoreUndefined, MaxRequestBytes: cfg.maxRequestBytes}
	for _, r := range cfg.faults {
		s.faults.Add(r)
	}
	health := cfg.health
	s.health.Store(&health)
	clusters := []schema.Cluster{{Name: cfg.cluster}}
	app, err := schema.NewApplication(cfg.schemas, clusters, 1)
	if err != nil {
		return nil, fmt.Errorf("vespatest: %w", err)
	}
	app.QueryProfile = cfg.queryProfile
	s.app.Store(app)
	if cfg.appDir != "" {
		pkg, err := schema.ReadApplicationDir(cfg.appDir)
		if err != nil {
			return nil, err
		}
		if err := s.activate(pkg); err != nil {
			return nil, err
		}
	}
	s.search = newSearchMount(s)
	s.handler = s.routes()

	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("vespatest: listen on %s: %w", cfg.addr, err)
	}
	s.ln = ln
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	s.srv = &http.Server{
		Handler:           s.handler,
		Protocols:         &protocols,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(slogWriter{cfg.logger}, "", 0),
	}
	scheme := "http"
	if cfg.tls {
		creds, err := newCredentials()
		if err != nil {
			_ = ln.Close() // the credentials error is the one to report
			return nil, err
		}
		s.creds = creds
		protocols.SetHTTP2(true)
		s.srv.TLSConfig = creds.serverConfig(cfg.mtls)
		ln = tls.NewListener(ln, s.srv.TLSConfig)
		scheme = "https"
	}
	s.url = scheme + "://" + s.ln.Addr().String()
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.logger.Error("vespatest: serve", "err", err)
		}
	}()
	if cfg.configAddr != "" {
		if _, err := s.startConfigServer(cfg.configAddr); err != nil {
			s.Close()
			return nil, err
		}
	}
	cfg.logger.Info("vespatest: started", "url", s.url, "lenient", s.app.Load().Lenient())
	if serveAddr != "" {
		serveForever(s)
	}
	return s, nil
}

type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Debug(string(p))
	return len(p), nil
}

// URL returns the base URL of the container API, e.g. "http://127.0.0.1:41234",
// without a trailing slash.
func (s *Server) URL() string { return s.url }

// Handler returns the container API as an http.Handler, for use without the
// listener (in an httptest.ResponseRecorder, say). It shares the server's
// documents, schemas and faults.
func (s *Server) Handler() http.Handler { return s.handler }

// Client returns an HTTP client for the container API. With TLS it trusts the
// server's CA and presents a client certificate; with a token it sends it.
// Plain servers are spoken to over HTTP/1.1; the server also accepts
// prior-knowledge h2c. The client loses its idle connections on Close.
func (s *Server) Client() *http.Client {
	s.clientOnce.Do(func() {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if s.creds != nil {
			tr.TLSClientConfig = s.creds.clientConfig()
			tr.ForceAttemptHTTP2 = true
		}
		var rt http.RoundTripper = tr
		if s.cfg.token != "" {
			rt = bearer{token: s.cfg.token, next: tr}
		}
		s.client = &http.Client{Transport: rt}
	})
	return s.client
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Close shuts the server down, waiting up to five seconds for requests in
// flight, then closing what remains. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close() // shutting down anyway: a close error has no one to go to
		}
		<-s.served
		s.cfgMu.Lock()
		s.cfgClosed = true
		if s.cfgServer != nil {
			s.cfgServer.Close(ctx)
		}
		s.cfgMu.Unlock()
		if s.client != nil {
			s.client.CloseIdleConnections()
		}
	})
}

// Document returns the stored fields of a document as a JSON object, for
// assertions in tests. id is a full document ID such as "id:ns:music::a".
func (s *Server) Document(id string) (json.RawMessage, bool) {
	d, err := docid.Parse(id)
	if err != nil {
		return nil, false
	}
	e, ok := s.store.Get(d)
	if !ok {
		return nil, false
	}
	return json.RawMessage(e.Fields), true
}

// DocumentCount returns the number of stored documents (tombstones excluded).
func (s *Server) DocumentCount() int { return s.store.Count() }

// PutDocument stores a document directly, bypassing HTTP and faults, to seed
// tests. fields is a JSON object validated against the schema as a put is.
func (s *Server) PutDocument(id string, fields json.RawMessage) error {
	d, err := docid.Parse(id)
	if err != nil {
		return fmt.Errorf("vespatest: %w", err)
	}
	app := s.app.Load()
	sch, ok := app.Schema(d.DocType)
	if !ok {
		return fmt.Errorf("vespatest: Document type %s does not exist", d.DocType)
	}
	norm, _, err := docapi.NormalizeFields(sch, fields, false)
	if err != nil {
		return fmt.Errorf("vespatest: %w", err)
	}
	return s.store.Mutate(d, func([]byte, bool) ([]byte, bool, error) { return norm, true, nil })
}

// activate makes a package the deployed application.
func (s *Server) activate(pkg *schema.AppPackage) error {
	gen := s.sessions.Load()
	if gen < 1 {
		gen = 1
	}
	clusters := pkg.Clusters
	if len(clusters) == 0 {
		clusters = []schema.Cluster{{Name: s.cfg.cluster}}
	}
	schemas := pkg.Schemas
	if !pkg.HasServices && len(schemas) == 0 {
		schemas = s.cfg.schemas
	}
	app, err := schema.NewApplication(schemas, clusters, gen)
	if err != nil {
		return fmt.Errorf("vespatest: %w", err)
	}
	app.QueryProfile = pkg.QueryProfile
	if !pkg.HasServices && pkg.QueryProfile == nil {
		app.QueryProfile = s.cfg.queryProfile
	}
	s.app.Store(app)
	s.cfg.logger.Info("vespatest: application activated", "generation", gen, "schemas", len(schemas))
	return nil
}
