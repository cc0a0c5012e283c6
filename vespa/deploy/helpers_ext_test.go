package deploy_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/deploy"
)

// appPackage returns a small application package in a directory.
func appPackage(t *testing.T) *deploy.Package {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"services.xml": "<services version='1.0'/>", "schemas/music.sd": "schema music {}"},
		[]string{"services.xml", "schemas/music.sd"})
	p, err := deploy.NewPackage(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// keyPair is a self-signed certificate and its private key, both PEM.
type keyPair struct{ CertificatePEM, PrivateKeyPEM []byte }

// newKeyPair makes a data-plane style self-signed certificate.
func newKeyPair(t *testing.T) keyPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cloud.vespa.example"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return keyPair{pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})}
}
