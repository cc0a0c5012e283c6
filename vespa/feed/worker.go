package feed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
)

// run sends one operation under the feeder's policies and delivers its
// outcome.
func (f *Feeder) run(w *workerState, p *pending) {
	o := Outcome{Operation: p.op}
	if err := f.stopped(p.ctx); err != nil {
		o.Err = err
		f.finish(p.ctx, &o, false)
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, f.cfg.OperationTimeout)
	defer cancel()
	w.setCancel(cancel)
	defer w.setCancel(nil)
	if f.aborted.err() != nil {
		cancel() // stop ran before setCancel
	}

	// The attempt state lives in the worker and the policies' callbacks
	// were bound once per worker: nothing here allocates per operation.
	a := &w.attempt
	*a = attempt{
		op:   &p.op,
		body: p.op.requestBody(),
	}
	a.opts = vespa.OperationOptions{
		Condition: p.op.Condition,
		Create:    p.op.Create,
		Route:     f.cfg.Route,
		Gzip: f.cfg.Compression == CompressionGzip ||
			f.cfg.Compression == CompressionAuto && len(a.body) >= f.cfg.GzipMinBytes,
	}
	a.deadline, _ = ctx.Deadline()
	f.limiter.sentOne()
	f.stats.inflight.Add(1)
	start := time.Now()
	res, err := retries.Run(ctx, f.docPolicy, w.outer)
	o.Attempts = a.attempts
	last := a.last
	*a = attempt{}
	o.Latency = time.Since(start)
	f.stats.inflight.Add(-1)
	if last != nil {
		o.Status, o.Message = last.Status, last.Message
	}
	switch {
	case err == nil && res != nil && res.OK():
		if j := f.cfg.Journal; j != nil && (p.op.Source != "" || p.op.Line != 0) {
			j.record(p.op.Source, p.op.Offset)
		}
	case err == nil && res != nil:
		o.Err = vespa.ErrorFromResult(res, opName(p.op.Kind))
	case err == nil:
		o.Err = errors.New("feed: no response") // not reached: SendOnce gives a result or an error
	default:
		o.Err = f.explain(p.ctx, ctx, err, last, opName(p.op.Kind))
	}
	f.finish(p.ctx, &o, true)
}

// attempt is the state of the operation a worker is sending.
type attempt struct {
	op       *Operation
	body     []byte
	opts     vespa.OperationOptions
	deadline time.Time
	attempts int
	last     *vespa.Result
}

// bind makes the worker's policy callbacks, once.
func (f *Feeder) bind(w *workerState) {
	w.send = func(ctx context.Context) (*vespa.Result, error) { return f.sendOnce(ctx, &w.attempt) }
	w.outer = func(ctx context.Context) (*vespa.Result, error) {
		return retries.Run(ctx, f.throttlePolicy, w.send)
	}
}

// sendOnce makes one attempt of a's operation.
func (f *Feeder) sendOnce(ctx context.Context, a *attempt) (*vespa.Result, error) {
	a.attempts++
	if err := f.breaker.err(); err != nil {
		return nil, err
	}
	// Ask Vespa for no more than the time this operation has left.
	a.opts.Timeout = max(time.Until(a.deadline), time.Millisecond)
	c := f.leastBusy()
	c.busy.Add(1)
	r, err := f.client.SendOnce(ctx, c.hc, a.op.Kind, a.op.ID, a.body, a.opts)
	c.busy.Add(-1)
	f.observe(r, err)
	if r != nil {
		a.last = r
	}
	return r, err
}

// stopped returns why an operation must not be sent at all: its context
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

// explain turns the error that ended an operation into its outcome's error.
func (f *Feeder) explain(parent, ctx context.Context, err error, last *vespa.Result, kindName string) error {
	switch {
	case errors.Is(err, ErrBreakerOpen):
		return err
	case f.aborted.err() != nil && parent.Err() == nil:
		if be := f.breaker.err(); be != nil {
			return be
		}
		return cancelledBy(f.aborted.err())
	case parent.Err() != nil:
		return context.Cause(parent)
	case ctx.Err() != nil:
		// The operation's own deadline.
		if last != nil {
			return fmt.Errorf("feed: operation timed out after %v (%w): %w",
				f.cfg.OperationTimeout, context.DeadlineExceeded, vespa.ErrorFromResult(last, kindName))
		}
		return fmt.Errorf("feed: operation timed out after %v: %w", f.cfg.OperationTimeout, err)
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

// observe feeds one attempt's result to the stats, the limiter and the
// breaker.
func (f *Feeder) observe(r *vespa.Result, err error) {
	f.stats.requests.Add(1)
	if r == nil {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
			!errors.Is(err, ErrBreakerOpen) {
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
			f.limiter.success()
		}
		f.breaker.success()
	}
}

// fail records a failed attempt with the breaker and stops the feed if it
// opens.
func (f *Feeder) fail(err error) {
	if be := f.breaker.failure(err); be != nil {
		f.client.Logger().Error("feed: circuit breaker open, stopping the feed", "error", be)
		f.stop(be)
	}
}

// finish counts an outcome and delivers it.
func (f *Feeder) finish(ctx context.Context, o *Outcome, sent bool) {
	f.stats.outcome(o, sent)
	if f.cfg.OnOutcome != nil {
		f.cfg.OnOutcome(ctx, *o)
	}
}

// leastBusy returns the connection with the fewest requests in flight.
func (f *Feeder) leastBusy() *conn {
	best := f.conns[0]
	n := best.busy.Load()
	for _, c := range f.conns[1:] {
		if b := c.busy.Load(); b < n {
			best, n = c, b
		}
	}
	return best
}

// countingTransport counts the body bytes sent and received.
type countingTransport struct {
	base  http.RoundTripper
	stats *collector
}

// RoundTrip implements http.RoundTripper.
func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.ContentLength > 0 {
		t.stats.bytesOut.Add(req.ContentLength)
	}
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		if resp.ContentLength >= 0 {
			t.stats.bytesIn.Add(resp.ContentLength)
		} else if resp.Body != nil {
			resp.Body = &countingBody{ReadCloser: resp.Body, stats: t.stats}
		}
	}
	return resp, err
}

// CloseIdleConnections closes the base transport's idle connections.
func (t *countingTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// countingBody counts the bytes read from a response body of unknown length.
type countingBody struct {
	io.ReadCloser
	stats *collector
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.stats.bytesIn.Add(int64(n))
	return n, err
}
