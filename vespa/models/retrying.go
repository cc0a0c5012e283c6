package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

// The defaults of [Retrying], those of retries.Embedder.
const (
	DefaultRetryAttempts     = 3
	DefaultRetryInitialDelay = 200 * time.Millisecond
	DefaultRetryMaxDelay     = 5 * time.Second
	DefaultRetryFactor       = 2.0
	DefaultRetryJitter       = 0.5
)

// RetryOption configures [Retrying].
type RetryOption interface{ applyRetry(*retryConfig) }

// WithMaxAttempts sets the number of attempts in all, the first included; it
// must be at least 1, and 1 disables retrying. Default 3.
func WithMaxAttempts(n int) RetryOption {
	return retryOptionFunc(func(c *retryConfig) { c.attempts = n })
}

// WithInitialDelay sets the delay before the second attempt; it must be
// positive. Default 200 ms.
func WithInitialDelay(d time.Duration) RetryOption {
	return retryOptionFunc(func(c *retryConfig) { c.initial = d })
}

// WithMaxDelay sets the ceiling of one wait; it must not be below the initial
// delay. Default 5 s.
func WithMaxDelay(d time.Duration) RetryOption {
	return retryOptionFunc(func(c *retryConfig) { c.max = d })
}

// WithFactor sets the multiplier applied to the delay after each failed
// attempt (2.0 doubles it); it must be a finite number of at least 1. Default
// 2.0.
func WithFactor(f float64) RetryOption {
	return retryOptionFunc(func(c *retryConfig) { c.factor = f })
}

// WithJitter sets the fraction of each delay that is randomised away, in
// [0, 1]: 0 waits exactly the delay, the default 0.5 waits uniformly between
// half the delay and the whole of it.
func WithJitter(j float64) RetryOption {
	return retryOptionFunc(func(c *retryConfig) { c.jitter = j })
}

// WithRetryOn sets the predicate that decides whether a failed call is
// retried; false returns the error at once. It is never asked about a
// cancellation (an error matching context.Canceled or
// context.DeadlineExceeded), which is never retried. Nil, the default,
// retries every other error.
func WithRetryOn(f func(error) bool) RetryOption {
	return retryOptionFunc(func(c *retryConfig) { c.retryOn = f })
}

type retryOptionFunc func(*retryConfig)

func (f retryOptionFunc) applyRetry(c *retryConfig) { f(c) }

type retryConfig struct {
	attempts       int
	initial, max   time.Duration
	factor, jitter float64
	retryOn        func(error) bool
}

// retrying is the Embedder returned by Retrying.
type retrying struct {
	delegate Embedder
	policy   retries.Policy
}

// Retrying wraps delegate so that a failed Embed or EmbedAll is issued again,
// after a jittered exponential backoff: the wait after failed attempt n is
// uniform in [(1−jitter)·d, d] with d = min(maxDelay, initialDelay·factor^(n−1)).
// When attempts run out, the last error is returned as the delegate returned
// it. EmbedAll retries the whole batch.
//
// Cancellation is never retried and never delayed: when the caller's ctx ends
// the call returns at once, also in the middle of a wait, with an error
// matching context.Canceled or context.DeadlineExceeded.
//
// The policy is retries.Embedder adapted by the options; invalid option values
// (0 attempts, jitter outside [0, 1], ...) and a nil delegate are errors.
// Wrapping is opt-in: an unwrapped Embedder makes exactly one call.
func Retrying(delegate Embedder, opts ...RetryOption) (Embedder, error) {
	if delegate == nil {
		return nil, errors.New("models: Retrying: nil delegate")
	}
	c := retryConfig{
		attempts: DefaultRetryAttempts,
		initial:  DefaultRetryInitialDelay,
		max:      DefaultRetryMaxDelay,
		factor:   DefaultRetryFactor,
		jitter:   DefaultRetryJitter,
	}
	for _, o := range opts {
		if o != nil {
			o.applyRetry(&c)
		}
	}
	if c.attempts < 1 {
		return nil, fmt.Errorf("models: Retrying: WithMaxAttempts must be at least 1, got %d", c.attempts)
	}
	if !(c.jitter >= 0 && c.jitter <= 1) {
		return nil, fmt.Errorf("models: Retrying: WithJitter must be in [0, 1], got %v", c.jitter)
	}
	if c.initial <= 0 {
		return nil, fmt.Errorf("models: Retrying: WithInitialDelay must be positive, got %v", c.initial)
	}
	if c.max < c.initial {
		return nil, fmt.Errorf("models: Retrying: WithMaxDelay %v is below the initial delay %v", c.max, c.initial)
	}
	if !(c.factor >= 1) || math.IsInf(c.factor, 0) {
		return nil, fmt.Errorf("models: Retrying: WithFactor must be a finite number of at least 1, got %v", c.factor)
	}
	wait, err := retries.WaitJittered(c.initial, c.max, c.factor, c.jitter)
	if err != nil {
		return nil, fmt.Errorf("models: Retrying: %w", err)
	}
	retryOn := c.retryOn
	policy := retries.Embedder.
		WithMaxAttempts(c.attempts).
		WithWait(wait).
		WithRetryIf(func(o retries.Outcome) bool {
			if o.Err == nil || isCancellation(o.Err) {
				return false
			}
			return retryOn == nil || retryOn(o.Err)
		})
	if err := policy.Err(); err != nil {
		return nil, fmt.Errorf("models: Retrying: %w", err)
	}
	return &retrying{delegate: delegate, policy: policy}, nil
}

// isCancellation reports whether err is a context cancellation or deadline.
func isCancellation(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// asCancellation makes an error that arrives after the caller's ctx ended
// match the context's error too, so that it is treated as the cancellation it
// most likely is: returned at once, without asking RetryOn.
func asCancellation(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || isCancellation(err) {
		return err
	}
	return fmt.Errorf("%w (after: %w)", ctx.Err(), err)
}

// Embed calls the delegate's Embed under the retry policy.
func (r *retrying) Embed(ctx context.Context, text string) ([]float32, error) {
	return retries.Run(ctx, r.policy, func(ctx context.Context) ([]float32, error) {
		v, err := r.delegate.Embed(ctx, text)
		return v, asCancellation(ctx, err)
	})
}

// EmbedAll calls the delegate's EmbedAll under the retry policy.
func (r *retrying) EmbedAll(ctx context.Context, texts []string) ([][]float32, error) {
	return retries.Run(ctx, r.policy, func(ctx context.Context) ([][]float32, error) {
		vs, err := r.delegate.EmbedAll(ctx, texts)
		return vs, asCancellation(ctx, err)
	})
}
