package integration

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/govespa/govespa/vespa/feed"
)

// maxReportedFailures bounds the failed outcomes a test keeps to report.
const maxReportedFailures = 10

// outcomeRecorder keeps the first failed outcomes of a feed.
type outcomeRecorder struct {
	mu       sync.Mutex
	failures []feed.Outcome
	failed   int
}

func (r *outcomeRecorder) record(_ context.Context, o feed.Outcome) {
	if o.OK() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed++
	if len(r.failures) < maxReportedFailures {
		r.failures = append(r.failures, o)
	}
}

// report fails t with the recorded failures, if any.
func (r *outcomeRecorder) report(t *testing.T, target string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.failures {
		t.Errorf("[%s] %s (line %d): status %d after %d attempts: %v", target, o.IDString(), o.Operation.Line, o.Status, o.Attempts, o.Err)
	}
	if r.failed > len(r.failures) {
		t.Errorf("[%s] ... and %d more failed operations", target, r.failed-len(r.failures))
	}
}

// testFeed feeds the corpus through a Feeder and checks its statistics:
// every put succeeded with 200, nothing is left pending.
func (s *suite) testFeed(t *testing.T) {
	name, n := s.tg.Name(), s.docs.n
	rec := &outcomeRecorder{}
	f, err := feed.New(s.client, feed.Config{OnOutcome: rec.record})
	if err != nil {
		t.Fatalf("[%s] feed.New: %v", name, err)
	}
	for i := range n {
		if err := f.Put(s.ctx, s.docs.id(i), s.docs.fields(i)); err != nil {
			_ = f.Close(s.ctx)
			t.Fatalf("[%s] enqueue put %d: %v", name, i, err)
		}
	}
	if err := f.Close(s.ctx); err != nil {
		t.Fatalf("[%s] feeder Close: %v", name, err)
	}
	rec.report(t, name)
	st := f.Stats()
	t.Logf("[%s] fed %d documents in %v (%.0f/s), %d requests, latency p50 %v p99 %v, retries %v",
		name, st.Succeeded, st.Elapsed, st.Throughput, st.Requests, st.Latency.P50, st.Latency.P99, st.Retries)
	want64 := int64(n)
	if st.Operations != want64 || st.Succeeded != want64 || st.Failed != 0 || st.Cancelled != 0 || st.Skipped != 0 {
		t.Errorf("[%s] stats: operations %d succeeded %d failed %d cancelled %d skipped %d, want %d succeeded and nothing else",
			name, st.Operations, st.Succeeded, st.Failed, st.Cancelled, st.Skipped, n)
	}
	if st.Pending != 0 || st.Inflight != 0 {
		t.Errorf("[%s] stats after Close: pending %d, in flight %d, want 0", name, st.Pending, st.Inflight)
	}
	if got := st.OutcomesByStatus[http.StatusOK]; got != want64 {
		t.Errorf("[%s] stats: %d outcomes with status 200, want %d (all: %v)", name, got, n, st.OutcomesByStatus)
	}
	if st.Requests < want64 || st.BytesSent <= 0 || st.BytesReceived <= 0 {
		t.Errorf("[%s] stats: %d requests, %d bytes sent, %d received; want at least %d requests and some bytes",
			name, st.Requests, st.BytesSent, st.BytesReceived, n)
	}
}

// lockedOutcomes adapts fn to Config.OnOutcome, calling it under a lock:
// the feeder calls OnOutcome from many goroutines.
func lockedOutcomes(fn func(feed.Outcome)) func(context.Context, feed.Outcome) {
	var mu sync.Mutex
	return func(_ context.Context, o feed.Outcome) {
		mu.Lock()
		defer mu.Unlock()
		fn(o)
	}
}
