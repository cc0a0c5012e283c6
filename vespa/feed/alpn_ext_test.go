package feed_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/retries"
)

// A TLS server that does not offer h2 in ALPN is a final error for the
// feeder, at the first attempt: sending again gets the same answer. Before,
// the feeder retried it as a transport failure until each operation's
// timeout (issue 27 item 12).
func TestFeeder_NoHTTP2InALPNIsFinal(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request %s reached an HTTP/1.1-only server", r.URL)
	}))
	srv.EnableHTTP2 = false
	srv.StartTLS()
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	c, err := vespa.NewClient(srv.URL, vespa.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, recorded := recordingFeeder(t, c, feed.Config{Connections: 1})
	for i := range 3 {
		if err := f.Put(t.Context(), vespa.MustParseDocumentID(fmt.Sprintf("id:ns:music::%d", i)), map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	_ = f.Close(t.Context())
	outcomes := recorded()
	if len(outcomes) != 3 {
		t.Fatalf("%d outcomes, want 3", len(outcomes))
	}
	for _, o := range outcomes {
		if !errors.Is(o.Err, retries.ErrHTTP2NotNegotiated) || o.Attempts != 1 {
			t.Errorf("outcome of %s: %d attempts, %v; want 1 attempt and ErrHTTP2NotNegotiated", o.Operation.ID, o.Attempts, o.Err)
		}
	}
}
