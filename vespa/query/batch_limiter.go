package query

import (
	"context"
	"sync"
)

// limiter is an adaptive concurrency limit (additive increase,
// multiplicative decrease): the limit grows by one after a limit's worth of
// successes and halves on an overload answer. Halving happens at most once
// per "epoch": answers to queries sent before the last decrease do not halve
// it again, so one burst of 503s does not collapse the limit to its floor.
//
// acquire never lets more queries in flight than the current limit; when the
// limit drops below the number in flight, no query starts until enough have
// finished.
type limiter struct {
	mu        sync.Mutex
	limit     int
	min, max  int
	inFlight  int
	successes int
	epoch     uint64
	wake      chan struct{}
	// observe, when set, is called under the lock after each acquire with
	// the number in flight and the limit (tests only).
	observe func(inFlight, limit int)
}

func newLimiter(initial, min, max int) *limiter {
	return &limiter{limit: initial, min: min, max: max, wake: make(chan struct{})}
}

// acquire waits for a free slot, and returns the epoch the query starts in.
func (l *limiter) acquire(ctx context.Context) (uint64, error) {
	for {
		l.mu.Lock()
		if l.inFlight < l.limit {
			l.inFlight++
			e := l.epoch
			if l.observe != nil {
				l.observe(l.inFlight, l.limit)
			}
			l.mu.Unlock()
			return e, nil
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return 0, context.Cause(ctx)
		case <-wake:
		}
	}
}

// release frees a slot and adapts the limit to the query's outcome.
func (l *limiter) release(epoch uint64, overloaded bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
	switch {
	case overloaded:
		if epoch == l.epoch {
			l.limit = max(l.min, l.limit/2)
			l.successes = 0
			l.epoch++
		}
	default:
		l.successes++
		if l.successes >= l.limit && l.limit < l.max {
			l.limit++
			l.successes = 0
		}
	}
	close(l.wake)
	l.wake = make(chan struct{})
}

// current returns the limit.
func (l *limiter) current() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}
