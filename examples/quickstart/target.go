package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/govespa/govespa/internal/credflags"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/vespatest"
)

// modulePath is the module whose integration suite holds the music application.
const modulePath = "github.com/govespa/govespa"

// appInModule is the music application package, relative to the module root.
const appInModule = "integration/testdata/app"

// target is the Vespa the quickstart runs against.
type target struct {
	name    string // what the report calls it
	client  *vespa.Client
	cluster string
	close   func()
}

// connect returns a client of the Vespa named by VESPA_ENDPOINT, with the
// credentials of VESPA_TOKEN, VESPA_CERT_FILE and VESPA_KEY_FILE, and
// VESPA_CA_FILE: the variables of the integration suite. VESPA_CERT,
// VESPA_KEY and VESPA_CA are accepted as well.
func connect(o options) (*target, error) {
	var creds credflags.Credentials // no flags: everything from the environment
	opts, err := creds.Options()
	if err != nil {
		return nil, err
	}
	c, err := vespa.NewClient(o.endpoint, append(opts, vespa.WithHTTPVersion(vespa.HTTP2))...)
	if err != nil {
		return nil, err
	}
	return &target{name: o.endpoint, client: c, cluster: o.cluster, close: func() { c.Close() }}, nil
}

// startEmulator starts the in-process emulator and gives it the music
// application: the package in o.app, or else the one of the integration suite
// found by walking up from the working directory to the module root, deployed
// through the emulator's config server as to a real Vespa. Without a package
// (the program was copied out of the module) it declares the music schema in
// Go instead. It returns a line saying which it did.
func startEmulator(ctx context.Context, o options) (*target, string, error) {
	app := o.app
	if app == "" {
		app = findApp()
	}
	var srvOpts []vespatest.Option
	if app == "" {
		srvOpts = append(srvOpts, vespatest.WithSchema(musicSchema()), vespatest.WithContentCluster(o.cluster))
	}
	srv, err := vespatest.Start(srvOpts...) //nolint:contextcheck // an emulator, like an httptest server, lives until Close, not for a context
	if err != nil {
		return nil, "", err
	}
	c, err := vespa.NewClient(srv.URL(), vespa.WithHTTPVersion(vespa.HTTP2))
	if err != nil {
		srv.Close()
		return nil, "", err
	}
	t := &target{name: "the emulator at " + srv.URL(), client: c, cluster: o.cluster, close: func() { c.Close(); srv.Close() }}
	if app == "" {
		return t, "music schema declared in Go (no application package found)", nil
	}
	start := time.Now()
	if err := deployApp(ctx, srv.ConfigServerURL(), app); err != nil { //nolint:contextcheck // the config server lives until srv.Close, like srv
		t.close()
		return nil, "", err
	}
	return t, fmt.Sprintf("%s deployed through the config server in %v", rel(app), time.Since(start).Round(time.Millisecond)), nil
}

// deployApp deploys the application package in dir to the config server at url
// and waits until it serves.
func deployApp(ctx context.Context, url, dir string) error {
	pkg, err := deploy.NewPackage(dir)
	if err != nil {
		return err
	}
	cs, err := deploy.NewConfigServer(url, deploy.WithPollInterval(20*time.Millisecond))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = cs.DeployAndWait(ctx, pkg, deploy.Params{})
	return err
}

// findApp returns the music application package of the module that holds the
// working directory, or "" when there is none: it walks up to the go.mod of
// govespa's module.
func findApp() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for range 64 { // bounded: no path is that deep
		// The examples have a module of their own inside the SDK's: walk
		// past any go.mod that is not the SDK's.
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(mod, []byte("module "+modulePath+"\n")) {
			app := filepath.Join(dir, filepath.FromSlash(appInModule))
			if _, err := os.Stat(filepath.Join(app, "services.xml")); err != nil {
				return ""
			}
			return app
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// rel returns path relative to the working directory when that is shorter.
func rel(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if r, err := filepath.Rel(wd, path); err == nil && len(r) < len(path) {
		return r
	}
	return path
}

// musicSchema is the document part of integration/testdata/app's music
// schema, for when the package itself is not at hand.
func musicSchema() vespatest.Schema {
	return vespatest.Schema{Name: "music", Fields: []vespatest.Field{
		{Name: "title", Type: "string", Indexed: true},
		{Name: "year", Type: "int"},
		{Name: "popularity", Type: "int"},
		{Name: "tags", Type: "array<string>"},
		{Name: "embedding", Type: "tensor<float>(x[384])", Indexed: true, DistanceMetric: "angular"},
	}}
}
