package vespatest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// credentials are the certificates generated for a TLS server: a CA, the
// server certificate it signs, and a client certificate it signs.
type credentials struct {
	caPEM     []byte
	pool      *x509.CertPool
	server    tls.Certificate
	client    tls.Certificate
	clientPEM []byte
	keyPEM    []byte
}

func newCredentials() (*credentials, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("vespatest: generate CA key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "vespatest CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("vespatest: create CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("vespatest: parse CA certificate: %w", err)
	}
	c := &credentials{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), pool: x509.NewCertPool()}
	c.pool.AddCert(caCert)
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage) (tls.Certificate, []byte, []byte, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return tls.Certificate{}, nil, nil, err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: cn},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		}
		if usage == x509.ExtKeyUsageServerAuth {
			tmpl.DNSNames = []string{"localhost"}
			tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			return tls.Certificate{}, nil, nil, err
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return tls.Certificate{}, nil, nil, err
		}
		certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		return cert, certPEM, keyPEM, err
	}
	if c.server, _, _, err = leaf(2, "localhost", x509.ExtKeyUsageServerAuth); err != nil {
		return nil, fmt.Errorf("vespatest: create server certificate: %w", err)
	}
	if c.client, c.clientPEM, c.keyPEM, err = leaf(3, "vespatest client", x509.ExtKeyUsageClientAuth); err != nil {
		return nil, fmt.Errorf("vespatest: create client certificate: %w", err)
	}
	return c, nil
}

func (c *credentials) serverConfig(requireClientCert bool) *tls.Config {
	cfg := &tls.Config{
		Certificates: []tls.Certificate{c.server},
		NextProtos:   []string{"h2", "http/1.1"},
		MinVersion:   tls.VersionTLS12,
	}
	if requireClientCert {
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
		cfg.ClientCAs = c.pool
	}
	return cfg
}

func (c *credentials) clientConfig() *tls.Config {
	return &tls.Config{RootCAs: c.pool, Certificates: []tls.Certificate{c.client}, MinVersion: tls.VersionTLS12}
}

// CACertificatePEM returns the PEM of the CA that signed the server's (and the
// client's) certificate, or nil for a plain-HTTP server.
func (s *Server) CACertificatePEM() []byte {
	if s.creds == nil {
		return nil
	}
	return append([]byte(nil), s.creds.caPEM...)
}

// ClientCertificatePEM returns a client certificate and its PKCS#8 private
// key, both PEM, that the server accepts under [WithClientCertificates]; nil
// for a plain-HTTP server. Write them to files to test certificate loading.
func (s *Server) ClientCertificatePEM() (certPEM, keyPEM []byte) {
	if s.creds == nil {
		return nil, nil
	}
	return append([]byte(nil), s.creds.clientPEM...), append([]byte(nil), s.creds.keyPEM...)
}
