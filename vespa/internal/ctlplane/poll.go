package ctlplane

import (
	"context"
	"fmt"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

// WaitContext returns ctx, bounded by def when it has no deadline of its
// own: every wait ends by a deadline, never by a count of turns.
func WaitContext(ctx context.Context, def time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, def)
}

// IsFinal reports whether err ends a wait at once: a final 4xx other than a
// transient 409 (retries.IsTransientConflict), or the caller's own context
// ending. Anything else (5xx after the policy gave up, connection errors,
// undecodable replies, APPLICATION_LOCK_FAILURE) lets the wait poll again.
func IsFinal(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return true
	}
	f, ok := FailureOf(err)
	return ok && retries.IsFinal4xx(f.Status) && !retries.IsTransientConflict(NewError(f))
}

// Poll calls check, then again every interval, until check reports done or a
// final error (see [IsFinal]), or ctx ends (def bounds a ctx without
// deadline). Errors that are not final are kept and the wait goes on; when
// ctx ends, the last of them that the context's end did not cause is
// reported with the context's error, so that the real cause (an x509 error,
// a 503) is not lost to a poll cut short by the deadline.
func Poll(ctx context.Context, pkg, what string, interval, def time.Duration, check func(context.Context) (bool, error)) error {
	ctx, cancel := WaitContext(ctx, def)
	defer cancel()
	var last error
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
		// A poll due at the deadline is not made: the deadline wins a tie,
		// even before the context's own timer has fired.
		err := ctx.Err()
		if d, ok := ctx.Deadline(); ok && err == nil && !time.Now().Before(d) {
			err = context.DeadlineExceeded
		}
		if err != nil {
			if last != nil {
				return fmt.Errorf("%s: waiting for %s: %w (last error: %w)", pkg, what, err, last)
			}
			return fmt.Errorf("%s: waiting for %s: %w", pkg, what, err)
		}
		done, err := check(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			// Cut by the context: reported as its end, with the last real
			// error, which may be the one the cut call saw before it.
			if c := lastCause(err); c != nil {
				last = c
			}
			continue
		case err != nil && IsFinal(ctx, err):
			return err
		case err != nil:
			last = err
		case done:
			return nil
		}
		timer.Reset(interval)
	}
}
