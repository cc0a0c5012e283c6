package cloud

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
	"github.com/govespa/govespa/vespa/retries"
)

// redactApp is the application the redaction tests script.
var redactApp = ApplicationID{Tenant: "scoober", Application: "albums", Instance: "default"}

// redactVerbs are the verbs and flags a user might print a value with.
var redactVerbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "% x", "%30v", "%-30s", "%.5s"}

// redactSecrets holds one of each secret the package takes.
type redactSecrets struct {
	apiKey      []byte
	accessToken string
	dataToken   string
	keyPair     *KeyPair
}

func newRedactSecrets(t *testing.T) redactSecrets {
	t.Helper()
	key, err := GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	kp, err := GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	return redactSecrets{apiKey: key, accessToken: "cloudat_" + rand.Text(), dataToken: "vespa_cloud_" + rand.Text(), keyPair: kp}
}

// needles returns what must not be shown of the secrets, and of extra
// secrets (such as signatures seen on the wire): each whole, in hex, and
// each base64 line of a PEM body.
func (s redactSecrets) needles(extra ...string) []string {
	var out []string
	add := func(secret string) {
		if secret == "" {
			return
		}
		out = append(out, secret, hex.EncodeToString([]byte(secret)), strings.ToUpper(hex.EncodeToString([]byte(secret))))
		if len(secret) > 16 {
			out = append(out, secret[len(secret)/2:]) // a truncated secret is a leak too
		}
		if b, _ := pem.Decode([]byte(secret)); b != nil {
			for line := range strings.Lines(secret) {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "-----") {
					out = append(out, line)
				}
			}
			out = append(out, string(b.Bytes), hex.EncodeToString(b.Bytes))
		}
	}
	for _, secret := range append([]string{string(s.apiKey), s.accessToken, s.dataToken, string(s.keyPair.PrivateKeyPEM)}, extra...) {
		add(secret)
	}
	return out
}

// assertNoSecret fails t when out shows any needle, without showing it.
func assertNoSecret(t *testing.T, what, out string, needles []string) {
	t.Helper()
	for i, n := range needles {
		if strings.Contains(out, n) {
			t.Errorf("%s shows secret fragment %d", what, i)
		}
	}
}

// TestFormat_NoSecret prints every type that holds a secret, by value and
// by pointer, with every verb, and finds no secret in the text; it also
// checks that the text says a secret was there.
func TestFormat_NoSecret(t *testing.T) {
	s := newRedactSecrets(t)
	needles := s.needles()
	keyClient, err := NewClient(redactApp, WithAPIKey(s.apiKey), WithEndpoint("https://ctl.example:4443"))
	if err != nil {
		t.Fatal(err)
	}
	tokenClient, err := NewClient(redactApp, WithAccessToken(s.accessToken))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := newConfig(redactApp, []Option{WithAPIKey(s.apiKey), WithAccessToken(s.accessToken)})
	if err != nil {
		t.Fatal(err)
	}
	tok := Token{ID: "ci", Value: s.dataToken, Fingerprint: "ab:cd", Expiration: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	dp := DataPlaneOptions{Cluster: "default", Token: s.dataToken, KeyPair: s.keyPair, Options: []vespa.Option{vespa.WithToken(s.dataToken)}}

	values := []struct {
		name     string
		v        any
		redacted bool // the text must say a secret was left out
	}{
		{"*Client (API key)", keyClient, true},
		{"Client (API key)", *keyClient, true},
		{"*Client (access token)", tokenClient, true},
		{"Client (access token)", *tokenClient, true},
		{"*transport", keyClient.t, true},
		{"transport", *tokenClient.t, true},
		{"*signer", keyClient.signer, true},
		{"signer", *keyClient.signer, true},
		{"*config", cfg, true},
		{"config", *cfg, true},
		{"Option WithAPIKey", WithAPIKey(s.apiKey), false},
		{"Option WithAccessToken", WithAccessToken(s.accessToken), false},
		{"[]Option", []Option{WithAPIKey(s.apiKey), WithAccessToken(s.accessToken)}, false},
		{"Token", tok, true},
		{"*Token", &tok, true},
		{"KeyPair", *s.keyPair, true},
		{"*KeyPair", s.keyPair, true},
		{"DataPlaneOptions", dp, true},
		{"*DataPlaneOptions", &dp, true},
		{"a struct holding a Token", struct{ T Token }{tok}, true},
		{"a map holding a KeyPair", map[string]KeyPair{"kp": *s.keyPair}, true},
	}
	for _, tc := range values {
		for _, verb := range redactVerbs {
			out := fmt.Sprintf(verb, tc.v)
			assertNoSecret(t, tc.name+" printed with "+verb, out, needles)
			if tc.redacted && (verb == "%v" || verb == "%+v" || verb == "%#v" || verb == "%s") && !strings.Contains(out, redacted) {
				t.Errorf("%s printed with %s = %s, want it to say %s", tc.name, verb, out, redacted)
			}
		}
		if st, ok := tc.v.(fmt.Stringer); ok {
			assertNoSecret(t, tc.name+".String()", st.String(), needles)
		}
	}

	// The text forms still say what matters.
	for v, want := range map[fmt.Stringer]string{
		keyClient:      `cloud.Client{Application:scoober.albums.default, URL:https://ctl.example:4443, Auth:API key "scoober:albums:default" [redacted]}`,
		tokenClient:    `cloud.Client{Application:scoober.albums.default, URL:https://api-ctl.vespa-cloud.com:4443, Auth:access token [redacted]}`,
		tok:            `cloud.Token{ID:"ci", Value:[redacted], Fingerprint:"ab:cd", Expiration:2030-01-02T03:04:05Z}`,
		Token{ID: "x"}: `cloud.Token{ID:"x", Value:"", Fingerprint:"", Expiration:none}`,
	} {
		if got := fmt.Sprint(v); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	if got, want := fmt.Sprintf("%q", tok), fmt.Sprintf("%q", tok.String()); got != want {
		t.Errorf("%%q = %s, want %s", got, want)
	}
	if got, want := fmt.Sprintf("%x", tok), hex.EncodeToString([]byte(tok.String())); got != want {
		t.Errorf("%%x = %s, want %s", got, want)
	}
	if got := fmt.Sprint(WithAPIKey(s.apiKey)); got != "cloud.WithAPIKey" {
		t.Errorf("an option prints as %s, want cloud.WithAPIKey", got)
	}
	var nilTok *Token
	if got := fmt.Sprint(nilTok); got != "<nil>" {
		t.Errorf("a nil *Token prints as %s", got)
	}
}

// redactLog is a logger at the lowest level, writing text and JSON
// (slog.JSONHandler marshals values; the text handler formats them with %+v).
func redactLog() (*slog.Logger, *testutil.SyncBuffer) {
	buf := &testutil.SyncBuffer{}
	return testutil.TextAndJSONLogger(buf), buf
}

// wireRecorder records the credentials each request carried: the signature
// and the bearer token, which must not show up in logs or errors either.
type wireRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (w *wireRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	w.mu.Lock()
	for _, h := range []string{"X-Authorization", "Authorization"} {
		if v := req.Header.Get(h); v != "" {
			w.seen = append(w.seen, v, strings.TrimPrefix(v, "Bearer "))
		}
	}
	w.mu.Unlock()
	return w.next.RoundTrip(req)
}

func (w *wireRecorder) credentials() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

// TestLogsAndErrors_NoSecret runs calls that succeed, are retried through
// 503s and are refused (an unknown key, a wrong token) against the emulated
// control plane, logging at debug level, and finds no key, token or
// signature in the log or in any error.
func TestLogsAndErrors_NoSecret(t *testing.T) {
	s := newRedactSecrets(t)
	log, logBuf := redactLog()
	srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(s.apiKey),
		cloudtest.WithAccessToken(s.accessToken), cloudtest.WithLogInterval(time.Millisecond))
	wire := &wireRecorder{next: srv.Client().Transport}
	hc := &http.Client{Transport: wire}
	fast := WithRetryPolicy(retries.ControlPlane.WithWait(retries.WaitNone()))
	var errs []error
	zone := Zone{Environment: EnvDev, Region: "aws-us-east-1c"}

	keyClient, err := NewClient(redactApp, WithEndpoint(srv.URL()), WithAPIKey(s.apiKey), WithHTTPClient(hc),
		WithLogger(log), WithPollInterval(time.Millisecond), fast)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := keyClient.CreateToken(t.Context(), "ci", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("created", "token", tok, "copy", *tok, "key pair", s.keyPair, "client", keyClient)
	srv.FailNext(retries.ControlPlane.MaxAttempts(), http.StatusServiceUnavailable)
	_, err = keyClient.Endpoints(t.Context(), zone, EndpointFilter{})
	if err == nil {
		t.Error("Endpoints succeeded through as many 503s as it has attempts")
	}
	errs = append(errs, err)

	other, err := GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	unknown, err := NewClient(redactApp, WithEndpoint(srv.URL()), WithAPIKey(other), WithHTTPClient(hc), WithLogger(log), fast)
	if err != nil {
		t.Fatal(err)
	}
	_, err = unknown.Endpoints(t.Context(), zone, EndpointFilter{})
	if !errors.Is(err, ErrUnauthorized) {
		t.Errorf("an unknown key: %v, want ErrUnauthorized", err)
	}
	errs = append(errs, err)

	for _, token := range []string{s.accessToken, s.accessToken[:10] + "x"} {
		c, err := NewClient(redactApp, WithEndpoint(srv.URL()), WithAccessToken(token), WithHTTPClient(hc), WithLogger(log), fast)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.CreateToken(t.Context(), "ci", 0)
		errs = append(errs, err)
	}
	if errs[len(errs)-2] != nil || errs[len(errs)-1] == nil {
		t.Errorf("access tokens: right one %v, wrong one %v; want success, then an error", errs[len(errs)-2], errs[len(errs)-1])
	}

	// Options that fail at construction name the option, not its value.
	_, err = NewClient(redactApp, WithAPIKey(s.keyPair.PrivateKeyPEM[:len(s.keyPair.PrivateKeyPEM)/2]))
	errs = append(errs, err)
	_, err = NewClient(redactApp, WithAPIKey(s.apiKey), WithAccessToken(s.accessToken))
	errs = append(errs, err)
	_, err = ParseAPIKey(bytes.Replace(s.apiKey, []byte("EC PRIVATE"), []byte("RSA PRIVATE"), 2))
	errs = append(errs, err)

	var out strings.Builder
	for i, err := range errs {
		for e := err; e != nil; e = errors.Unwrap(e) {
			fmt.Fprintf(&out, "%d: %s | %v | %+v | %#v | %q\n", i, e.Error(), e, e, e, e)
		}
	}
	credentials := wire.credentials()
	if len(credentials) < 8 {
		t.Fatalf("%d credentials seen on the wire: the test proves nothing", len(credentials))
	}
	needles := append(s.needles(credentials...), tok.Value)
	if logBuf.String() == "" || !strings.Contains(logBuf.String(), "level=DEBUG") {
		t.Fatal("nothing logged at debug level: the test proves nothing")
	}
	assertNoSecret(t, "the log", logBuf.String(), needles)
	assertNoSecret(t, "the errors", out.String(), needles)
}
