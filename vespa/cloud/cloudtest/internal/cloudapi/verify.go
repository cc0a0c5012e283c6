package cloudapi

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"strings"
	"time"
)

// MaxSkew is the largest difference between a request's X-Timestamp and the
// server's clock that the controller accepts, in either direction.
const MaxSkew = 5 * time.Minute

// authResult is the outcome of authenticating a request.
type authResult struct {
	status  int    // 0: authenticated
	message string // why not
	keyID   string // tenant:application:instance of a signed request
	signed  bool
}

// authenticate checks the bearer token or the API-key signature of r, whose
// body is body. A request fails with 401 when its credentials are missing,
// unknown, stale or do not verify, as the controller's signature filter
// answers "Access denied".
func (s *Server) authenticate(r *http.Request, body []byte) authResult {
	if auth := r.Header.Get("Authorization"); auth != "" {
		tok, ok := strings.CutPrefix(auth, "Bearer ")
		if ok && s.cfg.acceptsToken(tok) {
			return authResult{}
		}
		return authResult{status: http.StatusUnauthorized, message: "Access denied"}
	}
	h := r.Header
	keyID, ts, hash, keyB64, sigB64 := h.Get("X-Key-Id"), h.Get("X-Timestamp"), h.Get("X-Content-Hash"),
		h.Get("X-Key"), h.Get("X-Authorization")
	if keyID == "" || ts == "" || hash == "" || keyB64 == "" || sigB64 == "" {
		return authResult{status: http.StatusUnauthorized, message: "Access denied"}
	}
	deny := authResult{status: http.StatusUnauthorized, message: "Access denied", keyID: keyID}
	pub, pubPEM, ok := parsePublicKey(keyB64)
	if !ok || !s.cfg.acceptsKey(pubPEM) {
		return deny
	}
	then, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return deny
	}
	if skew := s.now().Sub(then); skew > MaxSkew || skew < -MaxSkew {
		return deny
	}
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		return deny
	}
	message := r.Method + "\n" + requestURL(r) + "\n" + ts + "\n" + hash
	digest := sha256.Sum256([]byte(message))
	if !ecdsa.VerifyASN1(pub, digest[:], sig) {
		return deny
	}
	return authResult{keyID: keyID, signed: true}
}

// contentHashMatches reports whether X-Content-Hash is the standard base64 of
// the SHA-256 of body.
func contentHashMatches(r *http.Request, body []byte) bool {
	sum := sha256.Sum256(body)
	return r.Header.Get("X-Content-Hash") == base64.StdEncoding.EncodeToString(sum[:])
}

// requestURL rebuilds the absolute URL the client sent: scheme, host (with
// its port, as the Host header carries it), path and query.
func requestURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.RequestURI()
}

// parsePublicKey decodes X-Key: the standard base64 of a PEM "PUBLIC KEY"
// holding an ECDSA P-256 key. It also returns the PEM's DER, to compare keys.
func parsePublicKey(b64 string) (*ecdsa.PublicKey, []byte, bool) {
	pemText, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, nil, false
	}
	block, _ := pem.Decode(pemText)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, nil, false
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, nil, false
	}
	ec, ok := key.(*ecdsa.PublicKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, nil, false
	}
	return ec, block.Bytes, true
}

// publicKeyDER returns the DER of a PEM public key, or of the public half of
// a PEM private key, so that a test may register either.
func publicKeyDER(pemText []byte) ([]byte, bool) {
	block, _ := pem.Decode(pemText)
	if block == nil {
		return nil, false
	}
	switch block.Type {
	case "PUBLIC KEY":
		if _, err := x509.ParsePKIXPublicKey(block.Bytes); err != nil {
			return nil, false
		}
		return block.Bytes, true
	case "EC PRIVATE KEY":
		k, err := x509.ParseECPrivateKey(block.Bytes)
		if err != nil {
			return nil, false
		}
		der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
		return der, err == nil
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, false
		}
		ek, ok := k.(*ecdsa.PrivateKey)
		if !ok {
			return nil, false
		}
		der, err := x509.MarshalPKIXPublicKey(&ek.PublicKey)
		return der, err == nil
	}
	return nil, false
}

func (c *Config) acceptsKey(der []byte) bool {
	if len(c.keys) == 0 {
		return true
	}
	for _, k := range c.keys {
		if bytes.Equal(k, der) {
			return true
		}
	}
	return false
}

func (c *Config) acceptsToken(tok string) bool {
	for _, t := range c.AccessTokens {
		if t != "" && t == tok {
			return true
		}
	}
	return false
}
