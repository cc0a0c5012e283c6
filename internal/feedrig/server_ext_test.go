package feedrig_test

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/feedrig"
)

// The sink answers a put over HTTP/1.1 and over h2c, and nothing listens
// once stop has returned.
func TestServe_sinkOverHTTP1AndH2C(t *testing.T) {
	url, stop, err := feedrig.Serve(t.Context(), feedrig.Sink)
	if err != nil {
		t.Fatal(err)
	}
	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	h1 := &http.Transport{TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}
	for name, tr := range map[string]*http.Transport{"HTTP/1.1": h1, "h2c": h2c} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/document/v1/ns/music/docid/d0",
			strings.NewReader(`{"fields":{"title":"x"}}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		wantProto := map[string]int{"HTTP/1.1": 1, "h2c": 2}[name]
		if resp.StatusCode != http.StatusOK || resp.ProtoMajor != wantProto || !strings.Contains(string(body), `"id":"id:ns:music::d0"`) ||
			resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %s %s %q, want 200 over HTTP/%d with a put answer", name, resp.Proto, resp.Status, body, wantProto)
		}
		tr.CloseIdleConnections()
	}
	stop()
	var d net.Dialer
	if conn, err := d.DialContext(t.Context(), "tcp", strings.TrimPrefix(url, "http://")); err == nil {
		_ = conn.Close()
		t.Error("the server still listens after stop")
	}
}
