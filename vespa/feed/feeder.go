package feed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
)

// Feeder feeds document operations to Vespa asynchronously, many in flight at
// once, and accounts for every one of them.
//
// Enqueue operations with [Feeder.Put], [Feeder.Update], [Feeder.Remove] or
// [Feeder.Enqueue], or a whole stream with [Feeder.Feed] and
// [Feeder.FeedReader]; enqueuing blocks while [Config.MaxPending] operations
// are unfinished, so memory stays bounded. Each operation ends in exactly one
// [Outcome], given to [Config.OnOutcome] and counted in [Feeder.Stats].
// [Feeder.Flush] waits for what was enqueued; [Feeder.Close] drains and
// releases everything.
//
// Operations on the same document ID never overlap and are sent in the order
// they were enqueued. Each operation runs under [retries.DocV1] (transport
// errors and 503, 3 attempts) wrapping [retries.Throttle] (429, until the
// deadline), under the deadline [Config.OperationTimeout].
//
// A Feeder is safe for concurrent use. Use after Close returns [ErrClosed].
type Feeder struct {
	client  *vespa.Client
	cfg     Config
	conns   []*conn
	limiter *throttler
	breaker breaker
	stats   collector

	docPolicy      retries.Policy
	throttlePolicy retries.Policy

	slots chan struct{} // one token per accepted, unfinished operation

	aborted abortSignal // fired when Close gives up or the breaker opens

	mu      sync.Mutex
	ready   []*pending                    // operations whose document is free, FIFO
	readyAt int                           // index of the head of ready
	byID    map[vespa.DocumentID]*pending // the last operation enqueued for each busy document
	workers int
	active  map[*workerState]struct{} // running workers, to cancel on abort
	count   int                       // accepted, unfinished operations
	drained chan struct{}             // closed when count drops to 0; nil when nobody waits
	closed  bool
	wg      sync.WaitGroup
}

// pending is an operation accepted by the feeder and not yet finished.
type pending struct {
	op   Operation
	ctx  context.Context
	next *pending // the next operation on the same document
}

// New returns a Feeder that sends through client, tuned by cfg (zero fields
// mean defaults). It opens cfg.Connections transports with
// [vespa.Client.NewHTTPClient]; Close releases them.
func New(client *vespa.Client, cfg Config) (*Feeder, error) {
	if client == nil {
		return nil, errors.New("feed: nil client")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	f := &Feeder{
		client:  client,
		cfg:     cfg,
		limiter: newThrottler(cfg.MinInflight, cfg.MaxInflight),
		breaker: breaker{span: cfg.BreakerSpan},
		slots:   make(chan struct{}, cfg.MaxPending),
		byID:    map[vespa.DocumentID]*pending{},
		active:  map[*workerState]struct{}{},
		aborted: abortSignal{done: make(chan struct{})},
	}
	for range cfg.Connections {
		hc := client.NewHTTPClient()
		c := &conn{}
		hc.Transport = &countingTransport{base: hc.Transport, stats: &f.stats}
		c.hc = hc
		f.conns = append(f.conns, c)
	}
	f.docPolicy = retries.DocV1.WithOnRetry(func(o retries.Outcome, _ time.Duration) {
		if o.Err != nil {
			f.stats.retries[reasonTransport].Add(1)
		} else {
			f.stats.retries[reason503].Add(1)
		}
	})
	f.throttlePolicy = retries.Throttle.WithOnRetry(func(retries.Outcome, time.Duration) {
		f.stats.retries[reason429].Add(1)
	})
	return f, nil
}

// Put enqueues a put of the document id with fields, the JSON object of its
// fields, sent as it is.
func (f *Feeder) Put(ctx context.Context, id vespa.DocumentID, fields json.RawMessage) error {
	return f.Enqueue(ctx, Operation{Kind: vespa.OpPut, ID: id, Fields: fields})
}

// Update enqueues an update of the document id; fields is the JSON object of
// the field updates, such as {"n":{"increment":1}}.
func (f *Feeder) Update(ctx context.Context, id vespa.DocumentID, fields json.RawMessage) error {
	return f.Enqueue(ctx, Operation{Kind: vespa.OpUpdate, ID: id, Fields: fields})
}

// Remove enqueues a remove of the document id.
func (f *Feeder) Remove(ctx context.Context, id vespa.DocumentID) error {
	return f.Enqueue(ctx, Operation{Kind: vespa.OpRemove, ID: id})
}

// Enqueue accepts op for sending, blocking while [Config.MaxPending]
// operations are unfinished. ctx bounds the wait, and then stays with the
// operation: cancelling it cancels the operation, and it is passed to
// [Config.OnOutcome].
//
// Once Enqueue returns nil, op will have exactly one outcome. It returns
// ctx's error if ctx ends first, [ErrClosed] after Close, and the
// [*BreakerError] once the circuit breaker has stopped the feed; then op has
// no outcome. An op whose kind is not put, update or remove, or a put or
// update without fields, is an error too.
func (f *Feeder) Enqueue(ctx context.Context, op Operation) error {
	switch op.Kind {
	case vespa.OpPut, vespa.OpUpdate:
		if op.Fields == nil {
			return fmt.Errorf("feed: %s of %s without fields", op.Kind, op.ID)
		}
	case vespa.OpRemove:
	default:
		return fmt.Errorf("feed: cannot feed operation kind %v", op.Kind)
	}
	if err := f.breaker.err(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	select {
	case f.slots <- struct{}{}: // the common case, without the full select
	default:
		if err := f.acquireSlow(ctx); err != nil {
			return err
		}
	}
	f.stats.start()
	p := &pending{op: op, ctx: ctx}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		<-f.slots
		return ErrClosed
	}
	f.count++
	if tail, busy := f.byID[p.op.ID]; busy {
		tail.next = p
		f.byID[p.op.ID] = p
	} else {
		f.byID[p.op.ID] = p
		f.ready = append(f.ready, p)
		// Workers outlive this call and serve every caller's operations,
		// each under the context it was enqueued with (pending.ctx).
		f.spawnLocked() //nolint:contextcheck // a worker runs each operation under its own enqueue context, p.ctx
	}
	f.mu.Unlock()
	return nil
}

// acquireSlow waits for a pending slot.
func (f *Feeder) acquireSlow(ctx context.Context) error {
	select {
	case f.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-f.aborted.done:
		return f.aborted.err()
	}
}

// spawnLocked starts workers for ready operations, up to the in-flight limit.
func (f *Feeder) spawnLocked() {
	limit := f.limiter.limit()
	for f.workers < limit && f.readyAt < len(f.ready) {
		p := f.popReadyLocked()
		f.workers++
		w := &workerState{}
		f.bind(w)
		f.active[w] = struct{}{}
		f.wg.Add(1)
		go f.work(w, p)
	}
}

// popReadyLocked takes the oldest ready operation.
func (f *Feeder) popReadyLocked() *pending {
	p := f.ready[f.readyAt]
	f.ready[f.readyAt] = nil
	f.readyAt++
	if f.readyAt == len(f.ready) {
		f.ready, f.readyAt = f.ready[:0], 0
	} else if f.readyAt > 1024 && f.readyAt > len(f.ready)/2 {
		n := copy(f.ready, f.ready[f.readyAt:])
		clear(f.ready[n:])
		f.ready, f.readyAt = f.ready[:n], 0
	}
	return p
}

// work runs operations until none is ready or the limit shrank: first p,
// then the next operation on p's document, then other ready ones.
func (f *Feeder) work(w *workerState, p *pending) {
	defer f.wg.Done()
	for p != nil {
		f.run(w, p)
		f.mu.Lock()
		var next *pending
		if f.byID[p.op.ID] == p {
			delete(f.byID, p.op.ID)
		} else {
			next = p.next // keeps the document's order: it goes at once
		}
		f.count--
		if f.count == 0 && f.drained != nil {
			close(f.drained)
			f.drained = nil
		}
		<-f.slots
		if next == nil && f.readyAt < len(f.ready) && f.workers <= f.limiter.limit() {
			next = f.popReadyLocked()
		}
		if next == nil {
			f.workers--
			delete(f.active, w)
		} else {
			f.spawnLocked()
		}
		f.mu.Unlock()
		p = next
	}
}

// Feed enqueues every operation of ops, in order, and returns when all are
// enqueued (not finished: see [Feeder.Flush] and [Feeder.Close]). A non-nil
// error from ops, such as a [*ParseError] from [Reader.All], becomes a failed
// outcome and feeding goes on, unless [Config.StopAtFirstBadLine] is set: then
// Feed returns that error. Operations the [Config.Journal] holds are skipped
// (see [Journal]).
//
// Feed returns nil, the error that stopped it, or the error of [Feeder.Enqueue]
// (ctx's, [ErrClosed], a [*BreakerError]).
func (f *Feeder) Feed(ctx context.Context, ops iter.Seq2[Operation, error]) error {
	var skip skipper
	skip.j = f.cfg.Journal
	for op, err := range ops {
		if err != nil {
			if f.cfg.StopAtFirstBadLine {
				return err
			}
			var pe *ParseError
			if errors.As(err, &pe) {
				op.Source, op.Line, op.Offset = pe.Source, pe.Line, pe.Offset
			}
			f.stats.start()
			f.finish(ctx, &Outcome{Operation: op, Err: err}, false)
			if !errors.As(err, &pe) {
				return err // the input itself failed: nothing more to read
			}
			continue
		}
		if skip.skip(&op) {
			f.stats.start()
			f.finish(ctx, &Outcome{Operation: op, Skipped: true}, false)
			continue
		}
		if err := f.Enqueue(ctx, op); err != nil {
			return err
		}
	}
	return nil
}

// FeedReader feeds the feed file r (JSONL or a JSON array, see [Reader]),
// named source in outcomes and in the journal, as [Feeder.Feed] does.
func (f *Feeder) FeedReader(ctx context.Context, source string, r io.Reader) error {
	return f.Feed(ctx, NewReader(r, ReaderConfig{Source: source}).All())
}

// Flush waits until every operation enqueued so far has its outcome, or ctx
// ends (then it returns ctx's error). The feeder stays usable. It also writes
// the journal's buffered records.
func (f *Feeder) Flush(ctx context.Context) error {
	if err := f.waitDrained(ctx); err != nil {
		return err
	}
	return f.flushJournal()
}

// waitDrained waits until no accepted operation is unfinished.
func (f *Feeder) waitDrained(ctx context.Context) error {
	select {
	case <-f.drainedChan():
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// closedChan is a closed channel.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// drainedChan returns a channel closed once no accepted operation is
// unfinished.
func (f *Feeder) drainedChan() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.count == 0 {
		return closedChan
	}
	if f.drained == nil {
		f.drained = make(chan struct{})
	}
	return f.drained
}

func (f *Feeder) flushJournal() error {
	if f.cfg.Journal == nil {
		return nil
	}
	return f.cfg.Journal.Flush()
}

// Close stops accepting operations, waits until every accepted one has its
// outcome, and releases the feeder's goroutines and connections. When ctx
// ends first, the operations still unfinished are cancelled — each still gets
// its outcome, an error matching [ErrClosed] and [context.Canceled] — and
// Close returns ctx's error once they have. Close writes the journal's
// buffered records but closes neither the [vespa.Client] nor the [Journal].
// Calling Close again returns [ErrClosed].
func (f *Feeder) Close(ctx context.Context) error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	f.closed = true
	f.mu.Unlock()
	err := f.waitDrained(ctx)
	if err != nil {
		f.stop(fmt.Errorf("%w before its operations finished: %w", ErrClosed, err))
		// Every unfinished operation now ends at once, cancelled.
		<-f.drainedChan()
	}
	f.wg.Wait()
	f.stop(ErrClosed)
	for _, c := range f.conns {
		c.hc.CloseIdleConnections()
	}
	if jerr := f.flushJournal(); err == nil {
		err = jerr
	}
	return err
}

// Stats returns a snapshot of the feeder's counters.
func (f *Feeder) Stats() Stats {
	s := f.stats.snapshot()
	f.mu.Lock()
	s.Pending = int64(f.count)
	f.mu.Unlock()
	s.InflightLimit = f.limiter.limit()
	return s
}

// Err returns the [*BreakerError] once the circuit breaker has stopped the
// feed, else nil.
func (f *Feeder) Err() error { return f.breaker.err() }

// skipper applies the journal to the operations of one Feed call.
type skipper struct {
	j     *Journal
	refed map[string]struct{} // documents with an operation fed again
}

// skip reports whether op is to be skipped as already acknowledged.
func (s *skipper) skip(op *Operation) bool {
	if s.j == nil || op.Source == "" && op.Line == 0 {
		return false
	}
	last, ok := s.j.lastAcked(op.Source)
	if !ok || op.Offset > last {
		return false // nothing later can be skipped: no need to remember
	}
	key := op.ID.String()
	if _, ok := s.refed[key]; !ok && s.j.Acknowledged(op.Source, op.Offset) {
		return true
	}
	if s.refed == nil {
		s.refed = map[string]struct{}{}
	}
	s.refed[key] = struct{}{}
	return false
}

// conn is one HTTP connection (transport) of the feeder.
type conn struct {
	hc   *http.Client
	busy atomic.Int64
}

// workerState is what Close and the breaker need to reach a running worker:
// the cancel function of the operation it is sending.
type workerState struct {
	mu     sync.Mutex
	cancel context.CancelFunc

	// Used by the worker's goroutine only.
	attempt attempt
	send    func(context.Context) (*vespa.Result, error) // one attempt
	outer   func(context.Context) (*vespa.Result, error) // Throttle around send
}

// setCancel records the cancel function of the worker's current operation
// (nil when it has none).
func (w *workerState) setCancel(c context.CancelFunc) {
	w.mu.Lock()
	w.cancel = c
	w.mu.Unlock()
}

// stop cancels every unfinished operation with cause: those in flight at
// once, the others as workers reach them. (One registry of workers instead of
// a context.AfterFunc per operation keeps the hot path off a shared lock.)
func (f *Feeder) stop(cause error) {
	f.aborted.fire(cause)
	f.mu.Lock()
	defer f.mu.Unlock()
	for w := range f.active {
		w.mu.Lock()
		if w.cancel != nil {
			w.cancel()
		}
		w.mu.Unlock()
	}
}

// abortSignal is fired, once, when the feeder gives up on its unfinished
// operations: Close's context ended or the circuit breaker opened. (It is
// the feeder's own lifetime, not a request's, hence no context.Context.)
type abortSignal struct {
	once  sync.Once
	done  chan struct{} // closed when fired
	cause error         // set before done is closed
}

// fire records cause, if nothing was fired before, and closes done.
func (a *abortSignal) fire(cause error) {
	a.once.Do(func() {
		a.cause = cause
		close(a.done)
	})
}

// err returns the cause once fired, else nil.
func (a *abortSignal) err() error {
	select {
	case <-a.done:
		return a.cause
	default:
		return nil
	}
}
