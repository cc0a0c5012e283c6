package feed

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// throttler is the adaptive limit of operations in flight, modelled on the
// DynamicThrottler of Vespa's Java feed client (vespa-feed-client), which
// this package takes as the reference design:
//
//   - A static ceiling falls to half the operations in flight on every
//     throttle signal (429, 504) and creeps back up by 1/10 per success —
//     until it is within 90% of the in flight where the last signal came;
//     from there a tenth as fast, and past that point a fiftieth, so that a
//     server with a fixed capacity is not pushed past it again at once
//     (Vespa's design creeps at one pace, and provokes a 429 every few
//     hundred successes there).
//   - A dynamic target samples throughput (successes per second) at the
//     target it is running with, every ~10·target^(2/3) sends, into one of
//     buckets spread on a log scale over [min, max]. It then picks the bucket
//     whose throughput·inflight^(weight−1) is best — throughput first, with
//     a slight preference for less in flight, hence lower latency — and
//     moves to a random point near it, skewed upwards. When the best bucket
//     is the highest one measured so far, it steps to the bucket above
//     instead, to explore upwards quickly.
//
// The buckets are scanned from low to high, so "the highest measured" is
// the last known bucket seen. (The port in Vespa's Go CLI scans high to low,
// so its "last seen" is the lowest bucket, and it jumps upwards exactly when
// the lowest in-flight count was best.)
//
// Before that design takes over, the throttler grows: a window far below
// what the server can take — Vespa far away, where every operation waits a
// round trip, or slow disks with headroom — is found in a few round trips
// instead of the minutes the probing takes to climb from the start. While
// growing, the target doubles after every judged sample (the sample just
// after a change is a transition and is not judged) as long as throughput
// rose with it (by at least growRise) and latency stayed within growLatency
// of the lowest seen. Growing ends for good at the first throttle signal, at
// a sample where throughput stopped rising or latency grew with the window
// (a queue filling up), or at the ceiling; from there the probing picks the
// best bucket it measured on the way.
//
// The ceiling is max, or less: the streams the server lets the feeder's
// connections open at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS), where
// the transport reports them.
//
// The limit in force is min(static ceiling, dynamic target, ceiling),
// clamped to [min, max]. All methods are safe for concurrent use.
type throttler struct {
	min, max float64

	staticX10 atomic.Int64 // 10 × the static ceiling
	signalAt  atomic.Int64 // the operations in flight at the last throttle signal
	target    atomic.Int64 // the dynamic target
	ok        atomic.Int64 // successes since the last sample

	sent atomic.Int64 // sends since the last sample

	latencyNanos atomic.Int64 // the latencies of the successes since the last sample
	ceiling      atomic.Int64 // the most in flight the server allows, ≤ max
	signalled    atomic.Bool  // a throttle signal came since the last sample

	mu          sync.Mutex
	start       time.Time
	throughputs [throttleBuckets]float64
	// streams, when set, returns the streams the server allows in all (ok
	// false until it is known); it is read at each sample.
	streams func() (n int, ok bool)
	// The growing phase; see the type's doc.
	growing    bool
	settling   bool    // the sample just after a change: not judged
	grownFrom  float64 // the throughput of the last judged sample
	minLatency float64 // the lowest mean latency of a judged sample, seconds

	now  func() time.Time
	rand func() float64 // uniform in [0, 1)
}

const (
	throttleBuckets = 128
	// throttleWeight trades throughput (weight) against latency (1−weight).
	throttleWeight = 0.7
	// growRise is how much a doubled window must raise throughput to go on
	// growing: ideally 2 when latency bounds throughput; 1 when the server
	// is saturated.
	growRise = 1.25
	// growLatency is how far mean latency may rise over the lowest seen
	// while growing: a queue that fills up shows here first.
	growLatency = 1.5
)

// newThrottler returns a throttler between min and max in flight, whose
// dynamic target starts at start (clamped to [min, max]).
func newThrottler(min, max, start int) *throttler {
	t := &throttler{min: float64(min), max: float64(max), now: time.Now, rand: rand.Float64}
	t.staticX10.Store(10 * int64(max))
	t.ceiling.Store(int64(max))
	t.target.Store(int64(clampInt(start, min, max)))
	t.start = t.now()
	t.growing = true
	return t
}

func clampInt(v, lo, hi int) int { return max(lo, min(hi, v)) }

// limit returns the number of operations allowed in flight now.
func (t *throttler) limit() int {
	l := min(t.staticX10.Load()/10, t.target.Load(), t.ceiling.Load())
	return int(max(int64(t.min), min(int64(t.max), l)))
}

// success records a response that completed an operation after latency.
func (t *throttler) success(latency time.Duration) {
	n := t.ok.Add(1)
	t.latencyNanos.Add(int64(latency))
	for {
		v := t.staticX10.Load()
		if v >= 10*int64(t.max) {
			return
		}
		at := t.signalAt.Load()
		if v >= 10*at && n%50 != 0 || v >= 9*at && n%10 != 0 {
			// Near the last signal, one step in ten successes; past it,
			// one in fifty.
			return
		}
		if t.staticX10.CompareAndSwap(v, v+1) {
			return
		}
	}
}

// throttled records a throttle signal while inflight operations were in
// flight.
func (t *throttler) throttled(inflight int) {
	t.signalled.Store(true)
	t.signalAt.Store(int64(inflight))
	t.staticX10.Store(max(int64(inflight)*5, int64(t.min)*10))
}

// bucketOf returns the bucket of an in-flight count.
func (t *throttler) bucketOf(inflight float64) int {
	if t.max <= t.min {
		return 0
	}
	ratio := max(1, min(inflight/t.min, t.max/t.min-1e-9))
	return int(throttleBuckets * math.Log(ratio) / math.Log(t.max/t.min))
}

// inflightOf returns the in-flight count at the middle of bucket i.
func (t *throttler) inflightOf(i float64) float64 {
	if t.max <= t.min {
		return t.min
	}
	return t.min * math.Pow(t.max/t.min, (i+0.5)/throttleBuckets)
}

// sentOne records that an operation was sent, and now and then samples the
// throughput and picks a new dynamic target.
func (t *throttler) sentOne() {
	cur := float64(t.limit())
	s := float64(t.sent.Add(1))
	if s*s*s < 1e3*cur*cur {
		return // the common case: no lock
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sent.Swap(0) == 0 {
		return // another goroutine sampled just now
	}
	now := t.now()
	elapsed := now.Sub(t.start).Seconds()
	t.start = now
	if elapsed <= 0 {
		return
	}
	ok := float64(t.ok.Swap(0))
	latency := float64(t.latencyNanos.Swap(0)) / 1e9 / max(ok, 1)
	t.updateCeiling()
	tp := ok / elapsed
	t.throughputs[t.bucketOf(cur)] = tp
	if t.growing {
		if next, ok := t.grow(cur, tp, latency); ok {
			t.target.Store(next)
			return
		}
	}
	t.target.Store(t.choose(cur))
}

// updateCeiling lowers (or raises back) the ceiling to the streams the
// server allows, within [min, max].
func (t *throttler) updateCeiling() {
	if t.streams == nil {
		return
	}
	if n, ok := t.streams(); ok {
		t.ceiling.Store(int64(max(t.min, min(t.max, float64(n)))))
	}
}

// grow judges a sample of the growing phase with throughput tp and mean
// latency at cur in flight, and returns the next target; false when growing
// has ended and the probing chooses.
func (t *throttler) grow(cur, tp, latency float64) (int64, bool) {
	ceiling := float64(t.ceiling.Load())
	switch {
	case t.signalled.Swap(false):
		t.growing = false
		return 0, false
	case t.settling:
		t.settling = false
		return int64(cur), true
	case t.grownFrom > 0 && (tp < growRise*t.grownFrom || latency > growLatency*t.minLatency),
		cur >= ceiling:
		t.growing = false
		return 0, false
	}
	t.grownFrom = tp
	if t.minLatency == 0 || latency < t.minLatency {
		t.minLatency = latency
	}
	t.settling = true
	return int64(min(ceiling, 2*cur)), true
}

// choose scans the measured buckets from low to high in flight and returns
// the next dynamic target.
func (t *throttler) choose(cur float64) int64 {
	best, bestObjective := cur, -1.0
	choice, last := -1, -1
	prev, prevOrig := -1, 0.0 // the known bucket before last, and its unsmoothed value
	for i := range t.throughputs {
		tp := t.throughputs[i]
		if tp == 0 {
			continue
		}
		inflight := t.inflightOf(float64(i))
		if obj := tp * math.Pow(inflight, throttleWeight-1); obj > bestObjective {
			bestObjective, best, choice = obj, inflight, i
		}
		// Smooth each known value with its known neighbours, to damp noise.
		if last >= 0 {
			orig := t.throughputs[last]
			if prev >= 0 {
				t.throughputs[last] = (18*orig + tp + prevOrig) / 20
			}
			prev, prevOrig = last, orig
		}
		last = i
	}
	var target float64
	if choice >= 0 && choice == last && choice+1 < throttleBuckets {
		// The best is the highest measured: explore the bucket above.
		target = 1 + t.inflightOf(float64(choice+1))
	} else {
		// A random step near the best, skewed towards increase.
		target = (t.rand()*0.40+0.84)*best + t.rand()*4 - 1
	}
	return int64(max(t.min, min(float64(t.ceiling.Load()), target)))
}
