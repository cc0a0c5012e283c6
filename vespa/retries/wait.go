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
// never longer than max (0: no cap). max also caps a server's Retry-After.
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

// expo returns base·factor^(n−1), saturating instead of overflowing.
func expo(base time.Duration, factor float64, n int) time.Duration {
	if n < 1 {
		n = 1
	}
	f := float64(base) * math.Pow(factor, float64(n-1))
	if f >= math.MaxInt64 || math.IsInf(f, 0) || math.IsNaN(f) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(f)
}

// WaitExponential waits clamp(multiplier·2^(n−1), min, max) after attempt n.
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
// not retry in lockstep.
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
// the "golden jitter" of Vespa's own clients for their sync requests.
func WaitGoldenJitter() Wait {
	return Wait{delay: func(n int) time.Duration {
		return expo(100*time.Millisecond, 1.618, n) + uniform(0, time.Second)
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
		lo := time.Duration(float64(d) * (1 - jitter))
		return uniform(lo, d)
	}}, nil
}

// uniform returns a duration uniformly distributed in [lo, hi].
func uniform(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rand.Int64N(int64(hi-lo)+1))
}
