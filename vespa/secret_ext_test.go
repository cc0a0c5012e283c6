package vespa_test

import (
	"crypto/ecdsa"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/query"
)

// TestClient_FormatNeverShowsSecrets prints structs that hold a client, in
// every way fmt can: the "bad verb" forms (%t, %d) print the fields of a
// nested pointer at depth 0, which is how a token used to leak.
func TestClient_FormatNeverShowsSecrets(t *testing.T) {
	const token, header = "tok-s3cr3t-123", "hdr-s3cr3t-456"
	pki := newTestPKI(t)
	c := newTestClient(t, "https://localhost:8080", vespa.WithToken(token), vespa.WithHeader("X-Api-Key", header),
		vespa.WithCertificate(pki.client))
	key := pki.client.PrivateKey.(*ecdsa.PrivateKey).D //nolint:staticcheck // D is the secret we look for
	secrets := []string{token, header, fmt.Sprintf("%x", token), fmt.Sprintf("%x", header), key.String(), key.Text(16)}
	f, err := feed.New(c, feed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close(t.Context())
	q, err := query.New(c)
	if err != nil {
		t.Fatal(err)
	}
	type private struct{ c *vespa.Client }
	type public struct{ C *vespa.Client }
	type value struct{ C any }
	values := map[string]any{
		"*Client":                 c,
		"a struct with *Client":   private{c},
		"*struct with *Client":    &private{c},
		"exported *Client field":  public{c},
		"a copy of the Client":    &value{reflect.ValueOf(c).Elem().Interface()}, // the worst case
		"*feed.Feeder":            f,
		"*query.Client":           q,
		"a struct with a *Feeder": struct{ f *feed.Feeder }{f},
		"an HTTP client":          c.HTTPClient(),
		"a feeder connection":     c.NewHTTPClient(),
	}
	for name, v := range values {
		for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%t", "%d", "%x"} {
			out := fmt.Sprintf(verb, v)
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("%s with %s shows a secret: %.300s", name, verb, out)
				}
			}
		}
	}
}

func TestNewClient_ErrorsNeverShowPasswords(t *testing.T) {
	newClient := func(endpoint string) error {
		c, err := vespa.NewClient(endpoint)
		if err == nil {
			c.Close()
		}
		return err
	}
	testutil.RefusedWithoutSecret(t, "hunter2", newClient,
		"http://user:hunter2@host:bad-port",
		"ftp://user:hunter2@host",
		"http://user:hunter2@host/?q=1",
		"http://user:hunter2@host/#frag",
		"http://user:hunter2@host",
		"http://user:hunter2@[::1",
		"http://us er:hunter2@host",
		"user:hunter2@host",
		"http://user:hunter2@host\x7f",
	)
}

// FuzzNewClient_NoPasswordInErrors checks that no endpoint with user
// information gives an error that shows its password, however the rest of
// the endpoint is malformed.
func FuzzNewClient_NoPasswordInErrors(f *testing.F) {
	for _, s := range [][2]string{{"http://", "host"}, {"ftp://", "host:x"}, {"", "host"}, {"http://", "[::1"},
		{"http://a b", "host/?q"}, {"https://", "h\x7f"}, {"http:", "@h/#f"}} {
		f.Add(s[0], s[1])
	}
	const password = "Pw0rdQz7"
	f.Fuzz(func(t *testing.T, before, after string) {
		if strings.Contains(before+after, password) {
			return
		}
		endpoint := before + "user:" + password + "@" + after
		if _, err := vespa.NewClient(endpoint); err != nil && strings.Contains(err.Error(), password) {
			t.Fatalf("NewClient(%q): %v", endpoint, err)
		}
	})
}
