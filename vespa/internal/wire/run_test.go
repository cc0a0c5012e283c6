package wire

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

func TestRun_KeepsTheCause(t *testing.T) {
	p := retries.New("test", retries.RetryIfError, retries.WaitFunc(0, func(int) time.Duration { return time.Second }), 5)
	t.Run("a deadline in the wait after a 429 matches both", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
			defer cancel()
			calls := 0
			_, err := Run(ctx, p, func(context.Context) (int, error) {
				calls++
				return 0, NewError(Failure{Op: "put", Status: 429, Message: "overloaded"})
			}, nil)
			if calls != 2 {
				t.Errorf("%d attempts, want 2", calls)
			}
			f, ok := FailureOf(err)
			if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrTooManyRequests) || !ok || f.Message != "overloaded" {
				t.Fatalf("got %v, want it to match DeadlineExceeded and ErrTooManyRequests", err)
			}
		})
	})
	t.Run("a result turned into an error by outcome", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
			defer cancel()
			p := p.WithRetryIf(func(o retries.Outcome) bool { return true })
			_, err := Run(ctx, p, func(context.Context) (int, error) { return 503, nil },
				func(v int, err error) error { return NewError(Failure{Status: v}) })
			if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrUnavailable) {
				t.Fatalf("got %v", err)
			}
		})
	})
	t.Run("an attempt cut by the deadline is returned as it is", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
			defer cancel()
			var want error
			_, err := Run(ctx, p, func(ctx context.Context) (int, error) {
				<-ctx.Done()
				want = NewError(Failure{Op: "get", Err: ctx.Err()})
				return 0, want
			}, nil)
			if err != want { //nolint:errorlint // identity: the attempt's own error
				t.Fatalf("got %v, want the attempt's error", err)
			}
		})
	})
	t.Run("a transport error keeps its cause too", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
			defer cancel()
			boom := errors.New("connection reset")
			_, err := Run(ctx, p, func(context.Context) (int, error) { return 0, NewError(Failure{Op: "get", Err: boom}) }, nil)
			if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, boom) {
				t.Fatalf("got %v", err)
			}
		})
	})
}
