package cloud

import (
	"context"
	"fmt"
	"time"
)

// waitContext returns ctx, bounded by DefaultWaitTimeout when it has no
// deadline of its own: every wait ends by a deadline, never by a count of turns.
func waitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, DefaultWaitTimeout)
}

// poll calls check, then again every interval, until check reports done or a
// final error (see isFinal), or ctx ends. Errors that are not final are kept
// and the wait goes on; when ctx ends, the last of them is reported with the
// context's error.
func poll(ctx context.Context, what string, interval time.Duration, check func(context.Context) (bool, error)) error {
	ctx, cancel := waitContext(ctx)
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
				return fmt.Errorf("cloud: waiting for %s: %w (last error: %w)", what, err, last)
			}
			return fmt.Errorf("cloud: waiting for %s: %w", what, err)
		}
		done, err := check(ctx)
		switch {
		case err != nil && isFinal(ctx, err):
			if ctx.Err() != nil {
				continue // reported as the context's end, with the last error
			}
			return err
		case err != nil:
			last = err
		case done:
			return nil
		}
		timer.Reset(interval)
	}
}
