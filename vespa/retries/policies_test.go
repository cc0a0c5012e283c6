package retries

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// response is a test double for an HTTP response: a result that carries a
// status and, optionally, a Retry-After hint.
type response struct {
	status     int
	retryAfter time.Duration
	hasRA      bool
}

func (r *response) StatusCode() int { return r.status }

func (r *response) RetryAfter() (time.Duration, bool) { return r.retryAfter, r.hasRA }

// statusError is a test double for an error that carries an HTTP status.
type statusError struct {
	status     int
	retryAfter time.Duration
	hasRA      bool
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d", e.status) }

func (e *statusError) StatusCode() int { return e.status }

func (e *statusError) RetryAfter() (time.Duration, bool) { return e.retryAfter, e.hasRA }

// outcomeFunc makes one fresh outcome per call, so that identity checks can
// tell the last outcome from earlier ones.
type outcomeFunc struct {
	name string
	make func() (*response, error)
}

func result(status int) outcomeFunc {
	return outcomeFunc{fmt.Sprintf("a result with status %d", status), func() (*response, error) {
		return &response{status: status}, nil
	}}
}

func errorWithStatus(status int) outcomeFunc {
	return outcomeFunc{fmt.Sprintf("an error with status %d", status), func() (*response, error) {
		return nil, &statusError{status: status}
	}}
}

var (
	plainError = outcomeFunc{"a plain error", func() (*response, error) {
		return nil, errors.New("boom")
	}}
	connReset = outcomeFunc{"a connection reset", func() (*response, error) {
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	}}
	connRefused = outcomeFunc{"a refused dial", func() (*response, error) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}}
	cutShort = outcomeFunc{"a response cut short", func() (*response, error) {
		return nil, fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF)
	}}
	certError = outcomeFunc{"a certificate error", func() (*response, error) {
		return nil, &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}
	}}
	opDeadline = outcomeFunc{"the operation's own deadline", func() (*response, error) {
		return nil, fmt.Errorf("op: %w", context.DeadlineExceeded)
	}}
	result2xx = result(200)
)

// waitBounds returns the inclusive bounds of the wait after failed attempt n.
type waitBounds func(n int) (lo, hi time.Duration)

func exact(f func(n int) time.Duration) waitBounds {
	return func(n int) (time.Duration, time.Duration) { d := f(n); return d, d }
}

func pow2(base time.Duration, n int) time.Duration { return base << (n - 1) }

// policySpec is issue 2's table, one row per named policy.
type policySpec struct {
	policy     Policy
	attempts   int // 0: never stops
	retried    []outcomeFunc
	notRetried []outcomeFunc
	wait       waitBounds
	random     bool // the wait is drawn at random within its bounds
}

func specs() map[string]policySpec {
	return map[string]policySpec{
		"Query": {
			policy: Query, attempts: 5,
			retried:    []outcomeFunc{plainError, errorWithStatus(500), errorWithStatus(404), connReset, opDeadline},
			notRetried: []outcomeFunc{result(503), result(429), result(500), result(404), result2xx},
			wait: func(n int) (time.Duration, time.Duration) {
				return 0, min(60*time.Second, time.Duration(float64(1500*time.Millisecond)*float64(int(1)<<(n-1))))
			},
			random: true,
		},
		"DocV1": {
			policy: DocV1, attempts: 3,
			retried:    []outcomeFunc{plainError, connReset, errorWithStatus(500), result(503)},
			notRetried: []outcomeFunc{result(429), result(500), result(502), result(504), result(404), result2xx},
			wait:       exact(func(n int) time.Duration { return pow2(time.Second, n) }),
		},
		"Throttle": {
			policy: Throttle, attempts: 0,
			retried:    []outcomeFunc{result(429)},
			notRetried: []outcomeFunc{plainError, connReset, result(503), result(500), result2xx, errorWithStatus(503)},
			wait: func(n int) (time.Duration, time.Duration) {
				if n > 5 {
					return 0, 10 * time.Second
				}
				return 0, min(10*time.Second, pow2(time.Second, n))
			},
			random: true,
		},
		"SyncRequest": {
			policy: SyncRequest, attempts: 11,
			retried:    []outcomeFunc{result(429), connReset, connRefused, cutShort},
			notRetried: []outcomeFunc{result(503), result(500), result(404), result2xx, plainError, certError, opDeadline, errorWithStatus(503)},
			wait: func(n int) (time.Duration, time.Duration) {
				base := time.Duration(float64(100*time.Millisecond) * pow(1.618, n-1))
				return base - 1, base + time.Second + 1 // ±1 ns for float rounding
			},
			random: true,
		},
		"Visit": {
			policy: Visit, attempts: 3,
			retried:    []outcomeFunc{errorWithStatus(400), errorWithStatus(404), errorWithStatus(429), errorWithStatus(500), errorWithStatus(503)},
			notRetried: []outcomeFunc{plainError, connReset, errorWithStatus(302), result(500), result(503), result2xx},
			wait:       exact(func(int) time.Duration { return 0 }),
		},
		"ControlPlane": {
			policy: ControlPlane, attempts: 3,
			retried: []outcomeFunc{plainError, connReset, errorWithStatus(500), errorWithStatus(503), errorWithStatus(408), errorWithStatus(429),
				conflict("APPLICATION_LOCK_FAILURE"), conflict("CONFIG_NOT_CONVERGED"), conflict("LOAD_BALANCER_NOT_READY"), conflict("PARENT_HOST_NOT_READY")},
			notRetried: []outcomeFunc{errorWithStatus(400), errorWithStatus(401), errorWithStatus(403), errorWithStatus(404), errorWithStatus(409), errorWithStatus(412), errorWithStatus(499), result(500), result(503), result2xx,
				conflict("ACTIVATION_CONFLICT"), conflict("")},
			wait: exact(func(n int) time.Duration { return min(3*time.Second, pow2(time.Second, min(n, 10))) }),
		},
		"Upload": {
			policy: Upload, attempts: 1,
			notRetried: []outcomeFunc{plainError, connReset, connRefused, cutShort, errorWithStatus(500), errorWithStatus(503), errorWithStatus(429),
				conflict("APPLICATION_LOCK_FAILURE"), result(500), result2xx},
			wait: exact(func(int) time.Duration { return 0 }),
		},
		"URLValidation": {
			policy: URLValidation, attempts: 3,
			retried:    []outcomeFunc{plainError, connReset, errorWithStatus(500), errorWithStatus(408), errorWithStatus(429)},
			notRetried: []outcomeFunc{errorWithStatus(400), errorWithStatus(403), errorWithStatus(404), result(500), result2xx},
			wait:       exact(func(n int) time.Duration { return min(10*time.Second, max(time.Second, pow2(time.Second, min(n, 10)))) }),
		},
		"Embedder": {
			policy: Embedder, attempts: 3,
			retried:    []outcomeFunc{plainError, connReset, errorWithStatus(400), errorWithStatus(500), certError},
			notRetried: []outcomeFunc{result(500), result(429), result2xx},
			wait: func(n int) (time.Duration, time.Duration) {
				d := min(5*time.Second, pow2(200*time.Millisecond, min(n, 10)))
				return d / 2, d
			},
			random: true,
		},
	}
}

func pow(x float64, n int) float64 {
	r := 1.0
	for range n {
		r *= x
	}
	return r
}

// trace records what one invocation did.
type trace struct {
	calls   int
	times   []time.Time // when each attempt started
	lastRes *response
	lastErr error
	waits   []time.Duration // as the observer saw them
}

// runTraced runs p (with an observer added) over make until it returns,
// inside the caller's synctest bubble.
func runTraced(ctx context.Context, p Policy, make func() (*response, error)) (*trace, *response, error) {
	tr := &trace{}
	p = p.WithOnRetry(func(o Outcome, d time.Duration) { tr.waits = append(tr.waits, d) })
	res, err := Run(ctx, p, func(context.Context) (*response, error) {
		tr.calls++
		tr.times = append(tr.times, time.Now())
		tr.lastRes, tr.lastErr = make()
		return tr.lastRes, tr.lastErr
	})
	return tr, res, err
}

func TestPolicies(t *testing.T) {
	for name, spec := range specs() {
		t.Run(name, func(t *testing.T) {
			t.Run("has its name", func(t *testing.T) {
				if spec.policy.Name() != name || spec.policy.MaxAttempts() != spec.attempts || spec.policy.Err() != nil {
					t.Fatalf("got %v (max %d, err %v), want %s with %d attempts", spec.policy, spec.policy.MaxAttempts(), spec.policy.Err(), name, spec.attempts)
				}
			})
			t.Run("retries what its row says, and returns the very last outcome when attempts run out", func(t *testing.T) {
				for _, oc := range spec.retried {
					synctest.Test(t, func(t *testing.T) {
						p, want := spec.policy, spec.attempts
						if want == 0 {
							want = 25 // a never-stopping policy, stopped for the test
							p = p.WithMaxAttempts(want)
						}
						tr, res, err := runTraced(t.Context(), p, oc.make)
						if tr.calls != want {
							t.Errorf("%s: %d attempts, want %d", oc.name, tr.calls, want)
						}
						if res != tr.lastRes || err != tr.lastErr {
							t.Errorf("%s: returned (%v, %v), want the very last outcome (%v, %v)", oc.name, res, err, tr.lastRes, tr.lastErr)
						}
						if len(tr.waits) != want-1 {
							t.Errorf("%s: the observer saw %d retries, want %d", oc.name, len(tr.waits), want-1)
						}
					})
				}
			})
			t.Run("does not retry other outcomes and returns them as they are", func(t *testing.T) {
				for _, oc := range spec.notRetried {
					synctest.Test(t, func(t *testing.T) {
						tr, res, err := runTraced(t.Context(), spec.policy, oc.make)
						if tr.calls != 1 || res != tr.lastRes || err != tr.lastErr || len(tr.waits) != 0 {
							t.Errorf("%s: %d attempts, returned (%v, %v), want 1 attempt returning (%v, %v)",
								oc.name, tr.calls, res, err, tr.lastRes, tr.lastErr)
						}
					})
				}
			})
			t.Run("stops retrying at the first success", func(t *testing.T) {
				if len(spec.retried) == 0 {
					t.Skip("the policy retries nothing")
				}
				synctest.Test(t, func(t *testing.T) {
					n := 0
					tr, res, err := runTraced(t.Context(), spec.policy, func() (*response, error) {
						n++
						if n == 2 {
							return result2xx.make()
						}
						return spec.retried[0].make()
					})
					if tr.calls != 2 || err != nil || res != tr.lastRes || res.status != 200 {
						t.Errorf("%d attempts, (%v, %v), want 2 attempts ending with the 200", tr.calls, res, err)
					}
				})
			})
			t.Run("waits within its bounds before each retry", func(t *testing.T) {
				if len(spec.retried) == 0 {
					t.Skip("the policy retries nothing")
				}
				const attempts = 12 // more than any row, to reach the caps
				p := spec.policy.WithMaxAttempts(attempts)
				samples := 1
				if spec.random {
					samples = 300
				}
				seen := make([][]time.Duration, attempts)
				for range samples {
					synctest.Test(t, func(t *testing.T) {
						tr, _, _ := runTraced(t.Context(), p, spec.retried[0].make)
						for i := 1; i < len(tr.times); i++ {
							got := tr.times[i].Sub(tr.times[i-1])
							if got != tr.waits[i-1] {
								t.Fatalf("wait %d lasted %v, the observer was told %v", i, got, tr.waits[i-1])
							}
							seen[i] = append(seen[i], got)
						}
					})
				}
				for n := 1; n < attempts; n++ {
					lo, hi := spec.wait(n)
					least, most := hi, lo
					for _, d := range seen[n] {
						if d < lo || d > hi {
							t.Fatalf("wait after attempt %d: %v, want within [%v, %v]", n, d, lo, hi)
						}
						least, most = min(least, d), max(most, d)
					}
					if spec.random && hi-lo > time.Millisecond {
						// 300 uniform draws all in one outer quarter: odds below 1e-37.
						if q := (hi - lo) / 4; least > lo+q || most < hi-q {
							t.Errorf("wait after attempt %d: drawn within [%v, %v] only, want spread over [%v, %v]", n, least, most, lo, hi)
						}
					}
				}
			})
			if spec.wait != nil {
				if lo, _ := spec.wait(1); lo == 0 && !spec.random {
					return // Visit never waits, so there is no wait to cancel
				}
			}
			t.Run("a cancellation during a wait returns at once", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					cause := errors.New("the caller gave up")
					ctx, cancel := context.WithCancelCause(t.Context())
					var waitStart time.Time
					var cut time.Duration
					p := spec.policy.WithOnRetry(func(_ Outcome, d time.Duration) {
						waitStart, cut = time.Now(), d/2
						time.AfterFunc(cut, func() { cancel(cause) })
					})
					calls := 0
					res, err := Run(ctx, p, func(context.Context) (*response, error) {
						calls++
						if calls > 1 {
							t.Fatal("attempted again after a cancellation")
						}
						return spec.retried[0].make()
					})
					if got := time.Since(waitStart); got != cut {
						t.Errorf("returned %v into the wait, want %v (at once)", got, cut)
					}
					if res != nil || !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
						t.Errorf("got (%v, %v), want (nil, an error that is context.Canceled and the cause)", res, err)
					}
				})
			})
			t.Run("a deadline during a wait returns at once", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					const timeout = 50 * time.Millisecond
					ctx, cancel := context.WithTimeout(t.Context(), timeout)
					defer cancel()
					start := time.Now()
					p := spec.policy.WithMaxAttempts(1000)
					res, err := Run(ctx, p, func(context.Context) (*response, error) { return spec.retried[0].make() })
					if got := time.Since(start); got != timeout {
						t.Errorf("returned after %v, want %v", got, timeout)
					}
					if res != nil || !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("got (%v, %v), want (nil, context.DeadlineExceeded)", res, err)
					}
				})
			})
		})
	}
}

// TestPoliciesCopiesNeverChangeTheOriginal adapts every named policy in every
// way and checks that the named value behaves as before.
func TestPoliciesCopiesNeverChangeTheOriginal(t *testing.T) {
	for name, spec := range specs() {
		t.Run(name, func(t *testing.T) {
			observed := 0
			_ = spec.policy.WithMaxAttempts(1).WithWait(WaitNone()).WithRetryIf(nil).
				WithOnRetry(func(Outcome, time.Duration) { observed++ })
			_ = spec.policy.WithMaxAttempts(0)
			_ = spec.policy.WithMaxAttempts(7)
			p := spec.policy
			if p.Name() != name || p.MaxAttempts() != spec.attempts || p.Err() != nil || p.onRetry != nil {
				t.Fatalf("the original changed: %v, err %v", p, p.Err())
			}
			synctest.Test(t, func(t *testing.T) {
				want := spec.attempts
				if want == 0 {
					want = 4
					p = p.WithMaxAttempts(want)
				}
				oc := spec.notRetried[0]
				if len(spec.retried) > 0 {
					oc = spec.retried[0]
				} else {
					want = 1
				}
				tr, _, _ := runTraced(t.Context(), p, oc.make)
				if tr.calls != want || observed != 0 {
					t.Errorf("%d attempts, %d observed, want %d and 0", tr.calls, observed, want)
				}
			})
		})
	}
}

// TestPoliciesConcurrentUse runs every named policy from many goroutines at
// once (run it with -race): no call sees another's attempts.
func TestPoliciesConcurrentUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const goroutines = 40
		specs := specs()
		errs := make(chan error, goroutines*len(specs))
		for name, spec := range specs {
			if len(spec.retried) == 0 {
				delete(specs, name) // nothing to retry, nothing to race
				continue
			}
			for g := range goroutines {
				go func() {
					p := spec.policy
					if g%2 == 0 { // half of them adapt a copy meanwhile
						p = p.WithMaxAttempts(3)
					}
					calls := 0
					res, err := Run(t.Context(), p, func(context.Context) (*response, error) {
						calls++
						if calls == 3 {
							return &response{status: 200}, nil
						}
						return spec.retried[g%len(spec.retried)].make()
					})
					if calls != 3 || err != nil || res.status != 200 {
						errs <- fmt.Errorf("%s goroutine %d: %d calls, (%v, %w)", name, g, calls, res, err)
						return
					}
					errs <- nil
				}()
			}
		}
		for range goroutines * len(specs) {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	})
}
