package vespa_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/govespa/govespa/vespa"
)

// BenchmarkPut compares one Put through the client (policy, ID validation,
// path escaping, header injection, response decoding) with a minimal
// hand-written net/http client sending the same request to the same local
// server. Run: go test ./vespa -run '^$' -bench BenchmarkPut -benchmem
func BenchmarkPut(b *testing.B) {
	const resp = `{"pathId":"/document/v1/ns/music/docid/a","id":"id:ns:music::a"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = io.WriteString(w, resp)
	}))
	defer srv.Close()
	fields := map[string]any{"title": "Yellow", "year": 2000}
	body := []byte(`{"fields":{"title":"Yellow","year":2000}}`)
	ctx := context.Background()

	for _, bc := range []struct {
		name   string
		fields any
	}{
		{"govespa", fields},
		{"govespa-rawbody", []byte(`{"title":"Yellow","year":2000}`)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := newTestClient(b, srv.URL)
			for b.Loop() {
				if _, err := c.Put(ctx, testID, bc.fields, vespa.OperationOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("govespa-sendonce", func(b *testing.B) {
		c := newTestClient(b, srv.URL)
		for b.Loop() {
			r, err := c.SendOnce(ctx, nil, vespa.OpPut, testID, body, vespa.OperationOptions{})
			if err != nil || r.Status != 200 {
				b.Fatal(r, err)
			}
		}
	})
	b.Run("nethttp", func(b *testing.B) {
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
		defer hc.CloseIdleConnections()
		url := srv.URL + "/document/v1/ns/music/docid/a"
		for b.Loop() {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			res, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Fatal(res.Status)
			}
		}
	})
}
