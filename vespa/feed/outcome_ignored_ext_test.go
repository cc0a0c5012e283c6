package feed_test

import (
	"testing"

	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestFeeder_IgnoredOperationIsVisible: a remove that Vespa answers with
// 200 and X-Vespa-Ignored-Operation: true (DocumentRouteSelectorPolicy drops
// an operation no content cluster's selection matches, and
// DocumentV1ApiHandler.handleFeedOperation sets the header) succeeds with
// Outcome.Ignored set; the others do not have it. Before Outcome.Ignored,
// the ignored remove was a plain success.
func TestFeeder_IgnoredOperationIsVisible(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	srv.ScriptFaults(vespatest.OpRemove, vespatest.FaultIgnored())
	rec := &recorder{}
	f := newMemFeeder(t, srv, feed.Config{OnOutcome: rec.record})
	feedAndClose(t, f, "ignored.jsonl",
		`{"put":"id:ns:music::a","fields":{"title":"a"}}`+"\n"+
			`{"remove":"id:ns:music::a"}`+"\n"+
			`{"remove":"id:ns:music::b"}`+"\n")
	got := outcomesOf(t, rec, 3)
	ignored := 0
	for _, o := range got {
		if !o.OK() {
			t.Errorf("%s: %v", o.IDString(), o.Err)
		}
		if o.Ignored {
			ignored++
			if o.Status != 200 || o.Operation.Kind.String() != "remove" {
				t.Errorf("ignored outcome %+v: want a remove answered 200", o)
			}
		}
	}
	if ignored != 1 {
		t.Errorf("%d outcomes ignored, want the one remove the server ignored", ignored)
	}
}
