package feed_test

import (
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
)

// TestFeeder_DeadConnectionIsReplaced checks issue 27 item 5 for the
// feeder: one of its connections goes silent mid-feed; the PING after the
// read-idle interval goes unanswered, the connection is closed, and its
// operations are retried on a new one: every operation succeeds. Before,
// the feeder kept sending to the silent connection until the operations
// timed out.
func TestFeeder_DeadConnectionIsReplaced(t *testing.T) {
	url, conns := testutil.SilentH2Server(t, 20, false)
	c, err := vespa.NewClient(url, vespa.WithHealthCheck(100*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := feed.New(c, feed.Config{Connections: 2, OperationTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	putAll(t, f, 300)
	if got := conns.Load(); got < 3 {
		t.Errorf("%d connections: the silent one was never replaced", got)
	}
}
