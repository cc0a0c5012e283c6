package feed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
)

// try sends one attempt of t and decides what comes of it: the outcome that
// ends t (again false), or the wait before t's next attempt (again true).
func (f *Feeder) try(w *worker, t *task) (o Outcome, wait time.Duration, again bool) {
	if err := f.stopped(t.ctx); err != nil {
		return f.outcome(t, err), 0, false
	}
	if t.attempts == 0 {
		f.prepare(t)
	} else if !time.Now().Before(t.deadline) {
		return f.outcome(t, f.timedOut(t)), 0, false
	}
	ctx := f.attemptContext(w, t)
	t.attempts++
	r, err := f.send(ctx, t)
	timedOut := ctx.Err() != nil && t.ctx.Err() == nil && f.aborted.err() == nil

	if r != nil {
		t.last, t.lastErr = r, nil
		if r.OK() {
			if j := f.cfg.Journal; j != nil && t.op.Source != "" {
				j.record(&t.op)
			}
			return f.outcome(t, nil), 0, false
		}
	} else {
		t.lastErr = err
		if stop := f.explain(t, timedOut, err); stop != nil {
			return f.outcome(t, stop), 0, false
		}
	}
	ro := retries.Outcome{Err: err}
	if r != nil {
		ro.Result = r
	}
	d, again := t.steps.Next(t.ctx, ro)
	if !again {
		return f.outcome(t, f.finalError(t, r, err)), 0, false
	}
	if reached := r != nil && r.Status == 504 || r == nil && mayHaveReached(err); reached && !f.mayResend(&t.op) {
		return f.outcome(t, notResent(t, r, err)), 0, false
	}
	// A wait that outlasts the deadline ends there, with the last outcome.
	d = min(d, max(time.Until(t.deadline), 0))
	f.stats.retried(r, err)
	return Outcome{}, d, true
}

// attemptContext returns the context of an attempt of t: it ends with t's
// context, when stop cancels the worker's attempts, and at t's deadline or
// up to deadlineSlack after it. One context serves the attempts a worker
// makes for operations of one enqueue context that started within
// deadlineSlack of each other, so that an attempt costs no context and no
// timer of its own. (Vespa is asked for the exact time left: the slack only
// bounds how late the client gives up on an answer.)
func (f *Feeder) attemptContext(w *worker, t *task) context.Context {
	if w.ctx != nil && sameContext(w.parent, t.ctx) && w.ctx.Err() == nil &&
		!w.deadline.Before(t.deadline) && w.deadline.Sub(t.deadline) <= f.deadlineSlack {
		return w.ctx
	}
	w.endContext()
	deadline := t.deadline.Add(f.deadlineSlack)
	ctx, cancel := context.WithDeadline(t.ctx, deadline)
	w.ctx, w.deadline, w.parent = ctx, deadline, t.ctx
	w.setCancel(cancel)
	if f.aborted.err() != nil {
		cancel() // stop ran before setCancel
	}
	return ctx
}

// sameContext reports whether a and b are the same context. A caller's
// context may be a struct whose type is comparable but whose fields hold a
// slice or a map behind an interface, where == panics: such contexts are
// never the same, and each gets a context of its own.
func sameContext(a, b context.Context) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a != nil && a == b
}

// deadlineSlackFor is how much later than an operation's deadline its last
// attempt may be given up: 1/16 of timeout, at most a second.
func deadlineSlackFor(timeout time.Duration) time.Duration {
	return min(timeout/16, time.Second)
}

// prepare readies t for its first attempt.
func (f *Feeder) prepare(t *task) {
	t.start = time.Now()
	t.deadline = t.start.Add(f.cfg.OperationTimeout)
	t.body = t.op.requestBody()
	t.opts = vespa.OperationOptions{
		Condition: t.op.Condition,
		Create:    t.op.Create,
		Route:     f.cfg.Route,
		Gzip: f.cfg.Compression == CompressionGzip ||
			f.cfg.Compression == CompressionAuto && len(t.body) >= f.cfg.GzipMinBytes,
	}
	t.steps.Reset(f.cfg.Retries...)
	f.limiter.sentOne()
}

// send makes one attempt of t's operation and returns its response, or the
// error when none came.
func (f *Feeder) send(ctx context.Context, t *task) (*vespa.Result, error) {
	if err := f.breaker.err(); err != nil {
		return nil, err
	}
	// Ask Vespa for no more than the time this operation has left.
	t.opts.Timeout = max(time.Until(t.deadline), time.Millisecond)
	c := leastBusy(f.conns)
	c.busy.Add(1)
	f.stats.inflight.Add(1)
	begin := time.Now()
	r, err := f.client.SendOnce(ctx, c.hc, t.op.Kind, t.op.ID, t.body, t.opts)
	latency := time.Since(begin)
	f.stats.inflight.Add(-1)
	c.busy.Add(-1)
	f.observe(r, err, latency)
	return r, err
}

// outcome returns t's outcome with err (nil: success).
func (f *Feeder) outcome(t *task, err error) Outcome {
	o := Outcome{Operation: t.op, Attempts: t.attempts, Err: err}
	if t.attempts > 0 {
		o.Latency = time.Since(t.start)
	}
	if t.last != nil {
		o.Status, o.Message = t.last.Status, t.last.Message
		o.Ignored = err == nil && t.last.IgnoredOperation
	}
	return o
}

// stopped returns why an operation must not be sent (again): its context
// ended, Close gave up, or the breaker is open.
func (f *Feeder) stopped(ctx context.Context) error {
	if err := f.breaker.err(); err != nil {
		return err
	}
	if cause := f.aborted.err(); cause != nil {
		return cancelledBy(cause)
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// explain returns the error that ends t after an attempt that got no
// response, or nil when the policy is to judge it: the breaker opened, Close
// gave up, the caller's context ended, or the operation's deadline passed.
func (f *Feeder) explain(t *task, timedOut bool, err error) error {
	switch {
	case errors.Is(err, ErrBreakerOpen), errors.Is(err, vespa.ErrInvalidDocumentID):
		return err // nothing was sent, and sending again cannot help
	case f.aborted.err() != nil && t.ctx.Err() == nil:
		if be := f.breaker.err(); be != nil {
			return be
		}
		return cancelledBy(f.aborted.err())
	case t.ctx.Err() != nil:
		return context.Cause(t.ctx)
	case timedOut:
		return f.timedOut(t)
	}
	return nil
}

// timedOut returns the error of an operation whose deadline ends it.
func (f *Feeder) timedOut(t *task) error {
	if t.lastErr == nil && t.last != nil {
		return fmt.Errorf("feed: operation timed out after %v (%w): %w",
			f.cfg.OperationTimeout, context.DeadlineExceeded, vespa.ErrorFromResult(t.last, opName(t.op.Kind)))
	}
	if errors.Is(t.lastErr, context.DeadlineExceeded) {
		return fmt.Errorf("feed: operation timed out after %v: %w", f.cfg.OperationTimeout, t.lastErr)
	}
	return fmt.Errorf("feed: operation timed out after %v (%w): %w", f.cfg.OperationTimeout, context.DeadlineExceeded, t.lastErr)
}

// finalError is the error of an operation whose last attempt the policy does
// not retry.
func (f *Feeder) finalError(t *task, r *vespa.Result, err error) error {
	if r != nil {
		return vespa.ErrorFromResult(r, opName(t.op.Kind))
	}
	return err
}

// cancelledBy returns an error matching context.Canceled and cause.
func cancelledBy(cause error) error {
	if errors.Is(cause, context.Canceled) {
		return cause
	}
	return fmt.Errorf("%w: %w", context.Canceled, cause)
}

// opName names an operation kind for errors.
func opName(k vespa.OperationKind) string {
	switch k {
	case vespa.OpPut:
		return "put"
	case vespa.OpUpdate:
		return "update"
	case vespa.OpRemove:
		return "remove"
	}
	return "operation"
}

// observe feeds one attempt's result, which took latency, to the stats, the
// limiter and the breaker.
func (f *Feeder) observe(r *vespa.Result, err error, latency time.Duration) {
	f.stats.requests.Add(1)
	if r == nil {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
			!errors.Is(err, ErrBreakerOpen) {
			if f.warned.CompareAndSwap(false, true) {
				f.client.Logger().Warn("feed: transport failure; retrying as the policy says", "error", err)
			}
			if errors.Is(err, vespa.ErrUnreachable) {
				// The endpoint was never reached for the client's connect
				// patience: every other operation would fail the same.
				f.tripped(f.breaker.trip(err))
				return
			}
			f.fail(err)
		}
		return
	}
	f.stats.responses[statusIndex(r.Status)].Add(1)
	switch {
	case r.Status == 429:
		f.limiter.throttled(int(f.stats.inflight.Load()))
	case r.Status == 504:
		f.limiter.throttled(int(f.stats.inflight.Load()))
		f.fail(vespa.ErrorFromResult(r, "request"))
	case r.Status >= 500:
		f.fail(vespa.ErrorFromResult(r, "request"))
	default:
		if r.OK() {
			f.limiter.success(latency)
		}
		f.breaker.success()
	}
}

// fail records a failed attempt with the breaker and stops the feed if it
// opens.
func (f *Feeder) fail(err error) {
	f.tripped(f.breaker.failure(err))
}

// tripped stops the feed when be, the breaker's error, is not nil.
func (f *Feeder) tripped(be *BreakerError) {
	if be != nil {
		f.client.Logger().Error("feed: circuit breaker open, stopping the feed", "error", be)
		f.stop(be)
	}
}
