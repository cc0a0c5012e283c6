package vespa_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate, also written as PEM files.
type testPKI struct {
	caPool                *x509.CertPool
	caFile                string
	server, client        tls.Certificate
	clientCert, clientKey string
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	p := &testPKI{caPool: x509.NewCertPool()}
	p.caPool.AddCert(caCert)
	p.caFile = writePEM(t, dir, "ca.pem", "CERTIFICATE", caDER)

	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips []net.IP) (tls.Certificate, []byte, []byte) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, _ := x509.MarshalECPrivateKey(key)
		return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, der, keyDER
	}
	p.server, _, _ = issue(2, "server", x509.ExtKeyUsageServerAuth, []net.IP{net.IPv4(127, 0, 0, 1)})
	var der, keyDER []byte
	p.client, der, keyDER = issue(3, "the-client", x509.ExtKeyUsageClientAuth, nil)
	p.clientCert = writePEM(t, dir, "client.pem", "CERTIFICATE", der)
	p.clientKey = writePEM(t, dir, "client-key.pem", "EC PRIVATE KEY", keyDER)
	return p
}

func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// newTLSServer starts a TLS server with the PKI's server certificate that
// answers with the client certificate's common name in "id".
func newTLSServer(t *testing.T, p *testPKI, clientAuth tls.ClientAuthType, maxVersion uint16) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cn := ""
		if len(r.TLS.PeerCertificates) > 0 {
			cn = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		fmt.Fprintf(w, `{"pathId":%q,"id":%q}`, r.URL.EscapedPath(), cn)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshake failures are expected here
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{p.server}, ClientAuth: clientAuth, ClientCAs: p.caPool, MaxVersion: maxVersion}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestAuth_MutualTLS(t *testing.T) {
	p := newTestPKI(t)
	srv := newTLSServer(t, p, tls.RequireAndVerifyClientCert, 0)
	tests := []struct {
		name string
		opts []vespa.Option
	}{
		{"certificate and CA files", []vespa.Option{vespa.WithCAFile(p.caFile), vespa.WithCertificateFiles(p.clientCert, p.clientKey)}},
		{"tls.Certificate and CA PEM", []vespa.Option{vespa.WithCAPEM(testutil.ReadFile(t, p.caFile)), vespa.WithCertificate(p.client)}},
		{"tls.Config with both", []vespa.Option{vespa.WithTLSConfig(&tls.Config{RootCAs: p.caPool, Certificates: []tls.Certificate{p.client}})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, srv.URL, tt.opts...)
			res, err := c.Put(context.Background(), testID, map[string]int{"a": 1}, vespa.OperationOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.ServerID != "the-client" {
				t.Errorf("the server saw client certificate %q", res.ServerID)
			}
		})
	}
	t.Run("no client certificate is refused", func(t *testing.T) {
		c := newTestClient(t, srv.URL, vespa.WithCAFile(p.caFile), vespa.WithRetryAttempts(1))
		_, err := c.Put(context.Background(), testID, map[string]int{"a": 1}, vespa.OperationOptions{})
		var ve *vespa.Error
		if !errors.As(err, &ve) || ve.Status != 0 || ve.Err == nil {
			t.Fatalf("err = %v, want a transport *Error", err)
		}
	})
}

func TestAuth_ServerVerification(t *testing.T) {
	p := newTestPKI(t)
	srv := newTLSServer(t, p, tls.NoClientCert, 0)
	put := func(opts ...vespa.Option) error {
		c := newTestClient(t, srv.URL, append(opts, vespa.WithRetryAttempts(1))...)
		_, err := c.Put(context.Background(), testID, map[string]int{"a": 1}, vespa.OperationOptions{})
		return err
	}
	var unknownAuthority x509.UnknownAuthorityError
	if err := put(); !errors.As(err, &unknownAuthority) {
		t.Errorf("without the CA: %v, want an unknown-authority error (verification is on by default)", err)
	}
	if err := put(vespa.WithCAFile(p.caFile)); err != nil {
		t.Errorf("with the CA: %v", err)
	}
	if err := put(vespa.WithInsecureSkipVerify()); err != nil {
		t.Errorf("with verification off: %v", err)
	}
}

func TestAuth_MinimumTLS12(t *testing.T) {
	p := newTestPKI(t)
	srv := newTLSServer(t, p, tls.NoClientCert, tls.VersionTLS11)
	c := newTestClient(t, srv.URL, vespa.WithTLSConfig(&tls.Config{RootCAs: p.caPool, MinVersion: tls.VersionTLS10}), vespa.WithRetryAttempts(1))
	if _, err := c.Get(context.Background(), testID, vespa.OperationOptions{}); err == nil {
		t.Error("connected to a TLS 1.1 server; the minimum must be TLS 1.2")
	}
}

func TestAuth_TokenOverLoopback(t *testing.T) {
	srv := newFakeVespa(t, nil)
	c := newTestClient(t, srv.URL, vespa.WithToken("tok-123"))
	if _, err := c.Remove(context.Background(), testID, vespa.OperationOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := srv.last(t).Header.Get("Authorization"); got != "Bearer tok-123" {
		t.Errorf("Authorization = %q", got)
	}
}
