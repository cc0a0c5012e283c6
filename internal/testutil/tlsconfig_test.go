package testutil

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"
)

func TestClientTLSConfig(t *testing.T) {
	certPEM, keyPEM := SelfSignedPEM(t, time.Now().Add(time.Hour))
	want := x509.NewCertPool()
	want.AppendCertsFromPEM(certPEM)
	block, _ := pem.Decode(certPEM)

	cfg := ClientTLSConfig(t, certPEM, certPEM, keyPEM)
	if !cfg.RootCAs.Equal(want) {
		t.Error("RootCAs is not the pool of caPEM")
	}
	if len(cfg.Certificates) != 1 || !bytes.Equal(cfg.Certificates[0].Certificate[0], block.Bytes) {
		t.Errorf("Certificates %d, want the one of certPEM", len(cfg.Certificates))
	}
	if cfg.MinVersion == 0 {
		t.Error("no MinVersion")
	}
	if cfg := ClientTLSConfig(t, certPEM, nil, nil); len(cfg.Certificates) != 0 || !cfg.RootCAs.Equal(want) {
		t.Errorf("without certPEM: %d certificates", len(cfg.Certificates))
	}
}
