package feed

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
)

// The scheduler. An accepted operation (a task) is in one of these places:
//
//   - behind an earlier operation on the same document (task.next of the
//     document's chain, whose head is in byID's chain), until that one ends;
//   - in ready (fresh work, FIFO) or in again (work whose wait is over,
//     FIFO, taken before ready);
//   - in flight: a worker goroutine is sending an attempt of it;
//   - parked: waiting before its next attempt on a timer, holding no worker
//     and no in-flight slot, so that the window stays full of other work;
//   - delivering: its outcome is being handed to the callbacks.
//
// Workers are goroutines, at most the throttler's limit of them sending at
// once; each runs attempts until nothing is ready, then exits. A task stays
// the head of its document's chain until its outcome is delivered, so that a
// later operation on the same document waits behind a parked one.

// Documents are told apart by a 64-bit hash of their ID (task.key, seeded
// per feeder), not by the ID itself, which costs four string hashes per map
// access. Two documents whose keys collide share one chain: their
// operations go one after the other, which keeps every order it must.

// task is an operation accepted by the feeder and not yet finished.
type task struct {
	op   Operation
	ctx  context.Context
	next *task  // the next operation on the same document (or one whose key collides)
	key  uint64 // hash of op.ID (see above)

	// Set at the first attempt.
	body     []byte
	opts     vespa.OperationOptions
	start    time.Time
	deadline time.Time
	attempts int
	steps    retries.Stepper

	// The last attempt's outcome.
	last    *vespa.Result // the last response, if any came
	lastErr error         // the last attempt's error (nil when a response came)

	// Parking, under Feeder.mu.
	timer     *time.Timer
	stopAfter func() bool // stops the context.AfterFunc that wakes it on cancel
}

// queue is a FIFO of tasks.
type queue struct {
	items []*task
	head  int
}

func (q *queue) len() int { return len(q.items) - q.head }

func (q *queue) push(t *task) { q.items = append(q.items, t) }

// pop takes the oldest task; the queue must not be empty.
func (q *queue) pop() *task {
	t := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 1024 && q.head > len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	return t
}

// schedule is the feeder's scheduling state, guarded by mu.
type schedule struct {
	mu          sync.Mutex
	ready       queue              // fresh operations whose document is free
	again       queue              // operations whose wait is over: before ready
	byID        map[uint64]*task   // the last operation enqueued for each busy document, by key
	seed        maphash.Seed       // of task.key
	parked      map[*task]struct{} // operations waiting for their next attempt
	workers     int                // workers sending (not delivering)
	idle        []*worker          // workers waiting for work
	quitting    bool               // set by Close: idle workers end
	reaper      *time.Timer        // runs reapIdle; while armed (set or running) it is one count in wg
	reaperArmed bool
	active      map[*worker]struct{} // running workers, to cancel on abort
	count       int                  // accepted, unfinished operations
	drained     chan struct{}        // closed when count drops to 0; nil when nobody waits
	closed      bool
	wg          sync.WaitGroup
}

// worker is what Close and the breaker need to reach a running worker: the
// cancel function of the attempt it is sending.
type worker struct {
	mu     sync.Mutex
	cancel context.CancelFunc

	wake      chan *task // a task handed to the worker while idle; nil: end
	idleSince time.Time  // under schedule.mu, while in schedule.idle

	// The context of its attempts (see attemptContext), owned by its
	// goroutine; cancel (above) ends it.
	ctx      context.Context
	parent   context.Context // the enqueue context it derives from; nil: not reused
	deadline time.Time
}

// endContext cancels the worker's attempt context, if any.
func (w *worker) endContext() {
	if w.ctx == nil {
		return
	}
	w.mu.Lock()
	if w.cancel != nil {
		w.cancel()
		w.cancel = nil
	}
	w.mu.Unlock()
	w.ctx, w.parent = nil, nil
}

// setCancel records the cancel function of the worker's attempt (nil: none).
func (w *worker) setCancel(c context.CancelFunc) {
	w.mu.Lock()
	w.cancel = c
	w.mu.Unlock()
}

// admitLocked places a newly accepted task: behind the last operation on its
// document, or in ready, starting a worker if there is room.
func (f *Feeder) admitLocked(t *task) {
	s := &f.sched
	s.count++
	t.key = maphash.Comparable(s.seed, t.op.ID)
	if tail, busy := s.byID[t.key]; busy {
		tail.next = t
		s.byID[t.key] = t
		return
	}
	s.byID[t.key] = t
	s.ready.push(t)
	f.spawnLocked()
}

// spawnLocked starts workers for waiting work, up to the in-flight limit.
func (f *Feeder) spawnLocked() {
	s := &f.sched
	limit := f.limiter.limit()
	for s.workers < limit {
		t := f.takeLocked()
		if t == nil {
			return
		}
		s.workers++
		if n := len(s.idle); n > 0 {
			// An idle worker takes it: no new goroutine, no stack to grow.
			w := s.idle[n-1]
			s.idle[n-1] = nil
			s.idle = s.idle[:n-1]
			s.active[w] = struct{}{}
			w.wake <- t // buffered: the worker waits on it
			continue
		}
		w := &worker{wake: make(chan *task, 1)}
		s.active[w] = struct{}{}
		s.wg.Add(1)
		// Workers outlive the call that started them and serve every
		// caller's operations, each under its own enqueue context (task.ctx).
		go f.work(w, t) //nolint:contextcheck // each attempt runs under its task's context
	}
}

// workerIdleTime is how long a worker with nothing to send waits for work
// before it ends.
const workerIdleTime = time.Second

// takeLocked returns the next task to send, retried work first, or nil.
func (f *Feeder) takeLocked() *task {
	s := &f.sched
	switch {
	case s.again.len() > 0:
		return s.again.pop()
	case s.ready.len() > 0:
		return s.ready.pop()
	}
	return nil
}

// work sends attempts until nothing is waiting or the limit shrank.
func (f *Feeder) work(w *worker, t *task) {
	defer f.sched.wg.Done()
	defer w.endContext()
	for t != nil {
		for t != nil {
			t = f.attempt(w, t)
		}
		t = f.idle(w)
	}
}

// idle waits, off the window, for spawnLocked to hand the worker a task, and
// returns it; or nil when the worker has waited workerIdleTime (reapIdle)
// or the feeder closed, and is to end. The wait is one channel receive: no
// timer or select per wait.
func (f *Feeder) idle(w *worker) *task {
	s := &f.sched
	s.mu.Lock()
	if s.quitting || s.closed && s.count == 0 {
		s.mu.Unlock()
		return nil
	}
	w.idleSince = time.Now()
	s.idle = append(s.idle, w)
	if !s.reaperArmed {
		s.reaperArmed = true
		s.wg.Add(1) // done by reapIdle or endIdleLocked
		if s.reaper == nil {
			s.reaper = time.AfterFunc(workerIdleTime, f.reapIdle)
		} else {
			s.reaper.Reset(workerIdleTime)
		}
	}
	s.mu.Unlock()
	return <-w.wake
}

// reapIdle ends the workers that have been idle for workerIdleTime. The
// idle list is in the order the workers went idle (spawnLocked takes from
// its end), so they are at its front. It sets the reaper again while
// workers are idle, and is done (s.wg) when none are or Close has begun.
func (f *Feeder) reapIdle() {
	s := &f.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.quitting {
		now := time.Now()
		n := 0
		for n < len(s.idle) && now.Sub(s.idle[n].idleSince) >= workerIdleTime {
			s.idle[n].wake <- nil // buffered, and it waits: it ends
			n++
		}
		rest := copy(s.idle, s.idle[n:])
		clear(s.idle[rest:])
		s.idle = s.idle[:rest]
		if rest > 0 {
			s.reaper.Reset(workerIdleTime - now.Sub(s.idle[0].idleSince))
			return // still armed
		}
	}
	s.reaperArmed = false
	s.wg.Done()
}

// endIdleLocked ends every idle worker, for Close.
func (f *Feeder) endIdleLocked() {
	s := &f.sched
	s.quitting = true
	for _, w := range s.idle {
		w.wake <- nil
	}
	clear(s.idle)
	s.idle = s.idle[:0]
	// A reaper that has fired is waiting for mu: it sees quitting and is
	// done; one that has not is done here.
	if s.reaperArmed && s.reaper.Stop() {
		s.reaperArmed = false
		s.wg.Done()
	}
}

// attempt sends one attempt of t, then parks t or delivers its outcome, and
// returns the next task for this worker, or nil when the worker is to stop
// (it has then left the active set).
func (f *Feeder) attempt(w *worker, t *task) *task {
	o, wait, again := f.try(w, t)
	if !again {
		return f.finish(w, t, o)
	}
	f.park(t, wait)
	return f.next(w)
}

// next returns the worker's next task, retried work before fresh work; when
// there is none, or the limit shrank, the worker leaves and next returns nil.
func (f *Feeder) next(w *worker) *task {
	s := &f.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.workers <= f.limiter.limit() {
		if t := f.takeLocked(); t != nil {
			return t
		}
	}
	s.workers--
	delete(s.active, w)
	return nil
}

// park makes t wait d before its next attempt, off the window: a timer puts
// it back (ahead of fresh work), as does the end of its context.
func (f *Feeder) park(t *task, d time.Duration) {
	s := &f.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	f.stats.waiting.Add(1)
	s.parked[t] = struct{}{}
	if f.aborted.err() != nil {
		f.unparkLocked(t) // stop ran already: end it now
		return
	}
	t.timer = time.AfterFunc(d, func() { f.unpark(t) })
	t.stopAfter = context.AfterFunc(t.ctx, func() { f.unpark(t) })
}

// unpark puts a parked task back into the queue, once.
func (f *Feeder) unpark(t *task) {
	s := &f.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	f.unparkLocked(t)
}

func (f *Feeder) unparkLocked(t *task) {
	s := &f.sched
	if _, ok := s.parked[t]; !ok {
		return // the timer and the context raced: the other one won
	}
	delete(s.parked, t)
	f.stats.waiting.Add(-1)
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	if t.stopAfter != nil {
		t.stopAfter()
		t.stopAfter = nil
	}
	s.again.push(t)
	f.spawnLocked()
}

// finish delivers t's outcome and returns the worker's next task. The worker
// leaves the window while the callbacks run, and t's pending slot is freed
// first, so that a callback may enqueue (even at MaxPending) without
// deadlock; t stays the head of its document's chain until they return, so
// that a document's outcomes come in order.
func (f *Feeder) finish(w *worker, t *task, o Outcome) *task {
	s := &f.sched
	s.mu.Lock()
	<-f.slots
	s.workers--
	delete(s.active, w)
	f.spawnLocked()
	s.mu.Unlock()

	f.deliver(t.ctx, &o, true)

	s.mu.Lock()
	var next *task
	if s.byID[t.key] == t {
		delete(s.byID, t.key)
	} else {
		next = t.next // keeps the document's order: it goes next
	}
	s.count--
	if s.count == 0 && s.drained != nil {
		close(s.drained)
		s.drained = nil
	}
	if s.workers < f.limiter.limit() {
		if next == nil {
			next = f.takeLocked()
		}
		if next != nil {
			s.workers++
			s.active[w] = struct{}{}
		}
	} else if next != nil {
		s.again.push(next)
		next = nil
	}
	s.mu.Unlock()
	return next
}

// deliver counts an outcome and hands it to the callbacks.
func (f *Feeder) deliver(ctx context.Context, o *Outcome, sent bool) {
	f.stats.outcome(o, sent)
	if f.cfg.OnOutcome != nil {
		f.cfg.OnOutcome(ctx, *o)
	}
	if o.Operation.Done != nil {
		o.Operation.Done(ctx, *o)
	}
}

// stop cancels every unfinished operation with cause: attempts in flight at
// once, parked ones now, the others as workers reach them. (One registry of
// workers instead of a context.AfterFunc per operation keeps the hot path
// off a shared lock.)
func (f *Feeder) stop(cause error) {
	f.aborted.fire(cause)
	s := &f.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.active {
		w.mu.Lock()
		if w.cancel != nil {
			w.cancel()
		}
		w.mu.Unlock()
	}
	for t := range s.parked {
		f.unparkLocked(t)
	}
}

// closedChan is a closed channel.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// drainedChan returns a channel closed once no accepted operation is
// unfinished.
func (f *Feeder) drainedChan() <-chan struct{} {
	s := &f.sched
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count == 0 {
		return closedChan
	}
	if s.drained == nil {
		s.drained = make(chan struct{})
	}
	return s.drained
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
