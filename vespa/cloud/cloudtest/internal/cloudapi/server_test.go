package cloudapi

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testKey is a key pair and its PEM public key.
func testKey(t *testing.T) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	return k, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// signed builds a request signed by the rules the controller verifies.
func signed(t *testing.T, k *ecdsa.PrivateKey, pub []byte, keyID, method, url string, body []byte, at time.Time) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, url, bytes.NewReader(body))
	ts := at.UTC().Format(time.RFC3339)
	sum := sha256.Sum256(body)
	hash := base64.StdEncoding.EncodeToString(sum[:])
	digest := sha256.Sum256([]byte(method + "\n" + url + "\n" + ts + "\n" + hash))
	sig, err := ecdsa.SignASN1(rand.Reader, k, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("X-Timestamp", ts)
	r.Header.Set("X-Content-Hash", hash)
	r.Header.Set("X-Key-Id", keyID)
	r.Header.Set("X-Key", base64.StdEncoding.EncodeToString(pub))
	r.Header.Set("X-Authorization", base64.StdEncoding.EncodeToString(sig))
	return r
}

func serve(s *Server, r *http.Request) (int, map[string]any) {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	var body map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &body)
	return w.Code, body
}

const tokenURL = "http://example.com/application/v4/tenant/t/token/tok"

func TestAuthenticate(t *testing.T) {
	k, pub := testKey(t)
	other, otherPub := testKey(t)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := New(Config{Now: func() time.Time { return now }, PublicKeys: [][]byte{pub}, AccessTokens: []string{"tok"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"valid signature", signed(t, k, pub, "t:a:i", "POST", tokenURL, nil, now), 200},
		{"4m59s early", signed(t, k, pub, "t:a:i", "POST", tokenURL, nil, now.Add(-299*time.Second)), 200},
		{"6 minutes stale", signed(t, k, pub, "t:a:i", "POST", tokenURL, nil, now.Add(-6*time.Minute)), 401},
		{"6 minutes ahead", signed(t, k, pub, "t:a:i", "POST", tokenURL, nil, now.Add(6*time.Minute)), 401},
		{"unregistered key", signed(t, other, otherPub, "t:a:i", "POST", tokenURL, nil, now), 401},
		{"signature by another key", signed(t, other, pub, "t:a:i", "POST", tokenURL, nil, now), 401},
		{"key of another tenant", signed(t, k, pub, "u:a:i", "POST", tokenURL, nil, now), 403},
		{"no credentials", httptest.NewRequest(http.MethodPost, tokenURL, nil), 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := serve(s, c.req)
			if status != c.status {
				t.Errorf("status %d, want %d (%v)", status, c.status, body)
			}
			if status == 401 && (body["message"] != "Access denied" || body["code"] != float64(401)) {
				t.Errorf("401 body %v", body)
			}
		})
	}
	t.Run("URL other than the signed one", func(t *testing.T) {
		r := signed(t, k, pub, "t:a:i", "POST", tokenURL, nil, now)
		r.URL.RawQuery = "expiration=1h"
		r.RequestURI += "?expiration=1h"
		if status, _ := serve(s, r); status != 401 {
			t.Errorf("status %d, want 401", status)
		}
	})
	t.Run("body other than the hashed one", func(t *testing.T) {
		r := signed(t, k, pub, "t:a:i", "POST", tokenURL, []byte("a"), now)
		sum := sha256.Sum256([]byte("b"))
		r.Header.Set("X-Content-Hash", base64.StdEncoding.EncodeToString(sum[:]))
		if status, _ := serve(s, r); status != 401 {
			t.Errorf("status %d, want 401 (the signature covers the hash)", status)
		}
	})
	t.Run("hash signed but not the body's", func(t *testing.T) {
		r := signed(t, k, pub, "t:a:i", "POST", tokenURL, []byte("a"), now)
		r.Body = http.NoBody
		status, body := serve(s, r)
		if status != 400 || body["message"] != "Value of X-Content-Hash header does not match computed content hash" {
			t.Errorf("status %d %v", status, body)
		}
	})
	t.Run("bearer tokens", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, tokenURL, nil)
		r.Header.Set("Authorization", "Bearer tok")
		if status, _ := serve(s, r); status != 200 {
			t.Errorf("good token: %d", status)
		}
		r.Header.Set("Authorization", "Bearer nope")
		if status, _ := serve(s, r); status != 401 {
			t.Errorf("bad token: %d", status)
		}
	})
}

func TestRunLogPaging(t *testing.T) {
	k, pub := testKey(t)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, _ := New(Config{Now: func() time.Time { return now }, RunStatus: "installationFailed"})
	base := "http://example.com/application/v4/tenant/t/application/a/instance/i/"
	form, ct := deployForm(t, zipWith(t, "services.xml"))
	r := signed(t, k, pub, "t:a:i", "POST", base+"deploy/dev-aws-us-east-1c", form, now)
	r.Header.Set("Content-Type", ct)
	if status, body := serve(s, r); status != 200 || body["run"] != float64(1) {
		t.Fatalf("deploy: %d %v", status, body)
	}
	poll := func(after string) map[string]any {
		status, body := serve(s, signed(t, k, pub, "t:a:i", "GET", base+"job/dev-aws-us-east-1c/run/1?after="+after, nil, now))
		if status != 200 {
			t.Fatalf("poll: %d %v", status, body)
		}
		return body
	}
	if b := poll("-1"); b["active"] != true || b["lastId"] != float64(0) || len(b["log"].(map[string]any)) != 0 {
		t.Errorf("at start: %v", b)
	}
	now = now.Add(2 * time.Second)
	b := poll("-1")
	if b["lastId"] != float64(2) || len(b["log"].(map[string]any)["deployReal"].([]any)) != 2 {
		t.Errorf("after 2 s: %v", b)
	}
	now = now.Add(time.Hour)
	b = poll("2")
	log := b["log"].(map[string]any)
	if b["active"] != false || b["status"] != "installationFailed" || log["deployReal"] != nil || len(log["installReal"].([]any)) != 2 {
		t.Errorf("at the end, after 2: %v", b)
	}
	if st := b["steps"].(map[string]any)["installReal"].(map[string]any)["status"]; st != "failed" {
		t.Errorf("installReal step %v", st)
	}
}

func TestDeployRejectsPackageWithoutServicesXML(t *testing.T) {
	s, _ := New(Config{AccessTokens: []string{"tok"}})
	form, ct := deployForm(t, zipWith(t, "hosts.xml"))
	r := httptest.NewRequest(http.MethodPost, "http://x/application/v4/tenant/t/application/a/instance/i/deploy/dev-aws-us-east-1c",
		bytes.NewReader(form))
	r.Header.Set("Authorization", "Bearer tok")
	r.Header.Set("Content-Type", ct)
	if status, body := serve(s, r); status != 400 || body["error-code"] != "BAD_REQUEST" || !strings.Contains(body["message"].(string), "services.xml") {
		t.Errorf("%d %v", status, body)
	}
}

// TestDeployRejectsAPlainZip: Vespa's clients always send multipart form
// data; a bare zip is the SDK's mistake, refused.
func TestDeployRejectsAPlainZip(t *testing.T) {
	s, _ := New(Config{AccessTokens: []string{"tok"}})
	r := httptest.NewRequest(http.MethodPost, "http://x/application/v4/tenant/t/application/a/instance/i/deploy/dev-aws-us-east-1c",
		bytes.NewReader(zipWith(t, "services.xml")))
	r.Header.Set("Authorization", "Bearer tok")
	r.Header.Set("Content-Type", "application/zip")
	if status, body := serve(s, r); status != 400 || !strings.Contains(body["message"].(string), "multipart") {
		t.Errorf("%d %v", status, body)
	}
}

func TestNewRejectsBadKey(t *testing.T) {
	if _, err := New(Config{PublicKeys: [][]byte{[]byte("nope")}}); err == nil {
		t.Error("New accepted a key that is not PEM")
	}
}

func FuzzParsePublicKey(f *testing.F) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	f.Add(base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))
	f.Add("")
	f.Add("LS0tLS1CRUdJTi")
	f.Fuzz(func(t *testing.T, s string) {
		if k, der, ok := parsePublicKey(s); ok && (k == nil || len(der) == 0) {
			t.Fatal("ok without a key")
		}
	})
}
