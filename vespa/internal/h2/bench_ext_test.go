package h2_test

// Benchmarks of this transport against Go's own HTTP/2 transport on the
// same in-process h2c sink: 64 goroutines over 4 connections post
// documents of 150 bytes or 4 KB. Run:
//
//	go test -run '^$' -bench . -benchmem ./vespa/internal/h2
//
// allocs/op include the in-process server's; compare the two transports'.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/internal/feedrig"
	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/internal/h2"
)

// benchSink starts a /document/v1 server (HTTP/1.1 and h2c) that answers
// every request with 200 at once.
func benchSink(b *testing.B) string {
	return testutil.H2CServer(b, feedrig.Sink).URL
}

func benchBody(size string) []byte {
	if size == "150B" {
		return []byte(`{"fields":{"title":"A Head Full of Dreams","artist":"Coldplay","year":2015,"album":"A Head Full of Dreams (Deluxe)","tags":["pop","rock"]}}`)
	}
	body := append([]byte(`{"fields":`), feedrig.LargeFields()...)
	return append(body, '}')
}

// postAll posts n bodies with 64 goroutines over the round trippers.
func postAll(b *testing.B, rts []http.RoundTripper, base string, n int, body []byte) {
	var next atomic.Int64
	parallel(64, func(g int) {
		rt := rts[g%len(rts)]
		for {
			i := next.Add(1) - 1
			if i >= int64(n) {
				return
			}
			url := base + "/document/v1/ns/music/docid/d" + fmt.Sprint(i)
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
			req.Header["Content-Type"] = []string{"application/json; charset=UTF-8"}
			req.Header["User-Agent"] = []string{"govespa/bench"}
			res, err := rt.RoundTrip(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Errorf("status %d", res.StatusCode)
				return
			}
		}
	})
}

func BenchmarkTransport(b *testing.B) {
	for _, size := range []string{"150B", "4KB"} {
		body := benchBody(size)
		for _, kind := range []string{"h2", "go"} {
			b.Run(size+"/"+kind, func(b *testing.B) {
				base := benchSink(b)
				rts := make([]http.RoundTripper, 4)
				for i := range rts {
					if kind == "h2" {
						t := &h2.Transport{}
						defer t.Close()
						rts[i] = t
					} else {
						p := new(http.Protocols)
						p.SetUnencryptedHTTP2(true)
						t := &http.Transport{Protocols: p}
						defer t.CloseIdleConnections()
						rts[i] = t
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				postAll(b, rts, base, b.N, body)
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			})
		}
	}
}
