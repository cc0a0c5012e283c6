package wire

import (
	"context"
	"errors"
	"fmt"

	"github.com/govespa/govespa/vespa/retries"
)

// Run is [retries.Run] that keeps the cause: when ctx ends while the policy
// waits to retry (or before a retry starts), the error matches both ctx's
// error and the last outcome, so that errors.Is(err, ErrTooManyRequests)
// and errors.Is(err, context.DeadlineExceeded) both hold after a deadline
// that fell in the wait after a 429. outcome turns the last attempt's
// result into its error (nil: the attempt's error as it is).
func Run[T any](ctx context.Context, p retries.Policy, op func(context.Context) (T, error), outcome func(T, error) error) (T, error) {
	var (
		lastV    T
		lastErr  error
		attempts int
	)
	v, err := retries.Run(ctx, p, func(ctx context.Context) (T, error) {
		attempts++
		lastV, lastErr = op(ctx)
		return lastV, lastErr
	})
	if err == nil || attempts == 0 || ctx.Err() == nil || (lastErr != nil && errors.Is(err, lastErr)) {
		return v, err
	}
	last := lastErr
	if outcome != nil {
		last = outcome(lastV, lastErr)
	}
	if last == nil || errors.Is(last, ctx.Err()) {
		return v, err
	}
	return v, KeptCause(err, last)
}

// KeptCause returns the error of a call whose context ended (ctxErr) after
// the outcome last: an error like last's [Failure] (its status, message,
// ID) whose cause is ctxErr with last's own cause, or else ctxErr wrapping
// last.
func KeptCause(ctxErr, last error) error {
	if f, ok := FailureOf(last); ok {
		if f.Err != nil {
			f.Err = fmt.Errorf("%w (last attempt: %w)", ctxErr, f.Err)
		} else {
			f.Err = ctxErr
		}
		return NewError(f)
	}
	return fmt.Errorf("%w (last attempt: %w)", ctxErr, last)
}
