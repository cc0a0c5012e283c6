package feed

import (
	"slices"
	"testing"
	"time"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestThrottler(min, max int, rnd float64) (*throttler, *fakeClock) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	t := newThrottler(min, max, min)
	t.now = clk.now
	t.start = clk.t
	t.rand = func() float64 { return rnd }
	return t, clk
}

// simulate runs the throttler against a server whose throughput (per
// second) at a given in-flight count is tp, for rounds samples, and returns
// the limits it chose.
func simulate(t *throttler, clk *fakeClock, tp func(inflight int) float64, rounds int) []int {
	return simulateServer(t, clk, tp, func(int) time.Duration { return 0 }, rounds)
}

func TestThrottler_StartsAtMinAndStaysInBounds(t *testing.T) {
	th, clk := newTestThrottler(16, 1024, 0.99)
	if th.limit() != 16 {
		t.Fatalf("starts at %d, want 16", th.limit())
	}
	for _, l := range simulate(th, clk, func(n int) float64 { return float64(n) * 1000 }, 60) {
		if l < 16 || l > 1024 {
			t.Fatalf("limit %d out of [16, 1024]", l)
		}
	}
}

func TestThrottler_ClimbsWhileThroughputGrows(t *testing.T) {
	th, clk := newTestThrottler(16, 1024, 0.5)
	// Throughput grows with in flight up to 400, then stays flat.
	limits := simulate(th, clk, func(n int) float64 { return float64(min(n, 400)) * 1000 }, 150)
	if last := limits[len(limits)-1]; last < 200 {
		t.Errorf("limit ended at %d, want it to have climbed towards 400 (limits %v)", last, limits[:20])
	}
}

// The case the Go CLI's port gets wrong: when the best measured bucket is
// the lowest of several, the target must move near it, not jump above it.
func TestThrottler_DoesNotJumpUpWhenTheLowestBucketIsBest(t *testing.T) {
	th, _ := newTestThrottler(16, 4096, 0) // rand 0: the random step is its lowest, 0.84·best − 1
	lo, hi := th.bucketOf(64), th.bucketOf(1024)
	th.throughputs[lo] = 10000 // best by far
	th.throughputs[hi] = 100
	got := th.choose(1024)
	best := th.inflightOf(float64(lo))
	if want := int64(0.84*best - 1); got != want {
		t.Errorf("target %d, want the random step %d near the best %.0f", got, want, best)
	}
	if jump := int64(1 + th.inflightOf(float64(lo+1))); got >= jump {
		t.Errorf("target %d jumped to the bucket above the lowest (%d)", got, jump)
	}
}

func TestThrottler_JumpsUpWhenTheHighestBucketIsBest(t *testing.T) {
	th, _ := newTestThrottler(16, 4096, 0)
	lo, hi := th.bucketOf(64), th.bucketOf(1024)
	th.throughputs[lo] = 100
	th.throughputs[hi] = 10000
	got := th.choose(1024)
	if want := int64(1 + th.inflightOf(float64(hi+1))); got != want {
		t.Errorf("target %d, want the next bucket up, %d", got, want)
	}
}

// wantLimit fails t unless th's limit is want; after says what came before.
func wantLimit(t *testing.T, th *throttler, want int, after string) {
	t.Helper()
	if l := th.limit(); l != want {
		t.Errorf("limit %s is %d, want %d", after, l, want)
	}
}

func TestThrottler_BacksOffWhenThrottled(t *testing.T) {
	th, _ := newTestThrottler(16, 1024, 0.5)
	th.target.Store(800)
	th.throttled(600)
	wantLimit(t, th, 300, "after a 429 with 600 in flight")
	// Back within 90% of the 600 in flight that were throttled, it creeps a
	// tenth as fast; past them, a fiftieth.
	for _, step := range []struct {
		successes, want int
		after           string
	}{
		{100, 310, "after 100 successes (300 + 10)"},
		{2300, 540, "after 2400 successes (300 + 240)"},
		{1000, 550, "after 1000 more (540 + 10)"},
		{5000, 600, "after 5000 more (550 + 50, back where it was throttled)"},
		{5000, 610, "after 5000 more (past it, one step in fifty successes)"},
	} {
		for range step.successes {
			th.success(time.Millisecond)
		}
		wantLimit(t, th, step.want, step.after)
	}
	th.throttled(10)
	wantLimit(t, th, 16, "after a 429 with 10 in flight (the minimum)")
}

// Vespa's Java feed client (StaticThrottler.throttled, called by
// HttpRequestStrategy for every 429) backs off on every throttle signal, with
// no window, but to half the operations in flight, not half the current
// ceiling: a burst of 429s answered to the same in-flight operations backs
// off once, and the ceiling only falls further as in flight falls. Under a
// steady share of 429s it still settles near the minimum, as Java's does: a
// 429 costs half the in flight, a success gives back a tenth.
func TestThrottler_ABurstOf429sBacksOffToHalfTheInflightOnce(t *testing.T) {
	th, _ := newTestThrottler(16, 1024, 0.5)
	th.target.Store(1024)
	for range 50 {
		th.throttled(600)
	}
	wantLimit(t, th, 300, "after 50 429s with 600 in flight (half of 600, once)")
	th.throttled(300)
	wantLimit(t, th, 150, "after a 429 with 300 in flight")

	// 5 % 429s with in flight at the limit: Java's arithmetic ends at the
	// minimum too.
	th.staticX10.Store(10 * 1024)
	for i := range 2000 {
		if i%20 == 0 {
			th.throttled(th.limit())
		} else {
			th.success(time.Millisecond)
		}
	}
	if l := th.limit(); l > 20 {
		t.Errorf("limit under 5%% 429s is %d, want it near the minimum 16 as in the reference design", l)
	}
}

// simulateServer is simulate with the mean latency of the successes at each
// in-flight count.
func simulateServer(t *throttler, clk *fakeClock, tp func(inflight int) float64, latency func(inflight int) time.Duration, rounds int) []int {
	var limits []int
	for range rounds {
		l := t.limit()
		for i := 0; i < 1_000_000; i++ {
			clk.t = clk.t.Add(time.Millisecond)
			n := int64(tp(l) / 1000)
			t.ok.Add(n)
			t.latencyNanos.Add(n * int64(latency(l)))
			t.sentOne()
			if t.sent.Load() == 0 {
				break
			}
		}
		limits = append(limits, t.limit())
	}
	return limits
}

// Vespa far away: every answer takes 50 ms however many are in flight, so
// throughput is inflight/50 ms. The limit reaches the maximum within a few
// dozen samples; the probing alone (growing off) is still near its start.
func TestThrottler_GrowsFastWhenLatencyBoundsThroughput(t *testing.T) {
	tp := func(n int) float64 { return float64(n) / 0.05 }
	lat := func(int) time.Duration { return 50 * time.Millisecond }
	th, clk := newTestThrottler(16, 1024, 0.5)
	th.target.Store(64)
	limits := simulateServer(th, clk, tp, lat, 20)
	if last := limits[len(limits)-1]; last < 900 {
		t.Errorf("after 20 samples the limit is %d, want near 1024 (limits %v)", last, limits)
	}
	slow, clk := newTestThrottler(16, 1024, 0.5)
	slow.target.Store(64)
	slow.growing = false
	if last := simulateServer(slow, clk, tp, lat, 20)[19]; last > 300 {
		t.Errorf("without growing the limit reached %d in 20 samples: the test no longer shows the difference", last)
	}
}

// A server that works on 100 at a time and queues the rest: throughput is
// flat beyond 100 and latency grows with the window. Growing stops at the
// first doubling past it, and the limit does not run off to the maximum.
func TestThrottler_StopsGrowingWhenLatencyGrowsWithTheWindow(t *testing.T) {
	tp := func(n int) float64 { return float64(min(n, 100)) / 0.01 }
	lat := func(n int) time.Duration { return time.Duration(max(n, 100)) * 100 * time.Microsecond }
	th, clk := newTestThrottler(16, 4096, 0.5)
	th.target.Store(32)
	limits := simulateServer(th, clk, tp, lat, 12)
	if th.growing {
		t.Fatalf("still growing after 12 samples (limits %v)", limits)
	}
	if m := slices.Max(limits); m > 256 {
		t.Errorf("grew to %d, want it to stop at the first doubling past 100 (limits %v)", m, limits)
	}
}

// A throttle signal ends growing at once.
func TestThrottler_AThrottleSignalEndsGrowing(t *testing.T) {
	tp := func(n int) float64 { return float64(n) / 0.05 }
	lat := func(int) time.Duration { return 50 * time.Millisecond }
	th, clk := newTestThrottler(16, 1024, 0.5)
	th.target.Store(64)
	simulateServer(th, clk, tp, lat, 2)
	th.throttled(th.limit())
	simulateServer(th, clk, tp, lat, 1)
	if th.growing {
		t.Error("growing after a 429")
	}
}

// The streams the server allows cap the limit, and it follows them.
func TestThrottler_CeilingFromTheServersStreams(t *testing.T) {
	tp := func(n int) float64 { return float64(n) / 0.05 }
	lat := func(int) time.Duration { return 50 * time.Millisecond }
	th, clk := newTestThrottler(16, 1024, 0.5)
	th.target.Store(64)
	streams, known := 300, false
	th.streams = func() (int, bool) { return streams, known }
	if l := simulateServer(th, clk, tp, lat, 20)[19]; l < 900 {
		t.Fatalf("limit %d before the server's settings, want near 1024", l)
	}
	known = true
	for _, l := range simulateServer(th, clk, tp, lat, 20)[1:] {
		if l > 300 {
			t.Fatalf("limit %d above the 300 streams the server allows", l)
		}
	}
}
