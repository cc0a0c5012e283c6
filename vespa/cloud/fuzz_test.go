package cloud

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

func FuzzDecodeRunDetails(f *testing.F) {
	f.Add([]byte(`{"active":true,"status":"running","lastId":3,"log":{"deployReal":[{"at":1,"type":"info","message":"a"}],"installReal":[{"at":0,"type":"error","message":"b"}]},"steps":{"deployReal":{"status":"succeeded"}}}`))
	f.Add([]byte(`{"log":null}`))
	f.Add([]byte(`{"log":{"x":[{}],`))
	f.Add([]byte(`{"log":[1,2]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := decodeRunDetails(b)
		if err != nil {
			return
		}
		for i := 1; i < len(d.Log); i++ {
			if d.Log[i].At.Before(d.Log[i-1].At) {
				t.Fatalf("log out of order at %d", i)
			}
		}
	})
}

func FuzzParseIDs(f *testing.F) {
	f.Add("scoober.albums.default")
	f.Add("dev.aws-us-east-1c")
	f.Add("a..b")
	f.Fuzz(func(t *testing.T, s string) {
		if id, err := ParseApplicationID(s); err == nil {
			if again, err := ParseApplicationID(id.String()); err != nil || again != id {
				t.Fatalf("%q: round trip %v, %v", s, again, err)
			}
		}
		if z, err := ParseZone(s); err == nil {
			if again, err := ParseZone(z.String()); err != nil || again != z {
				t.Fatalf("%q: round trip %v, %v", s, again, err)
			}
		}
	})
}

func TestSigner_MessageAndHeaders(t *testing.T) {
	key, err := GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 678, time.FixedZone("x", 3600))
	s, err := newSigner("t:a:i", key, func() time.Time { return at })
	if err != nil {
		t.Fatal(err)
	}
	hash, n, err := ctlplane.HashBody(nil)
	if err != nil || hash != EmptyContentHash || n != 0 {
		t.Fatalf("empty body hash %q %d %v", hash, n, err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://api-ctl.vespa-cloud.com:4443/application/v4/tenant/t/application/a/instance/i/job/dev-aws-us-east-1c/run/42?after=-1", nil)
	if err := s.sign(req, hash); err != nil {
		t.Fatal(err)
	}
	h := req.Header
	if h.Get("X-Timestamp") != "2026-01-02T02:04:05Z" || h.Get("X-Content-Hash") != EmptyContentHash || h.Get("X-Key-Id") != "t:a:i" {
		t.Errorf("headers %v", h)
	}
	pubPEM, _ := base64.StdEncoding.DecodeString(h.Get("X-Key"))
	wantPub, _ := APIKeyPublicPEM(key)
	if !bytes.Equal(pubPEM, wantPub) || !bytes.HasPrefix(pubPEM, []byte("-----BEGIN PUBLIC KEY-----\n")) {
		t.Errorf("X-Key holds %q", pubPEM)
	}
	block, _ := pem.Decode(pubPEM)
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString(h.Get("X-Authorization"))
	msg := "GET\nhttps://api-ctl.vespa-cloud.com:4443/application/v4/tenant/t/application/a/instance/i/job/dev-aws-us-east-1c/run/42?after=-1\n2026-01-02T02:04:05Z\n" + EmptyContentHash
	digest := sha256.Sum256([]byte(msg))
	if !ecdsa.VerifyASN1(pub.(*ecdsa.PublicKey), digest[:], sig) {
		t.Error("signature does not verify over the canonical message")
	}
	fp, err := APIKeyFingerprint(key)
	if err != nil || len(fp) != 47 || strings.Count(fp, ":") != 15 {
		t.Errorf("fingerprint %q, %v", fp, err)
	}
}
