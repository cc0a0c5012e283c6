package vespa_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// BenchmarkVisit visits a 20,000-document corpus in the emulator with 1 and
// with 4 slices, and reports documents per second. The "page latency"
// variants add 5 ms to every page, as a network and content node would, which
// is where parallel slices pay off; without it the emulator is CPU-bound.
//
//	go test -run XXX -bench BenchmarkVisit -benchtime 3x ./vespa
func BenchmarkVisit(b *testing.B) {
	const corpus = 20000
	for _, latency := range []time.Duration{0, 5 * time.Millisecond} {
		srv, err := vespatest.Start()
		if err != nil {
			b.Fatal(err)
		}
		visitCorpus(b, srv, "ns", corpus)
		if latency > 0 {
			if err := srv.AddFault(vespatest.FaultRule{Op: vespatest.OpVisit, Rate: 1, Fault: vespatest.FaultLatency(latency)}); err != nil {
				b.Fatal(err)
			}
		}
		c, err := vespa.NewClient(srv.URL())
		if err != nil {
			b.Fatal(err)
		}
		for _, slices := range []int{1, 4} {
			b.Run(fmt.Sprintf("latency=%v/slices=%d", latency, slices), func(b *testing.B) {
				var docs int
				for b.Loop() {
					for _, err := range c.Visit(b.Context(), vespa.VisitRequest{
						Namespace: "ns", DocType: "music", Slices: slices, WantedDocumentCount: 500,
					}) {
						if err != nil {
							b.Fatal(err)
						}
						docs++
					}
				}
				if docs != corpus*b.N {
					b.Fatalf("%d documents, want %d", docs, corpus*b.N)
				}
				b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
			})
		}
		_ = c.Close()
		srv.Close()
	}
}
