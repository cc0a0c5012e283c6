package vespa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/govespa/govespa/vespa/internal/wire"
)

// This file holds the visiting API: Document, Visitor, Client.Visit and
// VisitInto. VisitRequest and its validation are in visit_request.go,
// fetching a slice's pages in visit_slice.go, resume tokens in
// visit_token.go, the selection's composition in visit_selection.go, update
// and remove by selection in visit_mass.go.

// Document is a document read by a visit.
type Document struct {
	// ID is the document ID as Vespa wrote it, such as "id:ns:music::a".
	ID string
	// Fields is the JSON object of the document's fields; nil when Removed.
	Fields json.RawMessage
	// Removed marks a document that was removed: a tombstone, visited only
	// with VisitRequest.IncludeRemoves.
	Removed bool
}

// DocumentID parses d.ID (see [ParseDocumentID]).
func (d *Document) DocumentID() (DocumentID, error) { return ParseDocumentID(d.ID) }

// MarshalJSON renders d as a feed operation, {"put":"<id>","fields":{...}},
// or {"remove":"<id>"} when d.Removed, so that a visit's output can be fed
// back as it is.
func (d *Document) MarshalJSON() ([]byte, error) {
	id, err := json.Marshal(d.ID)
	if err != nil {
		return nil, err
	}
	if d.Removed {
		return append(append([]byte(`{"remove":`), id...), '}'), nil
	}
	fields := d.Fields
	if len(fields) == 0 {
		fields = json.RawMessage("{}")
	}
	b := make([]byte, 0, len(id)+len(fields)+20)
	b = append(b, `{"put":`...)
	b = append(b, id...)
	b = append(b, `,"fields":`...)
	b = append(b, fields...)
	return append(b, '}'), nil
}

// VisitStats counts what a visit has done so far.
type VisitStats struct {
	// Documents is the number of documents yielded to the caller.
	Documents int64
	// Pages is the number of pages received.
	Pages int64
	// SlicesDone is the number of this visit's chains that are finished.
	SlicesDone int
	// Slices is the number of chains this visit follows: its slices, once
	// per bucket space visited.
	Slices int
	// PercentFinished is how much of the visit is done, in [0, 100]: the
	// mean over its chains of Vespa's percentFinished, which Vespa reports
	// only on streamed pages ([VisitRequest.Stream]); a chain without it
	// counts 0 until it is finished and 100 after.
	PercentFinished float64
}

// Visitor is one visit: its documents come from [Visitor.All], and its
// progress is available at any time from [Visitor.ResumeToken], also while
// All is running, from any goroutine.
//
// A Visitor is used once: a second call of All yields only an error. Make a
// new one (with [Client.Visitor] and the resume token of the last) to go on.
type Visitor struct {
	c           *Client
	req         VisitRequest
	path        string // escaped, without the client's prefix
	selection   string // as sent
	from, to    int64  // timestamps in µs, 0 for none
	wanted      int    // wantedDocumentCount sent
	chains      []visitChain
	parallelism int

	mu       sync.Mutex
	started  bool
	progress visitProgress // states by position in chains
	pending  [][]uint64    // per chain position: hashes to skip still
	percent  []float64     // per chain position: percentFinished
	stats    VisitStats
}

// Visitor validates req and returns a visit that has not started. Invalid
// fields and a resume token that cannot be decoded or belongs to another
// visit are errors (resume token errors match [ErrInvalidResumeToken]).
func (c *Client) Visitor(req VisitRequest) (*Visitor, error) {
	v := &Visitor{c: c, req: req}
	if err := v.init(); err != nil {
		return nil, err
	}
	return v, nil
}

// Visit reads every document that req selects and yields them one by one,
// fetching req.Parallelism slices at once; pages wait in a small buffer, so
// a slow loop slows the fetching down. Breaking out of the loop stops every
// goroutine of the visit before Visit returns.
//
// Each page request runs under [retries.Visit] on top of the client's
// policy ([Client.RetryPolicy]): the client's policy retries 429s and
// connection errors, then a page with a status of 400 or more becomes an
// [*Error] that retries.Visit retries at once, up to 3 attempts, unless it is
// a final 4xx (400–499 but 408 and 429, such as a 403), which fails at once. An error
// that remains is yielded once, with a nil *Document, and ends the sequence;
// so does an invalid req, before anything is sent. The order of documents is
// not defined.
//
// The sequence is single-use. To be able to resume an interrupted visit,
// use [Client.Visitor] and [Visitor.ResumeToken] instead.
func (c *Client) Visit(ctx context.Context, req VisitRequest) iter.Seq2[*Document, error] {
	v, err := c.Visitor(req)
	if err != nil {
		return func(yield func(*Document, error) bool) { yield(nil, err) }
	}
	return v.All(ctx)
}

// ResumeToken returns an opaque, versioned token ("v1." and URL-safe
// base64) recording where every slice of the visit stands: the documents
// yielded so far, up to and including the one being handled by the loop
// body. A visit made with it as [VisitRequest.ResumeToken] yields exactly the
// documents this one has not. It is safe to call at any time, from any
// goroutine; a finished visit's token resumes to nothing.
//
// Its size: about 65 bytes per slice, plus about 13 characters per document
// already yielded from each page in progress (a visit of 8 slices stopped in
// the middle of pages of 1000 holds about 50 KB). Between pages it holds no
// such documents: [VisitRequest.Checkpoint] hands over the token there.
func (v *Visitor) ResumeToken() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.progress.encode()
}

// Stats returns the visit's counters so far. Safe to call at any time.
func (v *Visitor) Stats() VisitStats {
	v.mu.Lock()
	defer v.mu.Unlock()
	st := v.stats
	if len(v.percent) > 0 {
		var sum float64
		for i, pc := range v.percent {
			if v.progress.states[i].done {
				pc = 100
			}
			sum += pc
		}
		st.PercentFinished = sum / float64(len(v.percent))
	}
	return st
}

// Done reports whether every slice of the visit is finished.
func (v *Visitor) Done() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.stats.SlicesDone == v.stats.Slices
}

// TypedDocument is a document read by [VisitInto], its fields decoded.
type TypedDocument[T any] struct {
	// ID is the document ID as Vespa wrote it, such as "id:ns:music::a".
	ID string
	// Fields holds the document's fields; the zero T when Removed.
	Fields T
	// Removed marks a tombstone (VisitRequest.IncludeRemoves).
	Removed bool
}

// VisitInto is [Client.Visit] with each document's fields decoded into a T,
// which may be a struct (with json tags) or a map, as [GetInto] does. A
// document whose fields do not decode into a T is an error that names it and
// ends the sequence, as does any error of the visit. To resume, use
// [Client.Visitor] and decode [Document.Fields] in the loop.
func VisitInto[T any](ctx context.Context, c *Client, req VisitRequest) iter.Seq2[*TypedDocument[T], error] {
	return func(yield func(*TypedDocument[T], error) bool) {
		for d, err := range c.Visit(ctx, req) {
			if err != nil {
				yield(nil, err)
				return
			}
			td := &TypedDocument[T]{ID: d.ID, Removed: d.Removed}
			if !d.Removed && len(d.Fields) > 0 {
				if err := json.Unmarshal(d.Fields, &td.Fields); err != nil {
					yield(nil, fmt.Errorf("vespa: visit: decoding the fields of %s into %T: %w", wire.QuoteShort(d.ID, 200), td.Fields, err))
					return
				}
			}
			if !yield(td, nil) {
				return
			}
		}
	}
}

// errVisitorUsed is yielded by a second call of Visitor.All.
var errVisitorUsed = errors.New("vespa: Visitor.All called twice (a Visitor is single-use; resume with its ResumeToken)")

// All returns the documents of the visit as a single-use sequence; see
// [Client.Visit] for how pages are fetched and retried, and what errors it
// yields. Breaking out of the loop, or cancelling ctx, stops every goroutine
// of the visit before the loop statement ends; [Visitor.ResumeToken] then
// says where to resume.
func (v *Visitor) All(ctx context.Context) iter.Seq2[*Document, error] {
	return func(yield func(*Document, error) bool) {
		v.mu.Lock()
		used := v.started
		v.started = true
		v.mu.Unlock()
		if used {
			yield(nil, errVisitorUsed)
			return
		}
		v.run(ctx, yield)
	}
}

// run fetches the slices in worker goroutines and hands their pages to
// yield, on the caller's goroutine, updating the progress per document.
func (v *Visitor) run(ctx context.Context, yield func(*Document, error) bool) {
	ctx, cancel := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	closed := make(chan struct{})
	defer func() {
		cancel(errVisitStopped)
		wg.Wait()
		<-closed
	}()

	todo := make(chan int, len(v.chains)) // positions in v.chains
	v.mu.Lock()
	for i, st := range v.progress.states {
		if !st.done {
			todo <- i
		}
	}
	v.mu.Unlock()
	close(todo)
	if len(todo) == 0 {
		close(closed)
		return
	}
	rep := v.newReporter()
	defer rep.finish()
	pages := make(chan *slicePage, v.parallelism)
	for range min(v.parallelism, len(todo)) {
		wg.Go(func() {
			for pos := range todo {
				v.mu.Lock()
				cont := v.progress.states[pos].cont
				v.mu.Unlock()
				if !v.fetchSlice(ctx, pos, cont, pages) {
					return
				}
			}
		})
	}
	go func() { // closes pages once every worker is done
		wg.Wait()
		close(pages)
		close(closed)
	}()
	for {
		var p *slicePage
		select {
		case p = <-pages:
		case <-rep.tick():
			rep.report()
			continue
		case <-ctx.Done():
			if err := ctx.Err(); err != nil {
				yield(nil, fmt.Errorf("vespa: visit: %w", context.Cause(ctx)))
			}
			return
		}
		if p == nil {
			return // every slice is finished
		}
		if p.err != nil {
			yield(nil, p.err)
			return
		}
		if !v.deliver(p, yield) {
			return
		}
		v.checkpoint()
	}
}

// errVisitStopped is the cause of a visit's context once its loop ends.
var errVisitStopped = errors.New("vespa: visit stopped")

// deliver yields the documents of page p that were not yielded before and
// records the progress; false when the caller broke out of the loop.
//
// A tombstone is skipped unless the request asked for removes. A document
// is skipped when it was yielded before a resume (pending), or,
// after a page that returned the continuation it was fetched with, when it
// was yielded since that continuation (st.seen): the server starts again
// where it did, so those documents come again.
func (v *Visitor) deliver(p *slicePage, yield func(*Document, error) bool) bool {
	v.mu.Lock()
	v.stats.Pages++
	st := &v.progress.states[p.pos]
	if p.hasPercent {
		v.percent[p.pos] = min(max(p.percent, 0), 100)
	}
	v.mu.Unlock()
	for i := range p.docs {
		d := &p.docs[i]
		if d.Removed && !v.req.IncludeRemoves {
			// A tombstone that was not asked for (Vespa sends them only
			// with includeRemoves): not a document of this visit.
			continue
		}
		h := hashID(d.ID)
		v.mu.Lock()
		if j := slices.Index(v.pending[p.pos], h); j >= 0 {
			// Yielded before this visit was resumed: skip it, once.
			v.pending[p.pos] = slices.Delete(v.pending[p.pos], j, j+1)
			v.mu.Unlock()
			continue
		}
		if st.carry && slices.Contains(st.seen, h) {
			v.mu.Unlock()
			continue
		}
		st.seen = append(st.seen, h)
		v.stats.Documents++
		v.mu.Unlock()
		if !yield(d, nil) {
			return false
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	switch {
	case p.next == "":
		st.done, st.cont, st.seen, st.carry, v.pending[p.pos] = true, "", nil, false, nil
		v.stats.SlicesDone++
	case p.next == st.cont:
		// No progress: keep what was yielded since st.cont (fetchSlice
		// bounds how often this may happen).
		st.carry = true
	default:
		// Documents skipped for the resume token but not met on this page
		// may come on a later one (Vespa may end pages elsewhere than before).
		st.cont, st.seen, st.carry = p.next, slices.Clone(v.pending[p.pos]), false
	}
	return true
}
