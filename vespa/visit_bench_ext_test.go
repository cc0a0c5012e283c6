package vespa_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// BenchmarkVisit visits a 20,000-document corpus in the emulator one slice
// at a time, with the defaults (8 slices, pages of 1000), and with the
// defaults streamed, with pages of 1000 and of 5000, and reports documents
// per second. The "page latency" variants add 5 ms to every page, as a
// network and content node would, which is where parallel slices pay off;
// without it the emulator is CPU-bound.
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
		for _, v := range []struct {
			name string
			req  vespa.VisitRequest
		}{
			{"slices=1", vespa.VisitRequest{Slices: 1}},
			{"defaults", vespa.VisitRequest{}},
			{"defaults/stream", vespa.VisitRequest{Stream: true}},
			{"wanted=5000", vespa.VisitRequest{WantedDocumentCount: 5000}},
			{"wanted=5000/stream", vespa.VisitRequest{WantedDocumentCount: 5000, Stream: true}},
		} {
			req := v.req
			req.Namespace, req.DocType = "ns", "music"
			b.Run(fmt.Sprintf("latency=%v/%s", latency, v.name), func(b *testing.B) {
				var docs int
				for b.Loop() {
					for _, err := range c.Visit(b.Context(), req) {
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
