package query_test

import (
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/query"
)

// TestDecodeResult_coverageFromVespasRenderer decodes root.coverage as
// Vespa's JsonRenderer writes it (container-search
// com/yahoo/search/rendering/JsonRenderer.java, renderCoverage: every
// degraded flag written once one is set). The fixtures were rendered by that
// renderer in the JDisc harness (integration/jdisc, query property
// harness.degraded), over a coverage built as a content node's soft-timeout
// reply builds it (ProtobufSerialization.convertToCoverage): half the
// documents covered, the hits found so far, status 200 and no error.
func TestDecodeResult_coverageFromVespasRenderer(t *testing.T) {
	for _, tc := range []struct {
		file string
		want query.Degraded
	}{
		{"testdata/jdisc-coverage-degraded-timeout.json", query.Degraded{Timeout: true}},
		{"testdata/jdisc-coverage-degraded-non-ideal-state.json", query.Degraded{NonIdealState: true}},
	} {
		body := testutil.ReadFile(t, tc.file)
		r, err := query.DecodeResult(body)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		c := r.Coverage
		if c == nil || c.Degraded == nil {
			t.Fatalf("%s: coverage %+v, want it degraded", tc.file, c)
		}
		if *c.Degraded != tc.want || !c.IsDegraded() || c.Full || c.Percent != 50 || c.Documents != 1 || c.Nodes != 1 || c.Results != 1 || c.ResultsFull != 0 {
			t.Errorf("%s: coverage %+v degraded %+v, want 50%% of 1 document, not full, degraded %+v", tc.file, c, *c.Degraded, tc.want)
		}
		// A soft timeout is a result, not an error: the hits found so far.
		if len(r.Hits) != 2 || r.TotalCount != 2 || r.Err() != nil {
			t.Errorf("%s: %d hits, totalCount %d, err %v; want the 2 hits and no error", tc.file, len(r.Hits), r.TotalCount, r.Err())
		}
	}
}
