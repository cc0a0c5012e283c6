package feed_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

// newMemFeeder returns a feeder whose connections are served in memory by srv.
func newMemFeeder(t *testing.T, srv *vespatest.Server, cfg feed.Config) *feed.Feeder {
	t.Helper()
	return newHandlerFeeder(t, srv.Handler(), cfg)
}

// faultServer returns an emulator with the fault rules added.
func faultServer(t *testing.T, seed uint64, rules ...vespatest.FaultRule) *vespatest.Server {
	t.Helper()
	srv := vespatest.NewTestServer(t, vespatest.WithSeed(seed))
	for _, r := range rules {
		if err := srv.AddFault(r); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

// feedAndClose feeds text as source name through f, then closes f.
func feedAndClose(t *testing.T, f *feed.Feeder, name, text string) {
	t.Helper()
	if err := f.FeedReader(t.Context(), name, strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// outcomesOf returns rec's outcomes, which must be n.
func outcomesOf(t *testing.T, rec *recorder, n int) []feed.Outcome {
	t.Helper()
	got := rec.outcomes()
	if len(got) != n {
		t.Fatalf("%d outcomes, want %d", len(got), n)
	}
	return got
}

func TestFeeder_FaultsAreRiddenOut(t *testing.T) {
	srv := vespatest.NewTestServer(t, vespatest.WithSeed(7))
	srv.ScriptFaults(vespatest.OpAny,
		vespatest.FaultOverload(), vespatest.FaultOverload(), vespatest.FaultUnavailable(), vespatest.FaultOverload(),
		vespatest.FaultDrop(), vespatest.FaultOverload(), vespatest.FaultLatency(5*time.Second), vespatest.FaultUnavailable(),
		vespatest.FaultOverload(), vespatest.FaultDrop(), vespatest.FaultOverload(), vespatest.FaultOverload())
	for _, r := range []vespatest.FaultRule{
		{Rate: 0.3, Times: 300, Fault: vespatest.FaultOverload()},
		{Rate: 0.02, Times: 8, Fault: vespatest.FaultUnavailable()},
		{Rate: 0.02, Times: 8, Fault: vespatest.FaultDrop()},
		{Rate: 0.05, Times: 30, Fault: vespatest.FaultLatency(3 * time.Second)},
	} {
		if err := srv.AddFault(r); err != nil {
			t.Fatal(err)
		}
	}
	const n, docs = 600, 53
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		f := newMemFeeder(t, srv, feed.Config{Connections: 2, OnOutcome: rec.record})
		feedAndClose(t, f, "faults", feedLines(n, docs))
		for _, o := range outcomesOf(t, &rec, n) {
			if !o.OK() {
				t.Errorf("line %d failed: %v", o.Operation.Line, o.Err)
			}
		}
		rec.checkDocumentOrder(t)
		s := f.Stats()
		if s.Succeeded != n || s.Retries["429"] == 0 || s.Retries["503"] == 0 || s.Retries["transport"] == 0 {
			t.Errorf("stats %+v", s)
		}
		if s.Requests <= n || s.ResponsesByStatus[429] == 0 {
			t.Errorf("requests %d, responses %v", s.Requests, s.ResponsesByStatus)
		}
	})
	checkFinalState(t, srv, n, docs)
	if fs := srv.FaultStats(); fs.Dropped == 0 || fs.ByStatus[503] == 0 || fs.Delayed == 0 {
		t.Errorf("faults injected: %+v", fs)
	}
}

func TestFeeder_OperationDeadlineEndsEndlessThrottling(t *testing.T) {
	srv := faultServer(t, 1, vespatest.FaultRule{Rate: 1, Fault: vespatest.FaultOverload()})
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		f := newMemFeeder(t, srv, feed.Config{OperationTimeout: time.Minute, OnOutcome: rec.record})
		start := time.Now()
		if err := f.Remove(t.Context(), vespa.MustParseDocumentID("id:ns:music::a")); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < time.Minute || d > time.Minute+time.Second {
			t.Errorf("took %v, want the one-minute deadline", d)
		}
		got := rec.outcomes()
		if len(got) != 1 || got[0].Status != 429 || got[0].Attempts < 5 || !errors.Is(got[0].Err, context.DeadlineExceeded) ||
			!errors.Is(got[0].Err, vespa.ErrTooManyRequests) || got[0].Cancelled() {
			t.Fatalf("outcome %+v", got)
		}
		if s := f.Stats(); s.Failed != 1 || s.FailuresByStatus[429] != 1 {
			t.Errorf("stats %+v", s)
		}
	})
}

func TestFeeder_BreakerStopsAFeedThatOnlyFails(t *testing.T) {
	srv := faultServer(t, 1, vespatest.FaultRule{Rate: 1, Fault: vespatest.FaultUnavailable()})
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		f := newMemFeeder(t, srv, feed.Config{Connections: 1, MinInflight: 2, MaxInflight: 2, BreakerSpan: 10 * time.Second, OnOutcome: rec.record})
		start := time.Now()
		err := f.FeedReader(t.Context(), "doomed", strings.NewReader(feedLines(1000, 1000)))
		if !errors.Is(err, feed.ErrBreakerOpen) {
			t.Fatalf("FeedReader: %v", err)
		}
		if d := time.Since(start); d < 10*time.Second || d > 20*time.Second {
			t.Errorf("stopped after %v, want about the 10 s span", d)
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		var be *feed.BreakerError
		if !errors.As(f.Err(), &be) || !errors.Is(be, vespa.ErrUnavailable) {
			t.Errorf("Err: %v", f.Err())
		}
		got := rec.outcomes()
		s := f.Stats()
		if int64(len(got)) != s.Operations || s.Succeeded != 0 || s.Operations < 3 || s.Operations > 20 {
			t.Errorf("%d outcomes, stats %+v", len(got), s)
		}
		for _, o := range got {
			if o.OK() {
				t.Errorf("succeeded: %+v", o)
			}
		}
	})
}

func TestFeeder_CloseGivesUpAndCancelsTheRest(t *testing.T) {
	srv := faultServer(t, 1, vespatest.FaultRule{Rate: 1, Fault: vespatest.FaultLatency(time.Hour)})
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		f := newMemFeeder(t, srv, feed.Config{Connections: 1, MinInflight: 3, MaxInflight: 3, MaxPending: 20, OnOutcome: rec.record})
		const n = 10
		if err := f.FeedReader(t.Context(), "slow", strings.NewReader(feedLines(n, 4))); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		if err := f.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Close: %v", err)
		}
		got := rec.outcomes()
		if len(got) != n {
			t.Fatalf("%d outcomes, want %d", len(got), n)
		}
		for _, o := range got {
			if !o.Cancelled() || !errors.Is(o.Err, feed.ErrClosed) {
				t.Errorf("outcome %+v", o)
			}
		}
	})
}
