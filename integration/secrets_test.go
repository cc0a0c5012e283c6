package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/models"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/vespatest"
)

// secretSink collects everything a run shows: log records of every level
// (text and JSON renderings) and the formatted errors and values the test
// adds. It is safe for concurrent use.
type secretSink struct{ testutil.SyncBuffer }

// logger returns a logger at the lowest level there is, writing each record
// to the sink as text and as JSON (testutil.TextAndJSONLogger).
func (s *secretSink) logger() *slog.Logger { return testutil.TextAndJSONLogger(s) }

// value records v under every formatting verb a user might print it with.
func (s *secretSink) value(label string, v any) {
	fmt.Fprintf(s, "%s: %v | %+v | %s\n", label, v, v, v)
	if st, ok := v.(fmt.Stringer); ok {
		fmt.Fprintf(s, "%s.String(): %s\n", label, st.String())
	}
}

// err records err, and every error it wraps, under every verb; nil is noted.
func (s *secretSink) err(label string, err error) {
	if err == nil {
		fmt.Fprintf(s, "%s: <nil>\n", label)
		return
	}
	seen := 0
	var walk func(e error, depth int)
	walk = func(e error, depth int) {
		if e == nil || depth > 16 || seen > 64 {
			return
		}
		seen++
		fmt.Fprintf(s, "%s[%d]: %s | %v | %+v | %q\n", label, depth, e.Error(), e, e, e)
		switch u := e.(type) { //nolint:errorlint // walks the chain itself, one level at a time
		case interface{ Unwrap() []error }:
			for _, w := range u.Unwrap() {
				walk(w, depth+1)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap(), depth+1)
		}
	}
	walk(err, 0)
}

// secretNeedles returns what must not appear in the output for each secret:
// the whole secret and every 12-byte window of it (a partial token is a
// leak too); for a PEM private key, each base64 line of its body, its DER
// bytes and its private scalar in decimal and hex.
func secretNeedles(t *testing.T, name, secret string) map[string]string {
	t.Helper()
	needles := map[string]string{secret: name}
	if block, _ := pem.Decode([]byte(secret)); block != nil {
		for line := range strings.Lines(secret) {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "-----") {
				needles[line] = name + " (a base64 line)"
			}
		}
		needles[string(block.Bytes)] = name + " (DER)"
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			key, err = x509.ParseECPrivateKey(block.Bytes)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ec, ok := key.(*ecdsa.PrivateKey); ok {
			d, err := ec.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			needles[hex.EncodeToString(d)] = name + " (D in hex)"
			needles[ec.D.String()] = name + " (D in decimal)" //nolint:staticcheck // D is what %+v of the key prints
		}
		return needles
	}
	for i := 0; i+12 <= len(secret); i++ {
		needles[secret[i:i+12]] = name + " (a part)"
	}
	return needles
}

// secretAssertNone fails t for every needle in out, showing where it was
// without showing it.
func secretAssertNone(t *testing.T, out string, needles map[string]string) {
	t.Helper()
	found := map[string]int{}
	for needle, what := range needles {
		if i := strings.Index(out, needle); i >= 0 {
			if found[what] == 0 {
				start := max(0, i-160)
				t.Errorf("%s appears in the output, after: %q", what, out[start:i])
			}
			found[what]++
		}
	}
}

// secretRandom returns a random token with a recognisable prefix.
func secretRandom(prefix string) string {
	return prefix + rand.Text()
}

// secretWriteFile writes data to a new file in dir and returns its path.
func secretWriteFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// secretFastPolicy retries what SyncRequest retries, without its waits.
var secretFastPolicy = retries.SyncRequest.WithWait(retries.WaitNone()).WithMaxAttempts(4)

// TestSecrets_NeverShown sets every secret the SDK takes — a data-plane
// token, an mTLS private key, a Vespa Cloud API key and access token, a
// Hugging Face token — runs operations that succeed, retry and fail against
// the emulators, and checks that no secret appears in any log record (any
// level), any error (Error, %v, %+v, the whole chain) or the text form of any
// client, option or configuration.
func TestSecrets_NeverShown(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sink := &secretSink{}
	log := sink.logger()
	dir := t.TempDir()

	dataToken := secretRandom("vespa_cloud_")
	cloudAccessToken := secretRandom("cloudat_")
	hfToken := secretRandom("hf_")
	t.Setenv("HF_TOKEN", hfToken)
	apiKey, err := cloud.GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	keyPair, err := cloud.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}

	// The data plane: mTLS and a token at once, plus servers with each alone
	// for the cloud endpoints.
	both := vespatest.NewTestServer(t, vespatest.WithClientCertificates(), vespatest.WithToken(dataToken),
		vespatest.WithSchema(soakSchema), vespatest.WithLogger(log))
	certPEM, keyPEM := both.ClientCertificatePEM()
	certFile := secretWriteFile(t, dir, "cert.pem", certPEM)
	keyFile := secretWriteFile(t, dir, "key.pem", keyPEM)
	caFile := secretWriteFile(t, dir, "ca.pem", both.CACertificatePEM())
	mtlsOnly := vespatest.NewTestServer(t, vespatest.WithClientCertificates(), vespatest.WithLogger(log))
	mtlsCert, mtlsKey := mtlsOnly.ClientCertificatePEM()
	tokenOnly := vespatest.NewTestServer(t, vespatest.WithTLS(), vespatest.WithToken(dataToken), vespatest.WithLogger(log))

	needles := map[string]string{}
	for name, secret := range map[string]string{
		"the data-plane token":         dataToken,
		"the Cloud access token":       cloudAccessToken,
		"the Hugging Face token":       hfToken,
		"the Cloud API key":            string(apiKey),
		"the mTLS key":                 string(keyPEM),
		"the other mTLS key":           string(mtlsKey),
		"the generated data-plane key": string(keyPair.PrivateKeyPEM),
	} {
		for n, w := range secretNeedles(t, name, secret) {
			needles[n] = w
		}
	}

	t.Run("data plane", func(t *testing.T) {
		secretDataPlane(ctx, t, sink, both, dataToken, certFile, keyFile, caFile)
	})
	t.Run("feed", func(t *testing.T) {
		secretFeed(ctx, t, sink, both, dataToken, certFile, keyFile, caFile)
	})
	t.Run("cloud", func(t *testing.T) {
		secretCloud(ctx, t, sink, apiKey, cloudAccessToken, dataToken, keyPair, mtlsOnly, tokenOnly,
			secretWriteFile(t, dir, "mtls-cert.pem", mtlsCert), secretWriteFile(t, dir, "mtls-key.pem", mtlsKey))
	})
	t.Run("models", func(t *testing.T) {
		secretModels(ctx, t, sink, hfToken)
	})

	out := sink.String()
	if len(out) < 10_000 {
		t.Errorf("only %d bytes of output were captured: the run shows too little to prove anything", len(out))
	}
	if !strings.Contains(out, "level=DEBUG") && !strings.Contains(out, `"level":"DEBUG"`) {
		t.Log("note: no debug-level record was logged")
	}
	secretAssertNone(t, out, needles)
	t.Logf("%d bytes of output checked for %d secret fragments", len(out), len(needles))
}

// secretDataPlane runs document, visit, mass, health and query operations
// with a token and a client certificate, with successes, retries and failures.
func secretDataPlane(ctx context.Context, t *testing.T, sink *secretSink, srv *vespatest.Server,
	token, certFile, keyFile, caFile string) {
	t.Helper()
	log := sink.logger()
	opts := []vespa.Option{
		vespa.WithToken(token), vespa.WithCertificateFiles(certFile, keyFile), vespa.WithCAFile(caFile),
		vespa.WithLogger(log), vespa.WithRetryPolicy(secretFastPolicy),
		vespa.WithHeader("X-Api-Key", token), // a secret in a custom header must not show either
	}
	for i, o := range opts {
		sink.value(fmt.Sprintf("option %d", i), o)
	}
	c, err := vespa.NewClient(srv.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sink.value("client", c)
	fmt.Fprintf(sink, "client %%#v: %#v\n", c)
	for i, o := range opts {
		fmt.Fprintf(sink, "option %d %%#v: %#v\n", i, o)
	}

	id := soakID(1)
	_, err = c.Put(ctx, id, map[string]any{"n": 1, "kind": "keep", "title": "secret test"}, vespa.OperationOptions{})
	if err != nil {
		t.Fatalf("put with token and certificate: %v", err)
	}
	res, err := c.Get(ctx, id, vespa.OperationOptions{})
	sink.err("get", err)
	sink.value("result", res)
	srv.ScriptFaults(vespatest.OpAny, vespatest.FaultOverload(), vespatest.FaultDrop(), vespatest.FaultUnavailable())
	_, err = c.Update(ctx, id, vespa.NewUpdate().Assign("title", "retried"), vespa.OperationOptions{})
	sink.err("update after 429 and a drop, then 503", err)
	if err == nil {
		t.Error("an update that got a 503 after two retries succeeded")
	}
	_, err = c.Get(ctx, soakID(2), vespa.OperationOptions{})
	sink.err("get missing", err)
	if !errors.Is(err, vespa.ErrNotFound) {
		t.Errorf("get missing: %v, want ErrNotFound", err)
	}
	_, err = c.Put(ctx, id, map[string]any{"nope": 1}, vespa.OperationOptions{})
	sink.err("put unknown field", err)
	if !errors.Is(err, vespa.ErrBadRequest) {
		t.Errorf("put unknown field: %v, want ErrBadRequest", err)
	}
	for doc, err := range c.Visit(ctx, vespa.VisitRequest{Namespace: soakNamespace, DocType: soakDocType, Slices: 2}) {
		sink.err("visit", err)
		sink.value("visited", doc)
	}
	for _, err := range c.Visit(ctx, vespa.VisitRequest{Namespace: soakNamespace, DocType: soakDocType, Selection: "((("}) {
		sink.err("visit with a bad selection", err)
	}
	n, err := c.RemoveWhere(ctx, vespa.SelectionRequest{Namespace: soakNamespace, DocType: soakDocType, Cluster: soakCluster, Selection: "((("})
	sink.err(fmt.Sprintf("remove where, bad selection (%d)", n), err)
	sink.err("health", c.Health(ctx))
	_, err = c.Remove(ctx, id, vespa.OperationOptions{Condition: "soak.n == 2"})
	sink.err("remove, condition not met", err)

	qc, err := query.New(c)
	if err != nil {
		t.Fatal(err)
	}
	sink.value("query client", qc)
	qres, err := qc.Search(ctx, &query.Request{YQL: "select * from soak where true"})
	sink.err("search", err)
	sink.value("search result", qres)
	_, err = qc.Search(ctx, &query.Request{YQL: "select from where ((("})
	sink.err("search with bad YQL", err)
	if err == nil {
		t.Error("a search with broken YQL succeeded")
	}

	// Wrong credentials: a wrong token (403), no client certificate, no CA.
	bad, err := vespa.NewClient(srv.URL(), vespa.WithToken("wrong-"+token[:4]), vespa.WithCertificateFiles(certFile, keyFile),
		vespa.WithCAFile(caFile), vespa.WithLogger(log), vespa.WithRetryPolicy(secretFastPolicy))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	_, err = bad.Get(ctx, id, vespa.OperationOptions{})
	sink.err("get with a wrong token", err)
	if vespaErr := (*vespa.Error)(nil); !errors.As(err, &vespaErr) || vespaErr.Status != http.StatusForbidden {
		t.Errorf("get with a wrong token: %v, want a 403", err)
	}
	noCert, err := vespa.NewClient(srv.URL(), vespa.WithToken(token), vespa.WithCAFile(caFile), vespa.WithLogger(log),
		vespa.WithRetryPolicy(secretFastPolicy))
	if err != nil {
		t.Fatal(err)
	}
	defer noCert.Close()
	_, err = noCert.Get(ctx, id, vespa.OperationOptions{})
	sink.err("get without a client certificate", err)
	if err == nil {
		t.Error("the mTLS server answered a client without a certificate")
	}
}

// secretFeed feeds through a feeder with a token and a certificate, with
// faults and a rejected document, and records every outcome.
func secretFeed(ctx context.Context, t *testing.T, sink *secretSink, srv *vespatest.Server,
	token, certFile, keyFile, caFile string) {
	t.Helper()
	c, err := vespa.NewClient(srv.URL(), vespa.WithToken(token), vespa.WithCertificateFiles(certFile, keyFile),
		vespa.WithCAFile(caFile), vespa.WithLogger(sink.logger()), vespa.WithHTTPVersion(vespa.HTTP2))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := feed.Config{Connections: 2, OnOutcome: func(_ context.Context, o feed.Outcome) {
		sink.err("outcome of "+o.IDString(), o.Err)
		sink.value("outcome", o)
	}}
	sink.value("feed config", cfg)
	f, err := feed.New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.ScriptFaults(vespatest.OpPut, vespatest.FaultOverload(), vespatest.FaultDrop())
	for i := range 20 {
		sink.err("put", f.Put(ctx, soakID(100+i), soakFields(100+i)))
	}
	sink.err("put unknown field", f.Put(ctx, soakID(200), []byte(`{"nope":1}`)))
	sink.err("feed a file with a bad line", f.FeedReader(ctx, "secret.jsonl",
		strings.NewReader(`{"put":"id:soak:soak::d300","fields":{"n":1}}`+"\n{\"put\": \n"+`{"remove":"id:soak:soak::d300"}`+"\n")))
	sink.err("close", f.Close(ctx))
	st := f.Stats()
	sink.value("feed stats", st)
	if st.Succeeded < 20 || st.Failed < 2 {
		t.Errorf("feed: %d succeeded, %d failed; want at least 20 and 2", st.Succeeded, st.Failed)
	}
}

// secretCloud deploys through the emulated Vespa Cloud with an API key, makes
// a data-plane token, reaches the data plane with it and with mTLS, and
// fails with a wrong API key, a wrong access token and 503s.
func secretCloud(ctx context.Context, t *testing.T, sink *secretSink, apiKey []byte, accessToken, dataToken string,
	keyPair *cloud.KeyPair, mtlsSrv, tokenSrv *vespatest.Server, mtlsCertFile, mtlsKeyFile string) {
	t.Helper()
	log := sink.logger()
	srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(apiKey), cloudtest.WithAccessToken(accessToken),
		cloudtest.WithLogInterval(time.Millisecond), cloudtest.WithEndpointURLs(mtlsSrv.URL(), tokenSrv.URL()))
	app := cloud.ApplicationID{Tenant: "secret", Application: "app", Instance: "default"}
	zone := cloud.Zone{Environment: "dev", Region: "aws-us-east-1c"}
	fast := cloud.WithRetryPolicy(retries.ControlPlane.WithWait(retries.WaitNone()))
	opts := []cloud.Option{cloud.WithEndpoint(srv.URL()), cloud.WithAPIKey(apiKey), cloud.WithLogger(log),
		cloud.WithPollInterval(time.Millisecond), cloud.WithHTTPClient(srv.Client()), fast}
	for i, o := range opts {
		sink.value(fmt.Sprintf("cloud option %d", i), o)
	}
	c, err := cloud.NewClient(app, opts...)
	if err != nil {
		t.Fatal(err)
	}
	sink.value("cloud client", c)
	sink.value("key pair", keyPair)
	sink.value("key pair (a copy)", *keyPair)
	pkg, err := deploy.NewPackageFS(secretAppFS())
	if err != nil {
		t.Fatal(err)
	}
	if pkg, err = pkg.WithClientCertificate(keyPair.CertificatePEM); err != nil {
		t.Fatal(err)
	}
	run, err := c.Deploy(ctx, zone, pkg, cloud.DeployOptions{})
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	sink.value("run", run)
	rr, err := c.FollowRun(ctx, run, func(e cloud.LogEntry) { sink.value("log entry", e) })
	sink.err("follow run", err)
	sink.value("run result", rr)
	eps, err := c.Endpoints(ctx, zone, cloud.EndpointFilter{})
	sink.err("endpoints", err)
	sink.value("endpoints", eps)
	tok, err := c.CreateToken(ctx, "secret-token", time.Hour)
	sink.err("create token", err)
	sink.value("created token", tok)
	if tok != nil {
		sink.value("created token (a copy)", *tok)
		needle := tok.Value
		defer func() {
			if len(needle) >= 12 && strings.Contains(sink.String(), needle) {
				t.Error("the token the control plane created appears in the output")
			}
		}()
	}

	dpOpts := cloud.DataPlaneOptions{Token: dataToken, Options: []vespa.Option{
		vespa.WithCAPEM(tokenSrv.CACertificatePEM()), vespa.WithLogger(log)}}
	sink.value("data-plane options", &dpOpts)
	vc, err := c.DataPlaneClient(ctx, zone, dpOpts)
	if err != nil {
		t.Fatalf("token data-plane client: %v", err)
	}
	sink.value("token data-plane client", vc)
	_, err = vc.Put(ctx, soakID(7), map[string]any{"n": 7}, vespa.OperationOptions{})
	sink.err("put through the token endpoint", err)
	if err != nil {
		t.Errorf("put through the token endpoint: %v", err)
	}
	vc.Close()

	// mTLS end to end: the cloud client picks the mTLS endpoint, the
	// emulator's TLS mode checks the certificate.
	mo := cloud.DataPlaneOptions{CertificateFile: mtlsCertFile, PrivateKeyFile: mtlsKeyFile,
		Options: []vespa.Option{vespa.WithCAPEM(mtlsSrv.CACertificatePEM()), vespa.WithLogger(log)}}
	sink.value("mTLS data-plane options", &mo)
	mc, err := c.DataPlaneClient(ctx, zone, mo)
	if err != nil {
		t.Fatalf("mTLS data-plane client: %v", err)
	}
	_, err = mc.Put(ctx, soakID(8), map[string]any{"n": 8}, vespa.OperationOptions{})
	sink.err("put through the mTLS endpoint", err)
	if err != nil {
		t.Errorf("put through the mTLS endpoint: %v", err)
	}
	if _, ok := mtlsSrv.Document(soakID(8).String()); !ok {
		t.Error("the document put through the mTLS endpoint is not stored")
	}
	mc.Close()

	// Failures: 503s until retries run out, an unknown API key, a wrong
	// access token.
	srv.FailNext(retries.ControlPlane.MaxAttempts(), http.StatusServiceUnavailable)
	_, err = c.Endpoints(ctx, zone, cloud.EndpointFilter{})
	sink.err("endpoints after 503s", err)
	if err == nil {
		t.Error("endpoints succeeded through as many 503s as it has attempts")
	}
	otherKey, err := cloud.GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	other, err := cloud.NewClient(app, cloud.WithEndpoint(srv.URL()), cloud.WithAPIKey(otherKey), cloud.WithLogger(log), fast)
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Endpoints(ctx, zone, cloud.EndpointFilter{})
	sink.err("endpoints with an unknown key", err)
	if !errors.Is(err, cloud.ErrUnauthorized) {
		t.Errorf("endpoints with an unknown key: %v, want ErrUnauthorized", err)
	}
	at, err := cloud.NewClient(app, cloud.WithEndpoint(srv.URL()), cloud.WithAccessToken(accessToken), cloud.WithLogger(log), fast)
	if err != nil {
		t.Fatal(err)
	}
	sink.value("access-token client", at)
	_, err = at.Endpoints(ctx, zone, cloud.EndpointFilter{})
	sink.err("endpoints with the access token", err)
	wrong, err := cloud.NewClient(app, cloud.WithEndpoint(srv.URL()), cloud.WithAccessToken(accessToken[:8]+"x"), cloud.WithLogger(log), fast)
	if err != nil {
		t.Fatal(err)
	}
	_, err = wrong.Endpoints(ctx, zone, cloud.EndpointFilter{})
	sink.err("endpoints with a wrong access token", err)
	if err == nil {
		t.Error("a wrong access token was accepted")
	}
	_, err = cloud.ParseAPIKey(apiKey[:len(apiKey)/2])
	sink.err("parse a truncated API key", err)
	if err == nil {
		t.Error("a truncated API key parsed")
	}
}

// secretAppFS is a minimal application package.
func secretAppFS() fstest.MapFS {
	return fstest.MapFS{"services.xml": {Data: []byte(`<services version="1.0"><container id="default" version="1.0"><document-api/></container></services>`)}}
}

// secretModels checks model URLs with a Hugging Face token against a
// server that plays Hugging Face: one URL fails with 404, one with 500s.
func secretModels(ctx context.Context, t *testing.T, sink *secretSink, hfToken string) {
	t.Helper()
	var (
		mu   sync.Mutex
		auth []string
	)
	hf := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, "model.onnx"):
			http.Error(w, "Repository not found", http.StatusNotFound)
		default:
			http.Error(w, "upstream broke", http.StatusInternalServerError)
		}
	}))
	defer hf.Close()
	cfg := models.E5SmallV2()
	cfg.ModelURL = hf.URL + "/intfloat/e5-small-v2/resolve/main/model.onnx"
	cfg.TokenizerURL = hf.URL + "/intfloat/e5-small-v2/resolve/main/tokenizer.json"
	sink.value("model config", cfg)
	for _, explicit := range []bool{true, false} { // the option, then HF_TOKEN
		opts := []models.ValidateOption{
			models.WithHuggingFaceHosts(func(string) bool { return true }),
			models.WithValidationLogger(sink.logger()),
			models.WithValidationHTTPClient(hf.Client()),
			models.WithValidationPolicy(retries.URLValidation.WithWait(retries.WaitNone())),
		}
		if explicit {
			opts = append(opts, models.WithHuggingFaceToken(hfToken))
		}
		for i, o := range opts {
			sink.value(fmt.Sprintf("validate option %d", i), o)
		}
		err := cfg.Validate(ctx, opts...)
		sink.err("validate", err)
		if !errors.Is(err, models.ErrURLUnreachable) {
			t.Errorf("validate: %v, want ErrURLUnreachable", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	sent := 0
	for _, a := range auth {
		if a == "Bearer "+hfToken {
			sent++
		}
	}
	if sent == 0 {
		t.Errorf("the Hugging Face token was never sent (%d requests): the test proves nothing", len(auth))
	}
}

// TestSecrets_TLSVerificationOnByDefault checks that a client that was given
// no CA refuses the emulator's self-signed certificate, and accepts it once
// given the CA.
func TestSecrets_TLSVerificationOnByDefault(t *testing.T) {
	srv := vespatest.NewTestServer(t, vespatest.WithTLS())
	c, err := vespa.NewClient(srv.URL(), vespa.WithRetryAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Health(t.Context())
	var unknown x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	if !errors.As(err, &unknown) && !errors.As(err, &verify) {
		t.Fatalf("health without the CA: %v, want a certificate verification error", err)
	}
	trusted, err := vespa.NewClient(srv.URL(), vespa.WithCAPEM(srv.CACertificatePEM()))
	if err != nil {
		t.Fatal(err)
	}
	defer trusted.Close()
	if err := trusted.Health(t.Context()); err != nil {
		t.Fatalf("health with the CA: %v", err)
	}
}

// TestSecrets_TLS12Minimum checks that the client does not speak TLS 1.1 or
// older, even when its TLS configuration asks for it, against a server that
// speaks nothing newer; a plain crypto/tls client proves the server works.
func TestSecrets_TLS12Minimum(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"status":{"code":"up"}}`)
	}))
	srv.Config.ErrorLog = stdlog.New(io.Discard, "", 0)                               // the refused handshakes are the point
	srv.TLS = &tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11} //nolint:gosec // the old server under test
	srv.StartTLS()
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS10}}} //nolint:gosec // proves the server speaks TLS 1.1
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/state/v1/health", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := old.Do(req)
	if err != nil {
		t.Skipf("this Go refuses TLS 1.1 even when asked (%v): nothing to compare with", err)
	}
	resp.Body.Close()
	if resp.TLS.Version != tls.VersionTLS11 {
		t.Fatalf("control client negotiated %x, want TLS 1.1", resp.TLS.Version)
	}

	for name, opts := range map[string][]vespa.Option{
		"default":                {vespa.WithCAPEM(caPEM)},
		"asking for TLS 1.0":     {vespa.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS10})},                                     //nolint:gosec // must be raised
		"asking for TLS 1.0, h2": {vespa.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS10}), vespa.WithHTTPVersion(vespa.HTTP2)}, //nolint:gosec // must be raised
		"skipping verification":  {vespa.WithInsecureSkipVerify()},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := vespa.NewClient(srv.URL, append(opts, vespa.WithRetryAttempts(1))...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			err = c.Health(t.Context())
			if err == nil {
				t.Fatal("the client spoke TLS 1.1")
			}
			if !strings.Contains(err.Error(), "version") {
				t.Errorf("health failed for another reason than the TLS version: %v", err)
			}
		})
	}
}

// TestSecrets_TokenRefusedOverPlainHTTP checks that a token is refused over
// plain http to a host that is not loopback, without the token in the error,
// and allowed over https and to loopback.
func TestSecrets_TokenRefusedOverPlainHTTP(t *testing.T) {
	token := secretRandom("vespa_cloud_")
	for _, endpoint := range []string{
		"http://example.com", "http://example.com:8080", "http://10.1.2.3:8080", "http://[2001:db8::1]:8080",
		"http://localhost.example.com", "http://127.0.0.1.nip.io", "HTTP://example.com",
	} {
		_, err := vespa.NewClient(endpoint, vespa.WithToken(token))
		if err == nil {
			t.Errorf("%s: token accepted over plain http", endpoint)
			continue
		}
		if strings.Contains(fmt.Sprintf("%v %+v", err, err), token) {
			t.Errorf("%s: the error shows the token", endpoint)
		}
	}
	for _, endpoint := range []string{"https://example.com", "http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"} {
		c, err := vespa.NewClient(endpoint, vespa.WithToken(token))
		if err != nil {
			t.Errorf("%s: %v", endpoint, err)
			continue
		}
		c.Close()
	}
}

// TestSecrets_MutualTLS checks mTLS end to end against the emulator's TLS
// mode: with the certificate (from files, and as a tls.Certificate) the
// client works over HTTP/1.1 and HTTP/2; without it, or with a certificate
// the server's CA did not sign, the handshake fails.
func TestSecrets_MutualTLS(t *testing.T) {
	srv := vespatest.NewTestServer(t, vespatest.WithClientCertificates(), vespatest.WithSchema(soakSchema))
	dir := t.TempDir()
	certPEM, keyPEM := srv.ClientCertificatePEM()
	certFile := secretWriteFile(t, dir, "cert.pem", certPEM)
	keyFile := secretWriteFile(t, dir, "key.pem", keyPEM)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	selfSigned, err := cloud.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := tls.X509KeyPair(selfSigned.CertificatePEM, selfSigned.PrivateKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ca := vespa.WithCAPEM(srv.CACertificatePEM())
	for name, opts := range map[string][]vespa.Option{
		"certificate files, HTTP/1.1": {ca, vespa.WithCertificateFiles(certFile, keyFile), vespa.WithHTTPVersion(vespa.HTTP1)},
		"certificate files, HTTP/2":   {ca, vespa.WithCertificateFiles(certFile, keyFile), vespa.WithHTTPVersion(vespa.HTTP2)},
		"tls.Certificate, auto":       {ca, vespa.WithCertificate(cert)},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := vespa.NewClient(srv.URL(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			id := soakID(len(name))
			if _, err := c.Put(t.Context(), id, map[string]any{"n": 1}, vespa.OperationOptions{}); err != nil {
				t.Fatalf("put: %v", err)
			}
			if _, ok := srv.Document(id.String()); !ok {
				t.Error("the document is not stored")
			}
		})
	}
	for name, opts := range map[string][]vespa.Option{
		"no certificate":              {ca},
		"a certificate of another CA": {ca, vespa.WithCertificate(foreign)},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := vespa.NewClient(srv.URL(), append(opts, vespa.WithRetryAttempts(1))...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Put(t.Context(), soakID(9), map[string]any{"n": 1}, vespa.OperationOptions{}); err == nil {
				t.Fatal("the server accepted the client")
			}
		})
	}
}
