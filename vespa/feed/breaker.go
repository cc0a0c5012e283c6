package feed

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrBreakerOpen is matched (errors.Is) by every [*BreakerError].
var ErrBreakerOpen = errors.New("feed: circuit breaker open")

// BreakerError says why the circuit breaker stopped the feed: for
// [Config.BreakerSpan] every attempt failed, the last one with Last, or an
// attempt failed with [vespa.ErrUnreachable] (the client never reached its
// endpoint for its connect patience, see [vespa.WithConnectPatience]).
type BreakerError struct {
	// Span is how long nothing but failures went on.
	Span time.Duration
	// Last is the last failure: a transport error or an error for a 5xx.
	Last error
}

// Error returns "feed: circuit breaker open: only failures for <span>: <last>".
func (e *BreakerError) Error() string {
	return fmt.Sprintf("feed: circuit breaker open: only failures for %v; last: %v", e.Span, e.Last)
}

// Unwrap returns the last failure.
func (e *BreakerError) Unwrap() error { return e.Last }

// Is reports whether target is ErrBreakerOpen.
func (e *BreakerError) Is(target error) bool { return target == ErrBreakerOpen }

// breaker opens, for good, once failures alone have gone on for span: the
// cluster is gone or the feed is misconfigured, and going on would only turn
// every remaining operation into the same failure slowly. A success at any
// time restarts the span. It is safe for concurrent use.
type breaker struct {
	span time.Duration // <= 0: never opens

	mu           sync.Mutex
	failingSince time.Time // zero: the last attempt succeeded
	open         *BreakerError
}

// success records an attempt that reached a healthy cluster.
func (b *breaker) success() {
	b.mu.Lock()
	if b.open == nil {
		b.failingSince = time.Time{}
	}
	b.mu.Unlock()
}

// failure records a failed attempt and returns the breaker's error if this
// failure opened it (nil otherwise, also when it was open already).
func (b *breaker) failure(err error) *BreakerError {
	if b.span <= 0 {
		return nil
	}
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open != nil {
		return nil
	}
	if b.failingSince.IsZero() {
		b.failingSince = now
		return nil
	}
	if d := now.Sub(b.failingSince); d >= b.span {
		b.open = &BreakerError{Span: d, Last: err}
		return b.open
	}
	return nil
}

// trip opens the breaker now, with err as its last failure, and returns its
// error (nil when it is off or was open already).
func (b *breaker) trip(err error) *BreakerError {
	if b.span <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open != nil {
		return nil
	}
	var span time.Duration
	if !b.failingSince.IsZero() {
		span = time.Since(b.failingSince)
	}
	b.open = &BreakerError{Span: span, Last: err}
	return b.open
}

// err returns the breaker's error once it is open, else nil.
func (b *breaker) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open == nil {
		return nil
	}
	return b.open
}
