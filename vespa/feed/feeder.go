package feed

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"iter"
	"sync/atomic"
	"time"

	"github.com/govespa/govespa/vespa"
)

// Feeder feeds document operations to Vespa asynchronously, many in flight at
// once, and accounts for every one of them.
//
// Enqueue operations with [Feeder.Put], [Feeder.Update], [Feeder.Remove] or
// [Feeder.Enqueue], or a whole stream with [Feeder.Feed] and
// [Feeder.FeedReader]; enqueuing blocks while [Config.MaxPending] operations
// are unfinished, so memory stays bounded. Each operation ends in exactly one
// [Outcome], given to [Config.OnOutcome] and to the operation's own
// [Operation.Done], and counted in [Feeder.Stats]. [Feeder.Flush] waits for
// what was enqueued; [Feeder.Close] drains and releases everything.
//
// Operations on the same document ID never overlap and are sent in the order
// they were enqueued. Each operation runs under [Config.Retries] (default
// [retries.Feed]: 429, 503, 504 and transport errors retried until the
// deadline [Config.OperationTimeout]); an operation that waits before its
// next attempt is parked on a timer and holds no in-flight slot, so that the
// window stays full of other operations, and is sent again ahead of newer
// ones.
//
// A Feeder is safe for concurrent use. Use after Close returns [ErrClosed].
type Feeder struct {
	client  *vespa.Client
	cfg     Config
	conns   []*conn
	limiter *throttler
	breaker breaker
	stats   collector
	sched   schedule

	slots chan struct{} // one token per accepted operation whose outcome is not being delivered

	deadlineSlack time.Duration // see attemptContext

	aborted abortSignal // fired when Close gives up or the breaker opens
	warned  atomic.Bool // the first transport failure was logged

	reporter *reporter // nil without Config.Progress
}

// New returns a Feeder that sends through client, tuned by cfg (zero fields
// mean defaults). It opens cfg.Connections connections (default: the
// client's [vespa.Client.Connections]) with [vespa.Client.NewHTTPClient];
// Close releases them.
func New(client *vespa.Client, cfg Config) (*Feeder, error) {
	if client == nil {
		return nil, errors.New("feed: nil client")
	}
	cfg, err := cfg.withDefaults(client)
	if err != nil {
		return nil, err
	}
	f := &Feeder{
		client:        client,
		cfg:           cfg,
		limiter:       newThrottler(cfg.MinInflight, cfg.MaxInflight, DefaultStartInflightPerConnection*cfg.Connections),
		deadlineSlack: deadlineSlackFor(cfg.OperationTimeout),
		breaker:       breaker{span: cfg.BreakerSpan},
		slots:         make(chan struct{}, cfg.MaxPending),
		aborted:       abortSignal{done: make(chan struct{})},
	}
	f.sched.byID = map[uint64]*task{}
	f.sched.seed = maphash.MakeSeed()
	f.sched.parked = map[*task]struct{}{}
	f.sched.active = map[*worker]struct{}{}
	f.conns = newConns(client, cfg.Connections, &f.stats)
	perConn := max(1, cfg.MaxInflight/cfg.Connections)
	f.limiter.streams = func() (int, bool) { return streamLimit(f.conns, perConn) }
	f.startReporter()
	return f, nil
}

// Put enqueues a put of the document id with fields: a struct (with json
// tags) or a map, encoded with encoding/json here, once; or the JSON object
// of the fields as json.RawMessage or []byte, sent as {"fields": <fields>}.
// The ID and the fields are checked first: an invalid one is an error
// matching [ErrInvalidOperation], and nothing is sent. See [Feeder.Enqueue]
// for the rest.
func (f *Feeder) Put(ctx context.Context, id vespa.DocumentID, fields any) error {
	op, err := NewPut(id, fields)
	if err != nil {
		return err
	}
	return f.Enqueue(ctx, op)
}

// Update enqueues an update of the document id. update is a [*vespa.Update]
// built with its methods (its encoding, {"fields": {...}}, is the body as
// it is), or the JSON object of the field updates, such as
// {"n":{"increment":1}}, as json.RawMessage or []byte or any value that
// encoding/json turns into one (sent as {"fields": <update>}). The ID and
// the update are checked first, as for [Feeder.Put].
func (f *Feeder) Update(ctx context.Context, id vespa.DocumentID, update any) error {
	op, err := NewUpdate(id, update)
	if err != nil {
		return err
	}
	return f.Enqueue(ctx, op)
}

// Remove enqueues a remove of the document id.
func (f *Feeder) Remove(ctx context.Context, id vespa.DocumentID) error {
	return f.Enqueue(ctx, Operation{Kind: vespa.OpRemove, ID: id})
}

// Enqueue accepts op for sending, blocking while [Config.MaxPending]
// operations are unfinished. ctx bounds the wait, and then stays with the
// operation: cancelling it cancels the operation, and it is passed to
// [Config.OnOutcome] and [Operation.Done].
//
// Once Enqueue returns nil, op will have exactly one outcome. It returns
// ctx's error if ctx ends first, [ErrClosed] after Close, and the
// [*BreakerError] once the circuit breaker has stopped the feed; then op has
// no outcome. An op that cannot be sent — its kind is not put, update or
// remove, its ID is invalid, a put or update has no fields or fields that
// are not a JSON object — is refused with an error matching
// [ErrInvalidOperation], before any attempt.
//
// A raw op.Fields is read when the operation is sent, not here: it must not
// change until the operation's outcome. ([Feeder.Put] and [Feeder.Update]
// copy it.)
func (f *Feeder) Enqueue(ctx context.Context, op Operation) error {
	if err := op.check(); err != nil {
		return err
	}
	if f.cfg.Schema != nil {
		if err := op.checkSchema(f.cfg.Schema); err != nil {
			return err
		}
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
	t := &task{op: op, ctx: ctx}
	s := &f.sched
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-f.slots
		return ErrClosed
	}
	f.admitLocked(t) //nolint:contextcheck // workers run each operation under its own enqueue context, t.ctx
	s.mu.Unlock()
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

// Feed enqueues every operation of ops, in order, and returns when all are
// enqueued (not finished: see [Feeder.Flush] and [Feeder.Close]).
//
// An error that ops yields becomes a failed outcome (with the operation ops
// yielded beside it), and feeding goes on with what ops yields next: a
// [*ParseError] from [Reader.All] names a malformed line, after which the
// reader goes on; any other error (the input could not be read, say) is
// reported too, and Feed returns the first such error once ops is done, so
// that the caller learns that the input was cut short. An operation that
// [Feeder.Enqueue] refuses as invalid ([ErrInvalidOperation]) is a failed
// outcome too. With [Config.StopAtFirstBadLine], Feed instead returns the
// first error ops yields, at once. Operations the [Config.Journal] holds are
// skipped (see [Journal]).
//
// Feed returns nil, the error of ops described above, or the error of
// [Feeder.Enqueue] that stopped it (ctx's, [ErrClosed], a [*BreakerError]).
func (f *Feeder) Feed(ctx context.Context, ops iter.Seq2[Operation, error]) error {
	skip := skipper{f: f, j: f.cfg.Journal}
	var inputErr error
	for op, err := range ops {
		if err != nil {
			if f.cfg.StopAtFirstBadLine {
				return err
			}
			var pe *ParseError
			if errors.As(err, &pe) {
				op.Source, op.Line, op.Offset = pe.Source, pe.Line, pe.Offset
			} else if inputErr == nil {
				inputErr = err
			}
			f.stats.start()
			f.deliver(ctx, &Outcome{Operation: op, Err: err}, false)
			continue
		}
		if skip.skip(&op) {
			f.stats.start()
			f.deliver(ctx, &Outcome{Operation: op, Skipped: true}, false)
			continue
		}
		if err := f.Enqueue(ctx, op); err != nil {
			if !errors.Is(err, ErrInvalidOperation) {
				return err
			}
			if f.cfg.StopAtFirstBadLine {
				return err
			}
			f.stats.start()
			f.deliver(ctx, &Outcome{Operation: op, Err: err}, false)
		}
	}
	return inputErr
}

// FeedReader feeds the feed file r (JSONL or a JSON array, see [Reader]),
// named source in outcomes and in the journal, as [Feeder.Feed] does. An
// empty source is never journalled: name a standard input explicitly to
// resume it.
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
	s := &f.sched
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.closed = true
	s.mu.Unlock()
	err := f.waitDrained(ctx)
	if err != nil {
		f.stop(fmt.Errorf("%w before its operations finished: %w", ErrClosed, err))
		// Every unfinished operation now ends at once, cancelled.
		<-f.drainedChan()
	}
	s.mu.Lock()
	f.endIdleLocked()
	s.mu.Unlock()
	s.wg.Wait()
	f.stopReporter()
	f.stop(ErrClosed)
	closeConns(f.conns)
	if jerr := f.flushJournal(); err == nil {
		err = jerr
	}
	return err
}

// Stats returns a snapshot of the feeder's counters.
func (f *Feeder) Stats() Stats {
	st := f.stats.snapshot()
	s := &f.sched
	s.mu.Lock()
	st.Pending = int64(s.count)
	s.mu.Unlock()
	st.InflightLimit = f.limiter.limit()
	return st
}

// Err returns the [*BreakerError] once the circuit breaker has stopped the
// feed, else nil.
func (f *Feeder) Err() error { return f.breaker.err() }
