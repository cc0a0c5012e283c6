package feed_test

import (
	"errors"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
)

// TestFeeder_WrongEndpointEndsTheFeed checks issue 27 item 9 for the feeder:
// feeding a closed port, the first transport failure is logged at Warn at
// once, the failed dials back off (tens a second per connection at most,
// counted by their Debug records), and once the client's connect patience
// passed without a connection the feed stops with the refusal: Feed returns
// a *BreakerError matching vespa.ErrUnreachable and ECONNREFUSED, and every
// operation read has that outcome. Before, the feed printed nothing for 60 s and
// dialled 78,752 times until the breaker ended it.
func TestFeeder_WrongEndpointEndsTheFeed(t *testing.T) {
	const n, conns = 2000, 4
	var log testutil.LogRecorder
	c := newClient(t, "http://"+testutil.FreeLoopbackAddr(t), vespa.WithLogger(slog.New(&log)), vespa.WithConnectPatience(time.Second))
	f, outcomes := recordingFeeder(t, c, feed.Config{Connections: conns})
	start := time.Now()
	err := f.FeedReader(t.Context(), "in.jsonl", strings.NewReader(feedLines(n, n)))
	took := time.Since(start)
	if cerr := f.Close(t.Context()); cerr != nil {
		t.Errorf("Close: %v", cerr)
	}
	t.Logf("%v: %v", took.Round(time.Millisecond), err)
	if !errors.Is(err, feed.ErrBreakerOpen) || !errors.Is(err, vespa.ErrUnreachable) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("Feed: %v; want the breaker open on vespa.ErrUnreachable (ECONNREFUSED)", err)
	}
	// The input is read no further once the breaker opened: every
	// operation read has its outcome.
	got := outcomes()
	if s := f.Stats(); len(got) == 0 || int64(len(got)) != s.Operations {
		t.Errorf("%d outcomes for %d operations", len(got), s.Operations)
	}
	for _, o := range got {
		if o.OK() || !errors.Is(o.Err, vespa.ErrUnreachable) && !errors.Is(o.Err, feed.ErrBreakerOpen) {
			t.Fatalf("line %d: %v; want the endpoint unreachable", o.Operation.Line, o.Err)
		}
	}
	warns := log.Records("feed: transport failure; retrying as the policy says")
	if len(warns) != 1 {
		t.Fatalf("%d Warn records of the first transport failure, want 1", len(warns))
	}
	if at := warns[0].Time.Sub(start); at >= time.Second || warns[0].Level != slog.LevelWarn {
		t.Errorf("the first transport failure logged at %v after the start, level %v; want Warn before the patience (1 s) ran out", at, warns[0].Level)
	}
	if dials, most := len(log.Records("vespa: dial failed")), conns*(int(20*took.Seconds())+2); dials > most {
		t.Errorf("%d dials in %v over %d connections: more than %d", dials, took, conns, most)
	}
}
