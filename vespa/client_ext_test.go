package vespa_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
)

var testID = vespa.MustParseDocumentID("id:ns:music::a")

func TestNewClient_InvalidEndpoint(t *testing.T) {
	for _, ep := range []string{"", "localhost:8080", "ftp://h", "http://", "http://h?q=1", "http://h?", "http://h#f", "http://u:p@h", "http://[::1", "http:///path"} {
		if c, err := vespa.NewClient(ep); err == nil {
			t.Errorf("NewClient(%q) = %v, want an error", ep, c)
		} else if strings.Contains(ep, "u:p") && strings.Contains(err.Error(), "u:p") {
			t.Errorf("error %q shows the endpoint's credentials", err)
		}
	}
}

func TestNewClient_InvalidOptions(t *testing.T) {
	for _, o := range []vespa.Option{
		vespa.WithToken(""), vespa.WithToken("a\nb"), vespa.WithConnections(0), vespa.WithHTTPVersion(9),
		vespa.WithLogger(nil), vespa.WithRetryAttempts(0), vespa.WithTimeout(-time.Second),
		vespa.WithCertificateFiles("/nonexistent/c.pem", "/nonexistent/k.pem"), vespa.WithCertificateFiles("", ""),
		vespa.WithCAFile("/nonexistent/ca.pem"), vespa.WithCAPEM([]byte("not pem")), vespa.WithCAPEM(nil),
		vespa.WithTLSConfig(nil), vespa.WithHeader("bad name", "v"), vespa.WithHeader("X-A", "a\r\nb"),
		vespa.WithUserAgent(""), vespa.WithIdleConnTimeout(0), vespa.WithCertificate(tls.Certificate{}),
		vespa.WithRetryPolicy(retries.SyncRequest.WithMaxAttempts(0)), nil,
	} {
		if _, err := vespa.NewClient("http://localhost:8080", o); err == nil {
			t.Errorf("NewClient with %v: no error", o)
		} else if !strings.HasPrefix(err.Error(), "vespa: ") {
			t.Errorf("error %q lacks the vespa: prefix", err)
		}
	}
}

func TestNewClient_TokenNeedsTLSUnlessLoopback(t *testing.T) {
	const token = "s3cr3t-token"
	for ep, ok := range map[string]bool{
		"http://example.com":         false,
		"http://10.0.0.1:8080":       false,
		"http://localhost:8080":      true,
		"http://127.0.0.1:8080":      true,
		"http://[::1]:8080":          true,
		"https://example.com":        true,
		"https://example.com:443/pf": true,
	} {
		_, err := vespa.NewClient(ep, vespa.WithToken(token))
		if (err == nil) != ok {
			t.Errorf("NewClient(%s, WithToken) error = %v, want ok=%v", ep, err, ok)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("error %q shows the token", err)
		}
	}
}

func TestOption_TextHidesSecrets(t *testing.T) {
	const s = "TOPSECRET"
	cert := tls.Certificate{Certificate: [][]byte{[]byte(s)}, PrivateKey: s}
	for _, o := range []vespa.Option{
		vespa.WithToken(s), vespa.WithHeader("Authorization", s), vespa.WithCertificate(cert),
		vespa.WithTLSConfig(&tls.Config{ServerName: s}), vespa.WithCAPEM([]byte(s)),
	} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
			if text := fmt.Sprintf(verb, o); strings.Contains(text, s) || strings.Contains(text, fmt.Sprintf("%x", s)) {
				t.Errorf("%s of an option shows the secret: %s", verb, text)
			}
		}
		if strings.Contains(o.String(), s) {
			t.Errorf("String() shows the secret: %s", o)
		}
	}
}

func TestClient_FixedHeaders(t *testing.T) {
	srv := newFakeVespa(t, nil)
	c := newTestClient(t, srv.URL, vespa.WithToken("tok"), vespa.WithHeader("X-Extra", "1"), vespa.WithHeader("X-Extra", "2"))
	check := func(name string, h http.Header, ua string) {
		t.Helper()
		if got := h.Get("Authorization"); got != "Bearer tok" {
			t.Errorf("%s: Authorization = %q", name, got)
		}
		if got := h.Get("User-Agent"); got != ua {
			t.Errorf("%s: User-Agent = %q, want %q", name, got, ua)
		}
		if got := h.Values("X-Extra"); len(got) != 2 || got[0] != "1" || got[1] != "2" {
			t.Errorf("%s: X-Extra = %q", name, got)
		}
	}
	if _, err := c.Put(context.Background(), testID, map[string]any{"a": 1}, vespa.OperationOptions{}); err != nil {
		t.Fatal(err)
	}
	check("Put", srv.last(t).Header, "govespa/"+vespa.Version)
	for name, hc := range map[string]*http.Client{"HTTPClient": c.HTTPClient(), "NewHTTPClient": c.NewHTTPClient()} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/state/v1/health", nil)
		req.Header.Set("User-Agent", "caller")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		check(name, srv.last(t).Header, "govespa/"+vespa.Version)
		if req.Header.Get("Authorization") != "" {
			t.Errorf("%s modified the caller's request", name)
		}
	}
	if c.HTTPClient().Timeout != 0 {
		t.Error("HTTPClient has a Timeout; deadlines must come from the context")
	}
	if c.NewHTTPClient().Transport == c.HTTPClient().Transport {
		t.Error("NewHTTPClient shares the transport of HTTPClient")
	}
}

func TestClient_UserAgentAndPrefix(t *testing.T) {
	srv := newFakeVespa(t, nil)
	c := newTestClient(t, srv.URL+"/prefix/", vespa.WithUserAgent("me/1"))
	if _, err := c.Remove(context.Background(), testID, vespa.OperationOptions{}); err != nil {
		t.Fatal(err)
	}
	got := srv.last(t)
	if got.RawPath != "/prefix/document/v1/ns/music/docid/a" || got.Header.Get("User-Agent") != "me/1" {
		t.Errorf("path %s, user agent %q", got.RawPath, got.Header.Get("User-Agent"))
	}
}

func TestClient_Accessors(t *testing.T) {
	c := newTestClient(t, "http://localhost:8080/")
	u := c.Endpoint()
	u.Host = "changed"
	if c.Endpoint().Host != "localhost:8080" {
		t.Error("Endpoint() does not return a copy")
	}
	if c.Logger() == nil {
		t.Error("Logger() is nil")
	}
	if p := c.RetryPolicy(); p.Name() != "SyncRequest" || p.MaxAttempts() != retries.DefaultSyncRequestAttempts {
		t.Errorf("default policy %v", p)
	}
	c2, _ := vespa.NewClient("http://localhost:8080", vespa.WithRetryPolicy(retries.Query), vespa.WithRetryAttempts(2), vespa.WithTimeout(3*time.Second))
	if p := c2.RetryPolicy(); p.Name() != "Query" || p.MaxAttempts() != 2 {
		t.Errorf("policy %v, want Query with 2 attempts", p)
	}
	if c2.Timeout() != 3*time.Second {
		t.Errorf("Timeout() = %v", c2.Timeout())
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestClient_LoggerGetsRequestsWithoutSecrets(t *testing.T) {
	srv := newFakeVespa(t, nil)
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newTestClient(t, srv.URL, vespa.WithLogger(logger), vespa.WithToken("s3cr3t"))
	if c.Logger() != logger {
		t.Error("Logger() is not the given logger")
	}
	if _, err := c.Get(context.Background(), testID, vespa.OperationOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Health(context.Background()); err == nil {
		t.Log("health unexpectedly up")
	}
	if !strings.Contains(buf.String(), "/document/v1/ns/music/docid/a") {
		t.Errorf("no request logged: %s", buf.String())
	}
	if strings.Contains(buf.String(), "s3cr3t") {
		t.Errorf("the log shows the token: %s", buf.String())
	}
}

func TestClient_HTTPVersions(t *testing.T) {
	h2c := testutil.H2CServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"pathId":"%s","proto":%d}`, r.URL.Path, r.ProtoMajor)
	}))

	tlsSrv := httptest.NewUnstartedServer(h2c.Config.Handler)
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(tlsSrv.Certificate())

	tests := []struct {
		name  string
		url   string
		v     vespa.HTTPVersion
		proto int
	}{
		{"auto over http is HTTP/1.1", h2c.URL, vespa.HTTPAuto, 1},
		{"2 over http is h2c with prior knowledge", h2c.URL, vespa.HTTP2, 2},
		{"1.1 over http", h2c.URL, vespa.HTTP1, 1},
		{"auto over TLS negotiates HTTP/2", tlsSrv.URL, vespa.HTTPAuto, 2},
		{"2 over TLS", tlsSrv.URL, vespa.HTTP2, 2},
		{"1.1 over TLS", tlsSrv.URL, vespa.HTTP1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, tt.url, vespa.WithHTTPVersion(tt.v), vespa.WithTLSConfig(&tls.Config{RootCAs: pool}))
			res, err := c.Get(context.Background(), testID, vespa.OperationOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_ = res
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, tt.url+"/x", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.HTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.ProtoMajor != tt.proto {
				t.Errorf("protocol HTTP/%d, want HTTP/%d", resp.ProtoMajor, tt.proto)
			}
		})
	}
	if got := vespa.HTTP2.String() + vespa.HTTP1.String() + vespa.HTTPAuto.String(); got != "21.1auto" {
		t.Errorf("HTTPVersion strings %q", got)
	}
}

func TestClient_TextHidesSecrets(t *testing.T) {
	c := newTestClient(t, "https://example.com", vespa.WithToken("TOPSECRET"), vespa.WithHeader("X-Key", "TOPSECRET"))
	for _, v := range []any{c, c.HTTPClient(), c.NewHTTPClient(), c.HTTPClient().Transport} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if text := fmt.Sprintf(verb, v); strings.Contains(text, "TOPSECRET") {
				t.Errorf("%s of %T shows the secret: %s", verb, v, text)
			}
		}
	}
}
