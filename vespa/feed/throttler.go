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
//     throttle signal (429, 504) and creeps back up by 1/10 per success.
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
// The limit in force is min(static ceiling, dynamic target), clamped to
// [min, max]. All methods are safe for concurrent use.
type throttler struct {
	min, max float64

	staticX10 atomic.Int64 // 10 × the static ceiling
	target    atomic.Int64 // the dynamic target
	ok        atomic.Int64 // successes since the last sample

	sent atomic.Int64 // sends since the last sample

	mu          sync.Mutex
	start       time.Time
	throughputs [throttleBuckets]float64

	now  func() time.Time
	rand func() float64 // uniform in [0, 1)
}

const (
	throttleBuckets = 128
	// throttleWeight trades throughput (weight) against latency (1−weight).
	throttleWeight = 0.7
)

// newThrottler returns a throttler between min and max in flight, whose
// dynamic target starts at start (clamped to [min, max]).
func newThrottler(min, max, start int) *throttler {
	t := &throttler{min: float64(min), max: float64(max), now: time.Now, rand: rand.Float64}
	t.staticX10.Store(10 * int64(max))
	t.target.Store(int64(clampInt(start, min, max)))
	t.start = t.now()
	return t
}

func clampInt(v, lo, hi int) int { return max(lo, min(hi, v)) }

// limit returns the number of operations allowed in flight now.
func (t *throttler) limit() int {
	l := min(t.staticX10.Load()/10, t.target.Load())
	return int(max(int64(t.min), min(int64(t.max), l)))
}

// success records a response that completed an operation.
func (t *throttler) success() {
	t.ok.Add(1)
	for {
		v := t.staticX10.Load()
		if v >= 10*int64(t.max) || t.staticX10.CompareAndSwap(v, v+1) {
			return
		}
	}
}

// throttled records a throttle signal while inflight operations were in
// flight.
func (t *throttler) throttled(inflight int) {
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
	t.throughputs[t.bucketOf(cur)] = float64(t.ok.Swap(0)) / elapsed
	t.target.Store(t.choose(cur))
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
	return int64(max(t.min, min(t.max, target)))
}
