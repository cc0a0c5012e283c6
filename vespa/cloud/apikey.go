package cloud

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// EmptyContentHash is the X-Content-Hash of a request without a body: the
// standard base64 of the SHA-256 of zero bytes.
const EmptyContentHash = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="

// ParseAPIKey parses a Vespa Cloud API key: a PEM-encoded ECDSA P-256 private
// key, either SEC 1 ("EC PRIVATE KEY", as `vespa auth api-key` writes it) or
// PKCS #8 ("PRIVATE KEY", as the console may hand it out). The error never
// contains key material.
func ParseAPIKey(pemKey []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(pemKey)
	if block == nil {
		return nil, errors.New("cloud: API key: no PEM block found")
	}
	var key *ecdsa.PrivateKey
	switch block.Type {
	case "EC PRIVATE KEY":
		k, err := x509.ParseECPrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("cloud: API key: invalid EC private key")
		}
		key = k
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("cloud: API key: invalid PKCS #8 private key")
		}
		ek, ok := k.(*ecdsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("cloud: API key: a %T, not an ECDSA key", k)
		}
		key = ek
	default:
		return nil, fmt.Errorf("cloud: API key: PEM block %q is not a private key", block.Type)
	}
	if key.Curve != elliptic.P256() {
		return nil, fmt.Errorf("cloud: API key: curve %s, want P-256", key.Curve.Params().Name)
	}
	return key, nil
}

// GenerateAPIKey returns a new ECDSA P-256 private key as an "EC PRIVATE KEY"
// PEM, the format `vespa auth api-key` writes. Register its public key
// ([APIKeyPublicPEM]) with the tenant in the Vespa Cloud console.
func GenerateAPIKey() ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("cloud: generating API key: %w", err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("cloud: generating API key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// APIKeyPublicPEM returns the public key of an API key as a "PUBLIC KEY" PEM
// (PKIX), the form the console registers and the X-Key header carries.
func APIKeyPublicPEM(pemKey []byte) ([]byte, error) {
	key, err := ParseAPIKey(pemKey)
	if err != nil {
		return nil, err
	}
	return publicPEM(key)
}

// APIKeyFingerprint returns the fingerprint the console shows for an API key:
// the MD5 of its public key's DER, as colon-separated lowercase hex.
func APIKeyFingerprint(pemKey []byte) (string, error) {
	key, err := ParseAPIKey(pemKey)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", fmt.Errorf("cloud: API key: %w", err)
	}
	sum := md5.Sum(der)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = hex.EncodeToString([]byte{b})
	}
	return strings.Join(parts, ":"), nil
}

func publicPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("cloud: API key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// signer signs control-plane requests with an API key, as Vespa Cloud verifies
// them: an ECDSA P-256 SHA-256 signature (ASN.1 DER, standard base64) over
// METHOD "\n" URL "\n" timestamp "\n" content hash, where URL is the absolute
// URL sent (scheme, host, port, path and query), timestamp is RFC 3339 UTC and
// the content hash is the standard base64 of the body's SHA-256.
type signer struct {
	keyID  string // tenant:application:instance
	key    *ecdsa.PrivateKey
	pubB64 string // base64 of the public key's PEM text
	now    func() time.Time
	rand   io.Reader
}

func newSigner(keyID string, pemKey []byte, now func() time.Time) (*signer, error) {
	key, err := ParseAPIKey(pemKey)
	if err != nil {
		return nil, err
	}
	pub, err := publicPEM(key)
	if err != nil {
		return nil, err
	}
	return &signer{keyID: keyID, key: key, pubB64: base64.StdEncoding.EncodeToString(pub), now: now, rand: rand.Reader}, nil
}

// sign sets the five signature headers on req, whose body hashes to
// contentHash (see ctlplane.HashBody). Called once per attempt, so every attempt
// carries a fresh timestamp.
func (s *signer) sign(req *http.Request, contentHash string) error {
	ts := s.now().UTC().Format(time.RFC3339)
	msg := req.Method + "\n" + req.URL.String() + "\n" + ts + "\n" + contentHash
	digest := sha256.Sum256([]byte(msg))
	sig, err := ecdsa.SignASN1(s.rand, s.key, digest[:])
	if err != nil {
		return fmt.Errorf("cloud: signing request: %w", err)
	}
	req.Header.Set("X-Timestamp", ts)
	req.Header.Set("X-Content-Hash", contentHash)
	req.Header.Set("X-Key-Id", s.keyID)
	req.Header.Set("X-Key", s.pubB64)
	req.Header.Set("X-Authorization", base64.StdEncoding.EncodeToString(sig))
	return nil
}
