package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/vespatest"
)

// The environment variables that name an external Vespa.
const (
	// envEndpoint is the container's base URL, such as http://localhost:8080.
	envEndpoint = "VESPA_ENDPOINT"
	// envConfigServer is the config server's base URL, such as
	// http://localhost:19071.
	envConfigServer = "VESPA_CONFIG_SERVER"
	// envToken is a data-plane token, sent as a bearer token (optional).
	envToken = "VESPA_TOKEN"
	// envCertFile and envKeyFile are a client certificate and its key, PEM,
	// for mutual TLS with the container and the config server (optional).
	envCertFile = "VESPA_CERT_FILE"
	envKeyFile  = "VESPA_KEY_FILE"
	// envCAFile is the PEM CA that verifies the servers (optional).
	envCAFile = "VESPA_CA_FILE"
	// envCluster is the content cluster of the music documents; default
	// "music", as in testdata/app.
	envCluster = "VESPA_CLUSTER"
)

// externalTarget is a running Vespa named by environment variables. The
// suite deploys testdata/app to it, replacing the application it runs, and
// writes its documents in a namespace of their own, removed at the end.
type externalTarget struct {
	endpoint, configServer, cluster string
	clientOpts                      []vespa.Option
	csOpts                          []deploy.Option
	configHTTP                      *http.Client
	started                         time.Time
}

// startExternalTarget returns the Vespa named by VESPA_ENDPOINT and
// VESPA_CONFIG_SERVER, and skips t when either is unset.
func startExternalTarget(t *testing.T) Target {
	t.Helper()
	endpoint, cs := os.Getenv(envEndpoint), os.Getenv(envConfigServer)
	if endpoint == "" || cs == "" {
		t.Skipf("no external Vespa: set %s and %s to run the suite against one", envEndpoint, envConfigServer)
	}
	x := &externalTarget{
		endpoint:     strings.TrimRight(endpoint, "/"),
		configServer: strings.TrimRight(cs, "/"),
		cluster:      os.Getenv(envCluster),
		started:      time.Now(),
	}
	if x.cluster == "" {
		x.cluster = "music"
	}
	if tok := os.Getenv(envToken); tok != "" {
		x.clientOpts = append(x.clientOpts, vespa.WithToken(tok))
	}
	certFile, keyFile, caFile := os.Getenv(envCertFile), os.Getenv(envKeyFile), os.Getenv(envCAFile)
	if (certFile == "") != (keyFile == "") {
		t.Fatalf("[external] set both %s and %s, or neither", envCertFile, envKeyFile)
	}
	if certFile != "" {
		x.clientOpts = append(x.clientOpts, vespa.WithCertificateFiles(certFile, keyFile))
	}
	if caFile != "" {
		x.clientOpts = append(x.clientOpts, vespa.WithCAFile(caFile))
	}
	hc, err := configServerHTTPClient(certFile, keyFile, caFile)
	if err != nil {
		t.Fatalf("[external] %v", err)
	}
	x.configHTTP = hc
	x.csOpts = []deploy.Option{deploy.WithHTTPClient(hc)}
	return x
}

// configServerHTTPClient returns a client for the config server with the
// given (optional) client certificate and CA.
func configServerHTTPClient(certFile, keyFile, caFile string) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if certFile != "" || caFile != "" {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if certFile != "" {
			cert, err := tls.LoadX509KeyPair(certFile, keyFile)
			if err != nil {
				return nil, fmt.Errorf("client certificate: %w", err)
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		if caFile != "" {
			pem, err := os.ReadFile(caFile)
			if err != nil {
				return nil, fmt.Errorf("CA file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("CA file %s holds no PEM certificate", caFile)
			}
			cfg.RootCAs = pool
		}
		tr.TLSClientConfig = cfg
	}
	return &http.Client{Transport: tr}, nil
}

func (x *externalTarget) Name() string                         { return "external" }
func (x *externalTarget) Endpoint() string                     { return x.endpoint }
func (x *externalTarget) ConfigServer() string                 { return x.configServer }
func (x *externalTarget) Cluster() string                      { return x.cluster }
func (x *externalTarget) ClientOptions() []vespa.Option        { return x.clientOpts }
func (x *externalTarget) ConfigServerOptions() []deploy.Option { return x.csOpts }
func (x *externalTarget) Timeout() time.Duration               { return 15 * time.Minute }

// DumpLogs reads vespa.log since the target was set up through the config
// server's logs API (.../instance/default/logs, TSV lines).
func (x *externalTarget) DumpLogs(ctx context.Context, w io.Writer) error {
	return configServerLogs(ctx, x.configHTTP, x.configServer, x.started, w)
}

// configServerLogs copies the vespa.log lines the config server at base
// holds for the default application since from to w.
func configServerLogs(ctx context.Context, hc *http.Client, base string, from time.Time, w io.Writer) error {
	u := base + "/application/v2/tenant/default/application/default/environment/prod/region/default/instance/default/logs?from=" +
		strconv.FormatInt(from.Add(-time.Minute).UnixMilli(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	var resp *http.Response
	if err == nil {
		resp, err = hc.Do(req)
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	_, err = io.Copy(w, io.LimitReader(resp.Body, 64<<20))
	return err
}

// deployHealthURLs leaves the container's health to the data-plane client
// when it needs a token, which the config-server client does not send.
func (x *externalTarget) deployHealthURLs() []string {
	if os.Getenv(envToken) != "" {
		return []string{}
	}
	return []string{x.endpoint}
}

// TestExternalTarget_Environment points the external target's environment
// variables at an emulator that requires a data-plane token, and runs a small
// suite through it: the external target works as documented, token
// included.
func TestExternalTarget_Environment(t *testing.T) {
	const token = "integration-test-token"
	srv := vespatest.NewTestServer(t, vespatest.WithToken(token))
	t.Setenv(envEndpoint, srv.URL())
	t.Setenv(envConfigServer, srv.ConfigServerURL())
	t.Setenv(envToken, token)
	t.Setenv(envCluster, "")
	t.Setenv(envCertFile, "")
	t.Setenv(envKeyFile, "")
	t.Setenv(envCAFile, "")
	tg := startExternalTarget(t)
	if tg.Endpoint() != srv.URL() || tg.ConfigServer() != srv.ConfigServerURL() || tg.Cluster() != "music" {
		t.Fatalf("external target: endpoint %s, config server %s, cluster %s; want the emulator's and music",
			tg.Endpoint(), tg.ConfigServer(), tg.Cluster())
	}
	runSuite(t, tg, 200)
}
