package testutil

import (
	"context"
	"io"
	"net/http"
	"testing"
)

func TestH2CServer(t *testing.T) {
	s := H2CServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Proto)
	}))
	h2c := new(http.Protocols)
	h2c.SetUnencryptedHTTP2(true)
	for want, tr := range map[string]*http.Transport{"HTTP/1.1": {}, "HTTP/2.0": {Protocols: h2c}} {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, s.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		tr.CloseIdleConnections()
		if string(b) != want {
			t.Errorf("the server saw %s, want %s", b, want)
		}
	}
}
