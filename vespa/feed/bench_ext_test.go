package feed_test

// Benchmarks of the feeder against a hand-written floor: a minimal feeder on
// plain net/http with the same connections and concurrency and nothing else
// (no retries, no stats, no ordering). Run:
//
//	go test -run '^$' -bench . -benchtime 20000x ./vespa/feed
//
// docs/s is the figure to compare; allocs/op include the in-process server's.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/feedrig"
	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

const (
	benchConnections = 4
	benchInflight    = 64
)

// benchFields returns the fields of a document of about 150 bytes, or of
// 4 KB with a 384-float vector.
func benchFields(vector bool) []byte {
	if !vector {
		return []byte(`{"title":"A Head Full of Dreams","artist":"Coldplay","year":2015,"album":"A Head Full of Dreams (Deluxe)","tags":["pop","rock"]}`)
	}
	return feedrig.LargeFields()
}

// newSink starts a trivial /document/v1 server (HTTP/1.1 and h2c) that
// answers every request with 200 at once.
func newSink(b *testing.B) string {
	return testutil.H2CServer(b, feedrig.Sink).URL
}

// floorFeed puts n documents with benchInflight goroutines over
// benchConnections h2c transports, with nothing else.
func floorFeed(b *testing.B, base string, n int, fields []byte) {
	body := append(append([]byte(`{"fields":`), fields...), '}')
	clients := make([]*http.Client, benchConnections)
	for i := range clients {
		p := new(http.Protocols)
		p.SetUnencryptedHTTP2(true)
		clients[i] = &http.Client{Transport: &http.Transport{Protocols: p}}
	}
	spread(n, func(g int, i int64) bool {
		url := fmt.Sprintf("%s/document/v1/ns/music/docid/d%d", base, i)
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := clients[g%benchConnections].Do(req)
		if err != nil {
			b.Error(err)
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Errorf("status %d", resp.StatusCode)
			return false
		}
		return true
	})
	for _, c := range clients {
		c.CloseIdleConnections()
	}
}

// sendOnceFeed puts n documents with vespa.Client.SendOnce called directly
// from the floor's goroutines: the share of the gap that is the core
// client's, not the feeder's.
func sendOnceFeed(b *testing.B, url string, n int, fields []byte) {
	client, _ := vespa.NewClient(url, vespa.WithHTTPVersion(vespa.HTTP2))
	defer client.Close()
	body := append(append([]byte(`{"fields":`), fields...), '}')
	hcs := make([]*http.Client, benchConnections)
	for i := range hcs {
		hcs[i] = client.NewHTTPClient()
	}
	ids := make([]vespa.DocumentID, n)
	for i := range ids {
		ids[i] = vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: fmt.Sprintf("d%d", i)}
	}
	spread(n, func(g int, i int64) bool {
		r, err := client.SendOnce(context.Background(), hcs[g%benchConnections], vespa.OpPut, ids[i], body, vespa.OperationOptions{})
		if err != nil || r.Status != 200 {
			b.Error(err)
			return false
		}
		return true
	})
}

// spread calls send(g, i) for every i in [0, n), from benchInflight
// goroutines numbered g, each taking the next i until none is left or its
// send returns false; it returns when all have ended.
func spread(n int, send func(g int, i int64) bool) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for g := range benchInflight {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || !send(g, i) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// feederFeed puts n documents with the feeder at the same concurrency.
func feederFeed(b *testing.B, base string, n int, fields []byte, compression feed.Compression) {
	client, err := vespa.NewClient(base, vespa.WithHTTPVersion(vespa.HTTP2))
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	var failed atomic.Int64
	f, err := feed.New(client, feed.Config{
		Connections: benchConnections, MinInflight: benchInflight, MaxInflight: benchInflight, Compression: compression,
		OnOutcome: func(_ context.Context, o feed.Outcome) {
			if !o.OK() {
				failed.Add(1)
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ids := make([]vespa.DocumentID, n)
	for i := range ids {
		ids[i] = vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: fmt.Sprintf("d%d", i)}
	}
	b.ResetTimer()
	for i := range n {
		if err := f.Put(ctx, ids[i], fields); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(ctx); err != nil {
		b.Fatal(err)
	}
	if failed.Load() != 0 {
		b.Fatalf("%d failed", failed.Load())
	}
}

func BenchmarkFeed(b *testing.B) {
	for _, target := range []string{"sink", "emulator"} {
		for _, size := range []string{"150B", "4KB"} {
			fields := benchFields(size == "4KB")
			base := func(b *testing.B) string {
				if target == "sink" {
					return newSink(b)
				}
				srv := vespatest.NewServer()
				b.Cleanup(srv.Close)
				return srv.URL()
			}
			type feeder func(b *testing.B, url string, n int, fields []byte)
			withCompression := func(c feed.Compression) feeder {
				return func(b *testing.B, url string, n int, fields []byte) { feederFeed(b, url, n, fields, c) }
			}
			type run struct {
				name string
				feed feeder
			}
			runs := []run{
				{"floor", floorFeed},
				{"sendonce", sendOnceFeed},
				{"feeder", withCompression(feed.CompressionNone)},
			}
			if target == "sink" && size == "4KB" {
				runs = append(runs, run{"feeder-gzip", withCompression(feed.CompressionGzip)})
			}
			for _, r := range runs {
				b.Run(target+"/"+size+"/"+r.name, func(b *testing.B) {
					url := base(b)
					b.ReportAllocs()
					b.ResetTimer() // feederFeed resets it again after making its ids
					r.feed(b, url, b.N, fields)
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
				})
			}
		}
	}
}

// BenchmarkFeedRatio alternates the floor, SendOnce alone and the feeder in batches of
// 2,000 documents, b.N batches each, and reports the feeder's throughput as a
// fraction of the floor's: alternating keeps a busy machine's drift from
// favouring either. Run:
//
//	go test -run '^$' -bench FeedRatio -benchtime 10x ./vespa/feed
func BenchmarkFeedRatio(b *testing.B) {
	const batch = 2000
	for _, target := range []string{"sink", "emulator"} {
		for _, size := range []string{"150B", "4KB"} {
			b.Run(target+"/"+size, func(b *testing.B) {
				fields := benchFields(size == "4KB")
				var url string
				if target == "sink" {
					url = newSink(b)
				} else {
					srv := vespatest.NewServer()
					b.Cleanup(srv.Close)
					url = srv.URL()
				}
				var floor, sendOnce, feeder time.Duration
				for range b.N {
					start := time.Now()
					floorFeed(b, url, batch, fields)
					floor += time.Since(start)
					start = time.Now()
					sendOnceFeed(b, url, batch, fields)
					sendOnce += time.Since(start)
					start = time.Now()
					feederFeed(b, url, batch, fields, feed.CompressionNone)
					feeder += time.Since(start)
				}
				n := float64(b.N * batch)
				b.ReportMetric(n/floor.Seconds(), "floor-docs/s")
				b.ReportMetric(n/feeder.Seconds(), "feeder-docs/s")
				b.ReportMetric(floor.Seconds()/feeder.Seconds(), "ratio")
				b.ReportMetric(floor.Seconds()/sendOnce.Seconds(), "sendonce-ratio")
			})
		}
	}
}
