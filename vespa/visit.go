package vespa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"
)

// This file holds the visiting API: VisitRequest, Document, Visitor and
// Client.Visit. Fetching a slice's pages is in visit_slice.go, resume tokens
// in visit_token.go, update and remove by selection in visit_mass.go.

// maxSlices bounds VisitRequest.Slices: more slices than Vespa has buckets
// in a normal cluster gives nothing but empty slices.
const maxSlices = 1 << 16

// DefaultVisitParallelism is the default number of slices a visit fetches
// at the same time (VisitRequest.Parallelism).
const DefaultVisitParallelism = 8

// VisitRequest describes a visit: a read of every document that matches,
// page by page, through Vespa's /document/v1 (GET without a document ID).
// The zero value of each field means Vespa's default, as noted per field.
type VisitRequest struct {
	// Namespace is the namespace of the documents visited; with DocType it
	// makes the path /document/v1/<ns>/<type>/docid. With DocType empty it
	// is added to the selection as id.namespace=='<ns>' instead. Empty: every
	// namespace.
	Namespace string
	// DocType is the document type visited. Empty: every document type, at
	// /document/v1/, which needs Cluster (as does a DocType without a
	// Namespace, which is then added to the selection).
	DocType string
	// Cluster is the content cluster to visit. Empty: the only one (it is
	// required when DocType is empty).
	Cluster string
	// Selection is a document selection expression, such as
	// "music.year > 2000". Empty: every document.
	Selection string
	// FieldSet selects the fields returned: "[all]", "[id]", "[document]"
	// or "<type>:f1,f2". Empty: the document type's fields.
	FieldSet string
	// WantedDocumentCount asks Vespa to end each page once it has about this
	// many documents (a page always holds whole buckets). Zero: Vespa's
	// default (1, which in practice means one bucket's worth).
	WantedDocumentCount int
	// Slices splits the corpus into this many disjoint parts, each with its
	// own continuation chain; the parts this process visits are SliceIDs.
	// Zero: 1 (one chain for the whole corpus), or the number in ResumeToken.
	Slices int
	// SliceIDs are the slices, in [0, Slices), this process visits, so that
	// several processes can share one visit. Nil: all of them, or the ones
	// in ResumeToken.
	SliceIDs []int
	// Parallelism is how many slices are fetched at the same time, each by
	// its own goroutine. Zero: min(len(SliceIDs), DefaultVisitParallelism).
	Parallelism int
	// Timeout is Vespa's timeout of each page request; the client waits
	// 1.1×Timeout + 1 s for it. Zero: the client's default (WithTimeout),
	// else Vespa's 180 s.
	Timeout time.Duration
	// Concurrency is Vespa's concurrency parameter: how many buckets the
	// content nodes visit in parallel for each page. Zero: Vespa's default (1).
	Concurrency int
	// TensorFormat is how tensors are rendered (format.tensors): "short",
	// "long", "short-value", ... Empty: Vespa's default.
	TensorFormat string
	// ResumeToken continues a visit from where Visitor.ResumeToken said it
	// stood: every document not yet yielded is yielded once, and none of
	// the others. It must come from a visit with the same Namespace,
	// DocType, Cluster, Selection and Slices. Empty: start from the
	// beginning.
	ResumeToken string
}

// Document is a document read by a visit.
type Document struct {
	// ID is the document ID as Vespa wrote it, such as "id:ns:music::a".
	ID string
	// Fields is the JSON object of the document's fields.
	Fields json.RawMessage
}

// DocumentID parses d.ID (see [ParseDocumentID]).
func (d *Document) DocumentID() (DocumentID, error) { return ParseDocumentID(d.ID) }

// MarshalJSON renders d as a feed operation, {"put":"<id>","fields":{...}},
// so that a visit's output can be fed back as it is.
func (d *Document) MarshalJSON() ([]byte, error) {
	id, err := json.Marshal(d.ID)
	if err != nil {
		return nil, err
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
	// SlicesDone is the number of this visit's slices that are finished.
	SlicesDone int
	// Slices is the number of slices this visit takes.
	Slices int
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
	sliceIDs    []int
	parallelism int

	mu       sync.Mutex
	started  bool
	progress visitProgress // states by position in sliceIDs
	pending  [][]uint64    // per slice position: hashes to skip still
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

func (v *Visitor) init() error {
	r := &v.req
	switch {
	case r.DocType != "" && r.Namespace == "":
		// Vespa's typed paths need a namespace; visit at the root instead.
		fallthrough
	case r.DocType == "":
		if r.Cluster == "" {
			return errors.New("vespa: VisitRequest: Cluster is required to visit without both Namespace and DocType")
		}
		v.path = "/document/v1/"
	default:
		v.path = "/document/v1/" + EscapePathSegment(r.Namespace) + "/" + EscapePathSegment(r.DocType) + "/docid"
	}
	v.selection = r.Selection
	if v.path == "/document/v1/" {
		var parts []string
		if r.Selection != "" {
			parts = append(parts, "("+r.Selection+")")
		}
		if r.DocType != "" {
			parts = append(parts, "("+r.DocType+")")
		}
		if r.Namespace != "" {
			parts = append(parts, "(id.namespace=='"+strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(r.Namespace)+"')")
		}
		if len(parts) == 1 && r.Selection != "" {
			v.selection = r.Selection
		} else {
			v.selection = strings.Join(parts, " and ")
		}
	}
	switch {
	case r.Slices < 0 || r.Slices > maxSlices:
		return fmt.Errorf("vespa: VisitRequest: Slices %d is not in [0, %d]", r.Slices, maxSlices)
	case r.WantedDocumentCount < 0:
		return fmt.Errorf("vespa: VisitRequest: WantedDocumentCount %d is negative", r.WantedDocumentCount)
	case r.Concurrency < 0:
		return fmt.Errorf("vespa: VisitRequest: Concurrency %d is negative", r.Concurrency)
	case r.Parallelism < 0:
		return fmt.Errorf("vespa: VisitRequest: Parallelism %d is negative", r.Parallelism)
	case r.Timeout < 0:
		return fmt.Errorf("vespa: VisitRequest: Timeout %v is negative", r.Timeout)
	}
	var resumed *visitProgress
	if r.ResumeToken != "" {
		p, err := decodeResumeToken(r.ResumeToken)
		if err != nil {
			return err
		}
		if r.Slices != 0 && r.Slices != p.slices {
			return tokenErrorf("it is for a visit with %d slices, not %d", p.slices, r.Slices)
		}
		resumed = p
	}
	slicesN := r.Slices
	if slicesN == 0 {
		slicesN = 1
		if resumed != nil {
			slicesN = resumed.slices
		}
	}
	ids := slices.Clone(r.SliceIDs)
	switch {
	case ids == nil && resumed != nil:
		ids = resumed.sliceIDs()
	case ids == nil:
		ids = make([]int, slicesN)
		for i := range ids {
			ids[i] = i
		}
	case len(ids) == 0:
		return errors.New("vespa: VisitRequest: SliceIDs is empty (nil means all slices)")
	}
	slices.Sort(ids)
	for i, id := range ids {
		if id < 0 || id >= slicesN {
			return fmt.Errorf("vespa: VisitRequest: slice ID %d is not in [0, %d)", id, slicesN)
		}
		if i > 0 && ids[i-1] == id {
			return fmt.Errorf("vespa: VisitRequest: slice ID %d is given twice", id)
		}
	}
	v.sliceIDs = ids
	fp := visitFingerprint(r.Namespace, r.DocType, r.Cluster, r.Selection, slicesN)
	v.progress = visitProgress{fingerprint: fp, slices: slicesN, states: make([]sliceState, len(ids))}
	v.pending = make([][]uint64, len(ids))
	for i, id := range ids {
		v.progress.states[i] = sliceState{id: id}
	}
	if resumed != nil {
		if resumed.fingerprint != fp {
			return tokenErrorf("it is for another visit (its namespace, document type, cluster or selection differ)")
		}
		if !slices.Equal(resumed.sliceIDs(), ids) {
			return tokenErrorf("it records slices %v, not the requested %v", resumed.sliceIDs(), ids)
		}
		for i, st := range resumed.states {
			v.progress.states[i] = st
			v.pending[i] = slices.Clone(st.seen)
			if st.done {
				v.stats.SlicesDone++
			}
		}
	}
	v.stats.Slices = len(ids)
	v.parallelism = r.Parallelism
	if v.parallelism == 0 {
		v.parallelism = DefaultVisitParallelism
	}
	v.parallelism = min(v.parallelism, len(ids))
	return nil
}

// ResumeToken returns an opaque, versioned token ("v1." and URL-safe
// base64) recording where every slice of the visit stands: the documents
// yielded so far, up to and including the one being handled by the loop
// body. A visit made with it as [VisitRequest.ResumeToken] yields exactly the
// documents this one has not. It is safe to call at any time, from any
// goroutine; a finished visit's token resumes to nothing.
func (v *Visitor) ResumeToken() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.progress.encode()
}

// Stats returns the visit's counters so far. Safe to call at any time.
func (v *Visitor) Stats() VisitStats {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.stats
}

// Done reports whether every slice of the visit is finished.
func (v *Visitor) Done() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.stats.SlicesDone == v.stats.Slices
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

	todo := make(chan int, len(v.sliceIDs)) // positions in v.sliceIDs
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
	}
}

// errVisitStopped is the cause of a visit's context once its loop ends.
var errVisitStopped = errors.New("vespa: visit stopped")

// deliver yields the documents of page p that were not yielded before and
// records the progress; false when the caller broke out of the loop.
func (v *Visitor) deliver(p *slicePage, yield func(*Document, error) bool) bool {
	v.mu.Lock()
	v.stats.Pages++
	st := &v.progress.states[p.pos]
	v.mu.Unlock()
	for i := range p.docs {
		d := &p.docs[i]
		h := hashID(d.ID)
		v.mu.Lock()
		if j := slices.Index(v.pending[p.pos], h); j >= 0 {
			// Yielded before this visit was resumed: skip it, once.
			v.pending[p.pos] = slices.Delete(v.pending[p.pos], j, j+1)
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
	if p.next == "" {
		st.done, st.cont, st.seen, v.pending[p.pos] = true, "", nil, nil
		v.stats.SlicesDone++
		return true
	}
	// Documents skipped for the resume token but not met on this page may
	// come on a later one (Vespa may end pages elsewhere than before).
	st.cont, st.seen = p.next, slices.Clone(v.pending[p.pos])
	return true
}
