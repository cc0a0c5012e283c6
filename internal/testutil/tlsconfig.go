package testutil

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
)

// ClientTLSConfig returns the TLS configuration of a client that trusts the
// CA certificate caPEM and, when certPEM is not nil, presents the client
// certificate certPEM with its key keyPEM, as a test server's PEM getters
// give them. It fails the test when a PEM does not parse.
func ClientTLSConfig(tb testing.TB, caPEM, certPEM, keyPEM []byte) *tls.Config {
	tb.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		tb.Fatal("testutil: no CA certificate in caPEM")
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if certPEM != nil {
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			tb.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg
}
