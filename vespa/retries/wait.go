package retries

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Wait says how long to wait before the next attempt. Its zero value waits
// nothing. Waits are pure functions of the attempt number (plus randomness
// where documented): a Wait holds no state and may be shared freely.
type Wait struct {
	delay func(n int) time.Duration
	max   time.Duration
}

// WaitFunc returns a Wait that waits f(n) after failed attempt n (1-based),
// never longer than max (0 or negative: no cap). max also caps a server's
// Retry-After. A nil f waits nothing; a negative f(n) waits nothing.
func WaitFunc(max time.Duration, f func(n int) time.Duration) Wait {
	return Wait{delay: f, max: max}
}

// Delay returns the wait after failed attempt n (1-based), before attempt n+1.
func (w Wait) Delay(n int) time.Duration {
	if w.delay == nil {
		return 0
	}
	d := w.delay(n)
	if d < 0 {
		d = 0
	}
	if w.max > 0 && d > w.max {
		d = w.max
	}
	return d
}

// Max returns the longest wait this Wait produces; 0 means no cap.
func (w Wait) Max() time.Duration { return w.max }

// WaitNone waits nothing between attempts.
func WaitNone() Wait { return Wait{} }

// expo returns base·factor^(n−1) for n ≥ 1 (n below 1 counts as 1), never
// negative, saturating at the largest Duration instead of overflowing.
func expo(base time.Duration, factor float64, n int) time.Duration {
	if n < 1 {
		n = 1
	}
	return durationFromFloat(float64(base) * math.Pow(factor, float64(n-1)))
}

// durationFromFloat converts f nanoseconds to a Duration clamped to
// [0, math.MaxInt64]: converting a float64 at or above 2^63 to an integer is
// implementation-defined in Go, so it must never be attempted.
func durationFromFloat(f float64) time.Duration {
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0
	case f >= math.MaxInt64: // float64(math.MaxInt64) is 2^63, out of range
		return math.MaxInt64
	}
	return time.Duration(f)
}

// addSat returns a+b for non-negative a and b, saturating at the largest
// Duration instead of wrapping around to a negative one.
func addSat(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// WaitExponential waits clamp(multiplier·2^(n−1), min, max) after attempt n
// (max 0 or negative: no upper bound). Large n saturate instead of
// overflowing.
func WaitExponential(multiplier, min, max time.Duration) Wait {
	return Wait{max: max, delay: func(n int) time.Duration {
		d := expo(multiplier, 2, n)
		if d < min {
			d = min
		}
		return d
	}}
}

// WaitRandomExponential waits uniformly in [0, min(max, multiplier·2^(n−1))]
// after attempt n ("full jitter"), so that many callers failing together do
// not retry in lockstep. A max of 0 or below means no upper bound.
func WaitRandomExponential(multiplier, max time.Duration) Wait {
	return Wait{max: max, delay: func(n int) time.Duration {
		d := expo(multiplier, 2, n)
		if max > 0 && d > max {
			d = max
		}
		return uniform(0, d)
	}}
}

// WaitGoldenJitter waits 0.1 s·1.618^(n−1) plus uniform(0, 1 s) after attempt n:
// the "golden jitter" of Vespa's own clients for their sync requests. It has no
// cap (see [Wait.Max]); large n saturate at the largest Duration.
func WaitGoldenJitter() Wait {
	return Wait{delay: func(n int) time.Duration {
		return addSat(expo(100*time.Millisecond, 1.618, n), uniform(0, time.Second))
	}}
}

// WaitJittered waits uniformly in [(1−jitter)·d, d] after attempt n, where
// d = min(max, initial·factor^(n−1)). A jitter of 0 waits exactly d. It
// returns an error when initial or max is not positive, max is below initial,
// factor is below 1 or jitter is outside [0, 1].
func WaitJittered(initial, max time.Duration, factor, jitter float64) (Wait, error) {
	switch {
	case initial <= 0:
		return Wait{}, fmt.Errorf("retries: WaitJittered: initial delay must be positive, got %v", initial)
	case max < initial:
		return Wait{}, fmt.Errorf("retries: WaitJittered: max delay %v is below the initial delay %v", max, initial)
	case !(factor >= 1) || math.IsInf(factor, 0):
		return Wait{}, fmt.Errorf("retries: WaitJittered: factor must be a finite number of at least 1, got %v", factor)
	case !(jitter >= 0 && jitter <= 1):
		return Wait{}, fmt.Errorf("retries: WaitJittered: jitter must be in [0, 1], got %v", jitter)
	}
	return Wait{max: max, delay: func(n int) time.Duration {
		d := expo(initial, factor, n)
		if d > max {
			d = max
		}
		lo := min(durationFromFloat(float64(d)*(1-jitter)), d)
		return uniform(lo, d)
	}}, nil
}

// uniform returns a duration uniformly distributed in [lo, hi], for
// 0 ≤ lo. It works for the whole range of Duration: the span is drawn as an
// unsigned number, so hi−lo+1 cannot overflow (as it would with Int64N when
// hi is the largest Duration).
func uniform(lo, hi time.Duration) time.Duration {
	lo = max(lo, 0)
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rand.Uint64N(uint64(hi-lo)+1)) //nolint:gosec // 0 ≤ lo < hi, so hi−lo is positive and fits
}
