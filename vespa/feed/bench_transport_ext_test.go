package feed_test

// BenchmarkFeedTransport compares the feeder over govespa's batching HTTP/2
// transport (the default of vespa.WithHTTPVersion(vespa.HTTP2)) and over
// net/http's, on the same in-process h2c sink. Run:
//
//	go test -run '^$' -bench FeedTransport -benchmem -benchtime 20000x ./vespa/feed
//
// allocs/op include the in-process server's (the same for both).

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/schema"
)

func BenchmarkFeedTransport(b *testing.B) {
	for _, size := range []string{"150B", "4KB"} {
		fields := benchFields(size == "4KB")
		for _, tr := range []vespa.HTTP2Transport{vespa.HTTP2Batching, vespa.HTTP2NetHTTP} {
			name := "batching"
			if tr == vespa.HTTP2NetHTTP {
				name = "nethttp"
			}
			b.Run(size+"/"+name, func(b *testing.B) { feedPuts(b, newSink(b), tr, fields, nil) })
		}
	}
}

// feedPuts feeds b.N puts of fields to the sink at url through tr, with
// app as the feeder's Schema (nil: none). Besides docs/s it reports the
// CPU time of this process per document, cpu-µs/doc (user and system,
// where the platform tells it): the feeder's own when the sink runs in
// another process (see outOfProcessSink).
func feedPuts(b *testing.B, url string, tr vespa.HTTP2Transport, fields []byte, app *schema.Application) {
	client, err := vespa.NewClient(url, vespa.WithHTTPVersion(vespa.HTTP2), vespa.WithHTTP2Transport(tr))
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	var failed atomic.Int64
	f, err := feed.New(client, feed.Config{
		Connections: benchConnections, MinInflight: benchInflight, MaxInflight: benchInflight,
		Compression: feed.CompressionNone, Schema: app,
		OnOutcome: func(_ context.Context, o feed.Outcome) {
			if !o.OK() {
				failed.Add(1)
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]vespa.DocumentID, b.N)
	for i := range ids {
		ids[i] = vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: fmt.Sprintf("d%d", i)}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := range b.N {
		if err := f.Put(ctx, ids[i], fields); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(ctx); err != nil {
		b.Fatal(err)
	}
	if cpu1 := processCPU(); cpu1 > 0 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/doc")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	if failed.Load() != 0 {
		b.Fatalf("%d failed", failed.Load())
	}
}
