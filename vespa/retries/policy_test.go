package retries

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestRetryAfter(t *testing.T) {
	ra := func(status int, d time.Duration) func() (*response, error) {
		return func() (*response, error) { return &response{status: status, retryAfter: d, hasRA: true}, nil }
	}
	raErr := func(status int, d time.Duration) func() (*response, error) {
		return func() (*response, error) { return nil, &statusError{status: status, retryAfter: d, hasRA: true} }
	}
	cases := []struct {
		name   string
		policy Policy
		make   func() (*response, error)
		want   time.Duration
	}{
		{"a longer hint on a 429 is honoured", Throttle, ra(429, 3*time.Second), 3 * time.Second},
		{"a hint beyond the cap is cut to the cap", Throttle, ra(429, time.Hour), 10 * time.Second},
		{"a policy without a cap honours the hint up to MaxRetryAfter", SyncRequest, ra(429, 50*time.Second), 50 * time.Second},
		{"a policy without a cap never waits more than MaxRetryAfter", SyncRequest, ra(429, 90*time.Second), MaxRetryAfter},
		{"a day is cut to MaxRetryAfter", DocV1, ra(503, 24*time.Hour), MaxRetryAfter},
		{"the largest Duration is cut without overflow", Visit, raErr(503, time.Duration(1<<63-1)), MaxRetryAfter},
		{"a 503 hint is honoured by DocV1, which has no cap", DocV1, ra(503, 7*time.Second), 7 * time.Second},
		{"a shorter hint does not shorten the policy's wait", DocV1, ra(503, 100*time.Millisecond), time.Second},
		{"a hint carried by an error is honoured, within the cap", ControlPlane, raErr(503, time.Minute), 3 * time.Second},
		{"a Visit, which never waits, waits for the hint", Visit, raErr(503, 2*time.Second), 2 * time.Second},
		{"no hint: the policy's own wait", DocV1, func() (*response, error) { return &response{status: 503}, nil }, time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr, _, _ := runTraced(t.Context(), c.policy.WithMaxAttempts(2), c.make)
				if tr.calls != 2 {
					t.Fatalf("%d attempts, want 2", tr.calls)
				}
				if got := tr.times[1].Sub(tr.times[0]); got != c.want || tr.waits[0] != c.want {
					t.Errorf("waited %v (observer told %v), want %v", got, tr.waits[0], c.want)
				}
			})
		})
	}
}

func TestObserver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen []Outcome
		var waits []time.Duration
		p := DocV1.WithOnRetry(func(o Outcome, d time.Duration) {
			seen = append(seen, o)
			waits = append(waits, d)
		})
		var made []*response
		res, err := Run(t.Context(), p, func(context.Context) (*response, error) {
			r := &response{status: 503}
			made = append(made, r)
			return r, nil
		})
		if err != nil || res != made[2] {
			t.Fatalf("got (%v, %v), want the third 503 with a nil error", res, err)
		}
		if len(seen) != 2 {
			t.Fatalf("the observer was called %d times, want 2 (not after the last attempt)", len(seen))
		}
		for i, o := range seen {
			if o.Attempt != i+1 || o.Result != any(made[i]) || o.Err != nil || o.StatusCode() != 503 {
				t.Errorf("call %d: %+v, want attempt %d with its own 503", i, o, i+1)
			}
		}
		if waits[0] != time.Second || waits[1] != 2*time.Second {
			t.Errorf("waits %v, want [1s 2s]", waits)
		}
	})
	t.Run("Do hands it outcomes with a nil Result", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			boom := errors.New("boom")
			var seen []Outcome
			err := Embedder.WithOnRetry(func(o Outcome, _ time.Duration) { seen = append(seen, o) }).
				Do(t.Context(), func(context.Context) error { return boom })
			if err != boom || len(seen) != 2 || seen[0].Result != nil || seen[0].Err != boom {
				t.Errorf("got %v and %+v, want boom twice observed with nil results", err, seen)
			}
		})
	})
	t.Run("a nil observer removes it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			called := false
			p := DocV1.WithOnRetry(func(Outcome, time.Duration) { called = true }).WithOnRetry(nil)
			_ = p.Do(t.Context(), func(context.Context) error { return errors.New("x") })
			if called {
				t.Error("observer called")
			}
		})
	})
}

func TestCancellation(t *testing.T) {
	t.Run("a context done before the first attempt calls nothing", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		called := false
		err := Query.Do(ctx, func(context.Context) error { called = true; return nil })
		if called || !errors.Is(err, context.Canceled) {
			t.Errorf("called %v, err %v; want no call and context.Canceled", called, err)
		}
	})
	t.Run("an op that returns the caller's cancellation is not retried and its error is returned as is", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			for name, spec := range specs() {
				ctx, cancel := context.WithCancel(t.Context())
				calls := 0
				var opErr error
				start := time.Now()
				err := spec.policy.WithRetryIf(func(Outcome) bool { return true }).Do(ctx, func(ctx context.Context) error {
					calls++
					cancel()
					opErr = &wrapError{ctx.Err()}
					return opErr
				})
				if calls != 1 || err != opErr || time.Since(start) != 0 {
					t.Errorf("%s: %d calls, err %v after %v; want 1 call, the op's own error, no delay", name, calls, err, time.Since(start))
				}
			}
		})
	})
	t.Run("an op that returns only the context's cause still yields context.Canceled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cause := errors.New("shutting down")
			ctx, cancel := context.WithCancelCause(t.Context())
			calls := 0
			err := Query.Do(ctx, func(ctx context.Context) error {
				calls++
				cancel(cause)
				return context.Cause(ctx)
			})
			if calls != 1 || !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
				t.Errorf("%d calls, err %v; want 1 call, an error that is both context.Canceled and the cause", calls, err)
			}
		})
	})
	t.Run("a retried result when the context ends gives the context's error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			calls := 0
			res, err := Run(ctx, Throttle, func(context.Context) (*response, error) {
				calls++
				if calls == 50 {
					cancel()
				}
				return &response{status: 429}, nil
			})
			if calls != 50 || res != nil || !errors.Is(err, context.Canceled) {
				t.Errorf("%d calls, (%v, %v); want 50 calls then (nil, context.Canceled)", calls, res, err)
			}
		})
	})
	t.Run("a deadline with a custom cause yields DeadlineExceeded and the cause", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cause := errors.New("feed budget spent")
			ctx, cancel := context.WithTimeoutCause(t.Context(), 1500*time.Millisecond, cause)
			defer cancel()
			start := time.Now()
			err := DocV1.Do(ctx, func(context.Context) error { return errors.New("x") })
			if time.Since(start) != 1500*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, cause) {
				t.Errorf("after %v: %v; want at 1.5s an error that is DeadlineExceeded and the cause", time.Since(start), err)
			}
		})
	})
	t.Run("the operation's own deadline is an ordinary error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			calls := 0
			err := Query.Do(t.Context(), func(ctx context.Context) error {
				calls++
				opCtx, cancel := context.WithTimeout(ctx, time.Millisecond)
				defer cancel()
				<-opCtx.Done()
				return opCtx.Err()
			})
			if calls != 5 || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%d calls, %v; want Query's 5 attempts", calls, err)
			}
		})
	})
}

// wrapError wraps an error without adding text, like a transport would.
type wrapError struct{ err error }

func (e *wrapError) Error() string { return "op: " + e.err.Error() }
func (e *wrapError) Unwrap() error { return e.err }

func TestInvalidValues(t *testing.T) {
	never := func(context.Context) error { t.Error("op called"); return nil }
	for _, n := range []int{0, -1, -1 << 62} {
		p := Throttle.WithMaxAttempts(n)
		err := p.Do(t.Context(), never)
		if err == nil || err != p.Err() || !strings.Contains(err.Error(), "Throttle") {
			t.Errorf("WithMaxAttempts(%d): %v, want an error naming the policy", n, err)
		}
		if p.WithMaxAttempts(2).Err() != nil {
			t.Errorf("WithMaxAttempts(%d).WithMaxAttempts(2) still invalid", n)
		}
	}
	p := New("mine", RetryIfError, WaitNone(), -3)
	if _, err := Run(t.Context(), p, func(context.Context) (int, error) { t.Error("op called"); return 0, nil }); err == nil {
		t.Error("New with negative attempts: no error")
	}
	if Throttle.Err() != nil || Throttle.MaxAttempts() != 0 {
		t.Error("Throttle changed")
	}
}

func TestWithMaxAttempts(t *testing.T) {
	t.Run("1 disables retrying", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr, _, _ := runTraced(t.Context(), SyncRequest.WithMaxAttempts(1), result(429).make)
			if tr.calls != 1 {
				t.Errorf("%d calls", tr.calls)
			}
		})
	})
	t.Run("on a never-stopping policy it adds a stop and returns the last 429", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tr, res, err := runTraced(t.Context(), Throttle.WithMaxAttempts(4), result(429).make)
			if tr.calls != 4 || res != tr.lastRes || err != nil {
				t.Errorf("%d calls, (%v, %v)", tr.calls, res, err)
			}
			if got := Throttle.WithMaxAttempts(4).String(); got != "retries.Throttle(4 attempts)" {
				t.Errorf("String() = %q", got)
			}
			if got := Throttle.String(); got != "retries.Throttle(unbounded)" {
				t.Errorf("String() = %q", got)
			}
		})
	})
}

func TestZeroPolicyCallsOnce(t *testing.T) {
	calls := 0
	err := Policy{}.Do(t.Context(), func(context.Context) error { calls++; return errors.New("x") })
	if calls != 1 || err == nil {
		t.Errorf("%d calls, %v", calls, err)
	}
}

// valueResult is a result that is not a pointer.
type valueResult struct{ status int }

func (v valueResult) StatusCode() int { return v.status }

func TestRunClassifiesResults(t *testing.T) {
	t.Run("a value result", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			calls := 0
			res, err := Run(t.Context(), DocV1, func(context.Context) (valueResult, error) {
				calls++
				return valueResult{503}, nil
			})
			if calls != 3 || err != nil || res.status != 503 {
				t.Errorf("%d calls, (%v, %v)", calls, res, err)
			}
		})
	})
	t.Run("a nil pointer result with an error is judged by the error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			calls := 0
			_, err := Run(t.Context(), ControlPlane, func(context.Context) (*response, error) {
				calls++
				return nil, &statusError{status: 404}
			})
			if calls != 1 || err == nil {
				t.Errorf("%d calls, %v; want the final 404 at once", calls, err)
			}
		})
	})
}

func TestRetryIfStatus(t *testing.T) {
	codes := []int{429, 503}
	f := RetryIfStatus(codes...)
	codes[0] = 500 // the predicate keeps its own copy
	cases := []struct {
		o    Outcome
		want bool
	}{
		{Outcome{Result: &response{status: 429}}, true},
		{Outcome{Result: &response{status: 503}}, true},
		{Outcome{Result: &response{status: 500}}, false},
		{Outcome{Err: &wrapError{&statusError{status: 429}}}, true},
		{Outcome{Err: errors.New("429")}, false},
		{Outcome{Result: (*response)(nil), Err: &statusError{status: 503}}, true},
		{Outcome{}, false},
	}
	for _, c := range cases {
		if got := f(c.o); got != c.want {
			t.Errorf("RetryIfStatus(429, 503)(%+v) = %v, want %v", c.o, got, c.want)
		}
	}
	if RetryIfStatus()(Outcome{Result: &response{status: 429}}) {
		t.Error("RetryIfStatus() retried a 429")
	}
}

func TestIsFinal4xx(t *testing.T) {
	for status, want := range map[int]bool{399: false, 400: true, 404: true, 408: false, 412: true, 429: false, 499: true, 500: false, 0: false} {
		if IsFinal4xx(status) != want {
			t.Errorf("IsFinal4xx(%d) = %v", status, !want)
		}
	}
}

// TestRun_FirstAttemptFinalAllocatesNoBackoff checks the fast path: a call
// whose first attempt is final costs no allocation of the retry machinery.
func TestRun_FirstAttemptFinalAllocatesNoBackoff(t *testing.T) {
	type result struct{ status int }
	ok := &result{status: 200}
	op := func(context.Context) (*result, error) { return ok, nil }
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		if r, err := Run(ctx, DocV1, op); r != ok || err != nil {
			t.Fatalf("Run = %v, %v", r, err)
		}
	})
	if allocs != 0 {
		t.Fatalf("a first attempt that is final allocated %v times per call, want 0", allocs)
	}
}
