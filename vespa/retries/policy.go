package retries

import (
	"context"
	"errors"
	"fmt"
	"time"

	retry "github.com/sethvargo/go-retry"
)

// StatusCoder is implemented by results and errors that carry an HTTP status.
// A [Policy] classifies an outcome by the status it carries, so this package
// never needs to know the concrete response or error types of its callers.
type StatusCoder interface {
	// StatusCode returns the HTTP status of the response.
	StatusCode() int
}

// RetryAfterer is implemented by results and errors that carry a server's
// Retry-After hint (ok is false when the response had none). When a policy
// retries such an outcome it waits at least that long before the next
// attempt, but never longer than its own cap ([Wait.Max]) nor than
// [MaxRetryAfter].
type RetryAfterer interface {
	// RetryAfter returns the response's Retry-After wait, and whether it
	// had one.
	RetryAfter() (time.Duration, bool)
}

// MaxRetryAfter is the longest a policy waits for a server's Retry-After,
// whatever the hint says (a day, or a value too large for a Duration): a
// policy with a cap ([Wait.Max]) waits at most that, one without at most
// this.
const MaxRetryAfter = 60 * time.Second

// Outcome is what one attempt produced: a result (for [Run]), an error, or both.
type Outcome struct {
	// Attempt is the 1-based number of the attempt that produced this outcome.
	Attempt int
	// Result is the value the operation returned; nil for [Policy.Do].
	Result any
	// Err is the error the operation returned.
	Err error
}

// StatusCode returns the HTTP status carried by the outcome's result, or else
// by its error (through [errors.As]); 0 when neither carries one.
func (o Outcome) StatusCode() int {
	if sc, ok := o.Result.(StatusCoder); ok && !isNilValue(o.Result) {
		return sc.StatusCode()
	}
	if o.Err != nil {
		return errorStatus(o.Err)
	}
	return 0
}

// errorStatus returns the status carried by err's chain, or 0. It is apart
// from [Outcome.StatusCode] so that the target of errors.As is only
// allocated for outcomes that have an error.
func errorStatus(err error) int {
	var sc StatusCoder
	if errors.As(err, &sc) {
		return sc.StatusCode()
	}
	return 0
}

// retryAfter returns the Retry-After hint carried by the result or the error.
func (o Outcome) retryAfter() (time.Duration, bool) {
	if ra, ok := o.Result.(RetryAfterer); ok && !isNilValue(o.Result) {
		if d, ok := ra.RetryAfter(); ok {
			return d, true
		}
	}
	if o.Err != nil {
		return errorRetryAfter(o.Err)
	}
	return 0, false
}

// errorRetryAfter returns the Retry-After hint carried by err's chain.
func errorRetryAfter(err error) (time.Duration, bool) {
	var ra RetryAfterer
	if errors.As(err, &ra) {
		return ra.RetryAfter()
	}
	return 0, false
}

// RetryIf decides whether an outcome is retried. It is never asked about an
// outcome whose error comes from the caller's cancelled context.
type RetryIf func(Outcome) bool

// Policy is an immutable retry strategy: which outcomes are retried
// ([RetryIf]), how long to wait before each retry ([Wait]), when to stop
// (a maximum number of attempts, or none) and an optional observer.
//
// A Policy is a plain value: methods that adapt it return a modified copy and
// leave the receiver untouched, and one Policy may be used by any number of
// goroutines at once. Every invocation that retries builds a fresh go-retry
// Backoff, so no state is ever shared between calls.
//
// When attempts run out, [Policy.Do] and [Run] return the last outcome as it
// was: the last result with the last error, neither wrapped. Where the last
// outcome was a retried result (a 503 response, say), that is the result with
// a nil error.
//
// The zero Policy is usable: it calls the operation once and retries nothing.
type Policy struct {
	name        string
	retryIf     RetryIf
	wait        Wait
	maxAttempts int // 0: never stops; only the context ends it
	onRetry     func(o Outcome, wait time.Duration)
	err         error // set by an adapting method given an invalid value
}

// New returns a policy named name that retries the outcomes for which retryIf
// returns true, waits as w says, and makes at most maxAttempts attempts
// (0 means it never stops; only the context ends it). A nil retryIf retries
// nothing; a zero Wait waits nothing. A negative maxAttempts yields a policy
// whose invocations return an error ([Policy.Err]) without calling the
// operation.
func New(name string, retryIf RetryIf, w Wait, maxAttempts int) Policy {
	p := Policy{name: name, retryIf: retryIf, wait: w, maxAttempts: maxAttempts}
	if maxAttempts < 0 {
		p.err = fmt.Errorf("retries: policy %q: max attempts %d is negative", name, maxAttempts)
	}
	return p
}

// Name returns the policy's name, such as "SyncRequest".
func (p Policy) Name() string { return p.name }

// MaxAttempts returns the number of attempts after which the policy stops; 0
// means it never stops on its own.
func (p Policy) MaxAttempts() int { return p.maxAttempts }

// Wait returns the policy's wait between attempts.
func (p Policy) Wait() Wait { return p.wait }

// Err reports an invalid value given to an adapting method, such as
// WithMaxAttempts(0). [Policy.Do] and [Run] return this error without calling
// the operation.
func (p Policy) Err() error { return p.err }

// String returns the policy's name and attempt limit.
func (p Policy) String() string {
	if p.maxAttempts == 0 {
		return fmt.Sprintf("retries.%s(unbounded)", p.name)
	}
	return fmt.Sprintf("retries.%s(%d attempts)", p.name, p.maxAttempts)
}

// WithMaxAttempts returns a copy that makes at most n attempts in all,
// including the first. n must be at least 1; 1 disables retrying. On a policy
// that never stops, it adds this stop. An n below 1 yields a policy whose
// invocations fail with an error naming the value, without calling the
// operation ([Policy.Err]); a later valid n replaces the invalid one.
func (p Policy) WithMaxAttempts(n int) Policy {
	if n < 1 {
		p.err = fmt.Errorf("retries: policy %q: max attempts must be at least 1, got %d", p.name, n)
		return p
	}
	p.maxAttempts = n
	p.err = nil // the only value that can be invalid is the attempt limit
	return p
}

// WithWait returns a copy that waits as w says between attempts.
func (p Policy) WithWait(w Wait) Policy {
	p.wait = w
	return p
}

// WithRetryIf returns a copy that retries the outcomes for which f returns
// true. A nil f retries nothing. Cancellation of the caller's context is still
// never retried: f is not asked about it.
func (p Policy) WithRetryIf(f RetryIf) Policy {
	p.retryIf = f
	return p
}

// WithOnRetry returns a copy that calls f before each wait, with the outcome
// that is about to be retried (its Attempt is the number of the attempt that
// failed) and the wait that precedes the next attempt, Retry-After included.
// It is not called for the last attempt, nor when ctx is done. f runs on the
// goroutine that invoked the policy; it must not block. A nil f removes the
// observer.
func (p Policy) WithOnRetry(f func(o Outcome, wait time.Duration)) Policy {
	p.onRetry = f
	return p
}

// ShouldRetry reports whether the policy's predicate retries o, without
// considering the attempt limit.
func (p Policy) ShouldRetry(o Outcome) bool {
	return p.retryIf != nil && p.retryIf(o)
}

// errRetry is the marker handed to go-retry when a result (not an error) is to
// be retried; it never reaches a caller.
var errRetry = errors.New("retries: retry result")

// Do calls op until it succeeds, the policy stops retrying, or ctx is done.
// It returns nil, op's last error as it was, or — when ctx ends first — an
// error satisfying errors.Is with ctx.Err() (context.Canceled or
// context.DeadlineExceeded), also when ctx carries a custom cause (which then
// satisfies errors.Is too). A cancellation is never retried and never
// delayed, and the predicate never sees it: an error matching
// context.Canceled (from op, also while ctx is alive, as a delegate that
// was cancelled on its own returns) or ctx's own end is returned at once,
// under every policy. The outcomes Do hands to the predicate and the observer have a nil
// Result.
func (p Policy) Do(ctx context.Context, op func(context.Context) error) error {
	_, err := Run(ctx, p, func(ctx context.Context) (any, error) {
		return nil, op(ctx)
	})
	return err
}

// Run is [Policy.Do] for operations that return a result. An HTTP response is
// a result: the policy classifies it by its status ([StatusCoder]) and, when
// attempts run out, returns it with the last error exactly as op returned
// them (the very same values, never a wrapper).
//
// When ctx ends before the call is over, Run returns the zero T and an error
// satisfying errors.Is with ctx.Err(). The results of retried attempts are
// dropped: op must return values that need no cleanup (read and close a
// response body inside op).
func Run[T any](ctx context.Context, p Policy, op func(context.Context) (T, error)) (T, error) {
	var zero T
	if p.err != nil {
		return zero, p.err
	}
	// Fast path: most calls succeed at once, so the first attempt runs
	// before any go-retry machinery is built. When its outcome is to be
	// retried, a fresh Backoff is made for this call and the first outcome is
	// replayed into it, so the policy's semantics are the same either way.
	if ctx.Err() != nil {
		return zero, contextError(ctx)
	}
	v, err := op(ctx)
	last := Outcome{Attempt: 1, Result: any(v), Err: err}
	switch {
	case err != nil && isCancellation(ctx, err):
		return v, asContextError(ctx, err)
	case !p.ShouldRetry(last):
		return v, err
	}
	return runRetrying(ctx, p, op, v, last)
}

// retryWait returns the wait after attempt, whose outcome last is to be
// retried, and reports it to the observer: the policy's delay, or a longer
// Retry-After within the policy's cap and never above MaxRetryAfter.
func (p *Policy) retryWait(attempt int, last Outcome) time.Duration {
	d := p.wait.Delay(attempt)
	if ra, ok := last.retryAfter(); ok && ra > d {
		// The server asked for a longer pause: honour it, within the
		// policy's cap and never above MaxRetryAfter.
		d = min(ra, MaxRetryAfter)
		if m := p.wait.Max(); m > 0 && d > m {
			d = m
		}
	}
	if p.onRetry != nil {
		p.onRetry(last, d)
	}
	return d
}

// runRetrying goes on with a call whose first attempt (lastVal, last) is to
// be retried, under a go-retry Backoff of its own.
func runRetrying[T any](ctx context.Context, p Policy, op func(context.Context) (T, error), lastVal T, last Outcome) (T, error) {
	var (
		zero      T
		attempt   = 1
		replay    = true // the first go-retry call replays the first outcome
		final     bool   // the op's own outcome ends the call
		exhausted bool   // the attempt limit ends the call
	)
	// A fresh Backoff per call: its state (the attempt count) lives in this
	// closure, never in the Policy, so one Policy serves any number of calls.
	b := retry.BackoffFunc(func() (time.Duration, bool) {
		if p.maxAttempts > 0 && attempt >= p.maxAttempts {
			exhausted = true
			return 0, true
		}
		if ctx.Err() != nil {
			// go-retry returns the context's cause at once; no wait, no observer.
			return 0, false
		}
		return p.retryWait(attempt, last), false
	})
	_, err := retry.DoValue(ctx, b, func(ctx context.Context) (struct{}, error) {
		if replay {
			replay = false
			if last.Err != nil {
				return struct{}{}, retry.RetryableError(last.Err)
			}
			return struct{}{}, retry.RetryableError(errRetry)
		}
		attempt++
		v, err := op(ctx)
		lastVal = v
		last = Outcome{Attempt: attempt, Result: any(v), Err: err}
		switch {
		case err != nil && isCancellation(ctx, err):
			final = true
			last.Err = asContextError(ctx, err)
			return struct{}{}, err
		case !p.ShouldRetry(last):
			final = true
			return struct{}{}, err
		case err != nil:
			return struct{}{}, retry.RetryableError(err)
		default:
			return struct{}{}, retry.RetryableError(errRetry)
		}
	})
	switch {
	case err == nil:
		return lastVal, nil
	case final || exhausted:
		return lastVal, last.Err
	default:
		// The context ended before an attempt or during a wait.
		return zero, contextError(ctx)
	}
}

// contextError returns ctx's error, joined with its cause when they differ,
// so that errors.Is holds for both.
func contextError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err { //nolint:errorlint // identity: is the cause the bare ctx.Err() value?
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// asContextError returns err, the error of an attempt cut short by the end of
// ctx, as it is when it already satisfies errors.Is with ctx.Err(); otherwise
// (an op that returned context.Cause(ctx), say) it wraps err so that it does.
func asContextError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// isCancellation reports whether err is a cancellation, which no policy
// retries, delays or shows to its predicate: context.Canceled from
// anywhere (a delegate that was cancelled, even while ctx is alive), or
// the end of the caller's ctx ([isCallerCancellation]). A deadline of the
// operation's own (an attempt timeout, with ctx alive) is not one: the
// policy judges it.
func isCancellation(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) || isCallerCancellation(ctx, err)
}

// isCallerCancellation reports whether err is a cancellation that comes from
// the caller's context (not from a deadline of the operation's own): ctx is
// done and err is or wraps context.Canceled, context.DeadlineExceeded or
// ctx's cause.
func isCallerCancellation(ctx context.Context, err error) bool {
	if ctx.Err() == nil {
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Cause(ctx))
}
