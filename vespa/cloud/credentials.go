package cloud

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// File names of data-plane credentials, as Vespa's CLI names them in
// ~/.vespa/<tenant>.<application>.<instance>/.
const (
	DataPlaneCertificateFile = "data-plane-public-cert.pem"
	DataPlanePrivateKeyFile  = "data-plane-private-key.pem"
)

// certificateValidity is how long generated certificates are valid, as with
// Vespa's CLI: about 10 years.
const certificateValidity = 3650 * 24 * time.Hour

// KeyPair is a data-plane private key and its self-signed certificate, both
// PEM. Put the certificate in the application package
// ([deploy.Package.WithClientCertificate]) and present both to the data plane.
type KeyPair struct {
	// CertificatePEM is the certificate ("CERTIFICATE").
	CertificatePEM []byte
	// PrivateKeyPEM is the private key (PKCS #8 "PRIVATE KEY"). Keep it secret.
	PrivateKeyPEM []byte
}

// GenerateKeyPair creates a data-plane key pair natively, as `vespa auth cert`
// does: an ECDSA P-256 key (PKCS #8) and a self-signed certificate for
// CN=cloud.vespa.example with a random 128-bit serial, valid for about 10
// years from now.
func GenerateKeyPair() (*KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("cloud: generating key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("cloud: generating serial number: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "cloud.vespa.example"},
		NotBefore:             now,
		NotAfter:              now.Add(certificateValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("cloud: creating certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("cloud: encoding key: %w", err)
	}
	return &KeyPair{
		CertificatePEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		PrivateKeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// CredentialsDir returns the directory where Vespa's CLI keeps the data-plane
// credentials of app: $VESPA_CLI_HOME/<tenant>.<application>.<instance>, where
// VESPA_CLI_HOME defaults to ~/.vespa.
func CredentialsDir(app ApplicationID) (string, error) {
	if err := app.validate(); err != nil {
		return "", err
	}
	home := os.Getenv("VESPA_CLI_HOME")
	if home == "" {
		userHome, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cloud: credentials directory: %w", err)
		}
		home = filepath.Join(userHome, ".vespa")
	}
	return filepath.Join(home, app.String()), nil
}

// ErrCredentialsExist is returned by [KeyPair.Save] when a file exists and
// overwrite is false.
var ErrCredentialsExist = errors.New("cloud: credentials already exist")

// Save writes the certificate and key to dir (see [CredentialsDir]) as
// data-plane-public-cert.pem (mode 0644) and data-plane-private-key.pem (mode
// 0600), creating dir with mode 0700, and returns both paths. Unless overwrite
// is true, it fails with [ErrCredentialsExist] when either file exists, and
// writes nothing.
func (kp *KeyPair) Save(dir string, overwrite bool) (certFile, keyFile string, err error) {
	certFile = filepath.Join(dir, DataPlaneCertificateFile)
	keyFile = filepath.Join(dir, DataPlanePrivateKeyFile)
	if !overwrite {
		for _, f := range []string{certFile, keyFile} {
			if _, err := os.Stat(f); err == nil {
				return "", "", fmt.Errorf("%w: %s", ErrCredentialsExist, f)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return "", "", fmt.Errorf("cloud: %w", err)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("cloud: %w", err)
	}
	if err := writeFileAtomic(keyFile, kp.PrivateKeyPEM, 0o600); err != nil {
		return "", "", err
	}
	if err := writeFileAtomic(certFile, kp.CertificatePEM, 0o644); err != nil {
		return "", "", err
	}
	return certFile, keyFile, nil
}

// writeFileAtomic writes data to a temporary file in name's directory, with
// mode perm from the start (a private key is never readable by others, even
// for a moment), syncs and closes it, and renames it over name. A failed
// write, sync or close is an error (the file may be incomplete), and the
// temporary file is then removed; a failure to remove it is reported too.
func writeFileAtomic(name string, data []byte, perm fs.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-"+filepath.Base(name)+"-*")
	if err != nil {
		return fmt.Errorf("cloud: %w", err)
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err == nil {
			return
		}
		if !closed {
			if cerr := f.Close(); cerr != nil {
				err = errors.Join(err, fmt.Errorf("cloud: %w", cerr))
			}
		}
		if rerr := os.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("cloud: removing the temporary file: %w", rerr))
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("cloud: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("cloud: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cloud: %w", err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return fmt.Errorf("cloud: writing %s: %w", name, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("cloud: %w", err)
	}
	return nil
}
