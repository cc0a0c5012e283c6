package vespatest

import (
	"fmt"
	"log/slog"
	"maps"

	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

// Option configures a [Server]. Options are sealed: only this package makes them.
type Option interface {
	apply(*config) error
}

// WithSchema declares document types. Without any schema (and without an
// application package) the server runs in lenient mode: it accepts every
// document type and field. With schemas, unknown document types and fields are
// rejected with 400 as Vespa rejects them. Several calls add up.
func WithSchema(schemas ...Schema) Option {
	return always(func(c *config) {
		for _, s := range schemas {
			c.schemas = append(c.schemas, s.model())
		}
	})
}

// WithApplicationDir reads an application package from dir at start: the
// field names and types of schemas/*.sd, and the content cluster IDs and
// document types of services.xml. Everything else in the package is ignored.
func WithApplicationDir(dir string) Option {
	return nonEmpty("WithApplicationDir", "directory", dir, func(c *config) { c.appDir = dir })
}

// WithQueryProfile sets fields of the default query profile, as an
// application package's search/query-profiles/default.xml does (which
// [WithApplicationDir] and deploys read, and which replaces these). Of its
// fields the emulator reads only grouping.globalMaxGroups: Vespa refuses a
// grouping whose theoretical size exceeds it (10000 by default; -1 turns the
// check off, as for max(inf)), and refuses it as a request parameter.
// Several calls add up.
func WithQueryProfile(fields map[string]string) Option {
	return always(func(c *config) {
		if c.queryProfile == nil {
			c.queryProfile = map[string]string{}
		}
		maps.Copy(c.queryProfile, fields)
	})
}

// WithAddr sets the address the container API listens on. The default is
// "127.0.0.1:0", a free loopback port.
func WithAddr(addr string) Option {
	return always(func(c *config) { c.addr = addr })
}

// WithConfigServerAddr starts the config-server API (deploy, serviceconverge)
// at once on addr, e.g. "127.0.0.1:19071". Without it the config server starts
// on a free loopback port the first time [Server.ConfigServerURL] is called.
func WithConfigServerAddr(addr string) Option {
	return nonEmpty("WithConfigServerAddr", "address", addr, func(c *config) { c.configAddr = addr })
}

// WithContentCluster names the content cluster (default "content") when no
// services.xml names it. It is the value of the cluster parameter.
func WithContentCluster(name string) Option {
	return nonEmpty("WithContentCluster", "name", name, func(c *config) { c.cluster = name })
}

// WithMaxRequestBytes sets the largest /document/v1 POST or PUT body
// accepted; larger bodies get 413 with Vespa's message. The size is counted
// after gzip inflation. The default is Vespa's, 100 MiB; n <= 0 keeps it.
func WithMaxRequestBytes(n int64) Option {
	return optionFunc(func(c *config) error {
		if n > 0 {
			c.maxRequestBytes = n
		}
		return nil
	})
}

// WithIgnoreUndefinedFields makes puts and updates drop fields their schema
// does not have and answer with the header X-Vespa-Ignored-Fields: true, as
// Vespa does with <ignore-undefined-fields>true</ignore-undefined-fields>.
// By default such fields give 400.
func WithIgnoreUndefinedFields() Option {
	return always(func(c *config) { c.ignoreUndefined = true })
}

// WithFaults installs fault rules at start, as [Server.AddFault] does.
func WithFaults(rules ...FaultRule) Option {
	return optionFunc(func(c *config) error {
		for _, r := range rules {
			m := r.model()
			if err := m.Validate(); err != nil {
				return err
			}
			c.faults = append(c.faults, m)
		}
		return nil
	})
}

// WithSeed seeds the random source of rate-based faults, so that a run can be
// repeated exactly. The default seed is 1.
func WithSeed(seed uint64) Option {
	return always(func(c *config) { c.seed = seed })
}

// WithHealth sets the initial /state/v1/health status code: "up" (the
// default), "initializing" or "down". /status.html answers 200 only when the
// status is "up". See [Server.SetHealth].
func WithHealth(code string) Option {
	return optionFunc(func(c *config) error {
		if !validHealth(code) {
			return fmt.Errorf("vespatest: WithHealth: unknown status code %q", code)
		}
		c.health = code
		return nil
	})
}

// WithTLS serves HTTPS (HTTP/1.1 and HTTP/2 through ALPN) with a certificate
// for 127.0.0.1 and localhost signed by a CA generated for this server. The
// CA is available from [Server.CACertificatePEM]; [Server.Client] trusts it.
func WithTLS() Option {
	return always(func(c *config) { c.tls = true })
}

// WithClientCertificates requires TLS clients to present a certificate signed
// by the server's CA (mutual TLS, as Vespa Cloud's data plane). It implies
// [WithTLS]. [Server.Client] presents a valid certificate; for other clients,
// see [Server.ClientCertificatePEM].
func WithClientCertificates() Option {
	return always(func(c *config) { c.tls, c.mtls = true, true })
}

// WithToken requires "Authorization: Bearer <token>" on every container
// request (Vespa Cloud's token endpoints); a missing or wrong token gets 403.
// [Server.Client] sends it. The token never appears in logs or errors.
func WithToken(token string) Option {
	return nonEmpty("WithToken", "token", token, func(c *config) { c.token = token })
}

// WithLogger sends the server's log lines (start, deploys, HTTP server
// errors) to l. The default discards them.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) error {
		if l != nil {
			c.logger = l
		}
		return nil
	})
}

type optionFunc func(*config) error

func (f optionFunc) apply(c *config) error { return f(c) }

// always makes an option that cannot fail.
func always(set func(*config)) Option {
	return optionFunc(func(c *config) error {
		set(c)
		return nil
	})
}

// nonEmpty makes the option name, whose value v (a what) must not be empty.
func nonEmpty(name, what, v string, set func(*config)) Option {
	return optionFunc(func(c *config) error {
		if v == "" {
			return fmt.Errorf("vespatest: %s: empty %s", name, what)
		}
		set(c)
		return nil
	})
}

// config is the result of applying options.
type config struct {
	schemas         []schema.Schema
	appDir          string
	addr            string
	configAddr      string
	cluster         string
	maxRequestBytes int64
	ignoreUndefined bool
	faults          []fault.Rule
	seed            uint64
	health          string
	tls, mtls       bool
	token           string
	logger          *slog.Logger
	queryProfile    map[string]string
}

func defaultConfig() config {
	return config{
		addr:            "127.0.0.1:0",
		cluster:         schema.DefaultCluster,
		maxRequestBytes: 100 << 20,
		seed:            1,
		health:          healthUp,
		logger:          slog.New(slog.DiscardHandler),
	}
}
