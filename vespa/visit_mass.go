package vespa

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

// SelectionRequest describes an update or removal of every document that
// matches a selection ([Client.UpdateWhere], [Client.RemoveWhere]): Vespa's
// PUT and DELETE on /document/v1 without a document ID.
type SelectionRequest struct {
	// Namespace limits the operation to one namespace
	// (/document/v1/<ns>/<type>/docid); it goes with DocType. An update
	// needs it; a removal without it covers every namespace.
	Namespace string
	// DocType limits the operation to one document type; it goes with
	// Namespace. An update needs it; a removal without it covers every type
	// (/document/v1/).
	DocType string
	// Cluster is the content cluster; required.
	Cluster string
	// BucketSpace is the bucket space of a removal without DocType:
	// BucketSpaceDefault or BucketSpaceGlobal. Empty: both, so that
	// documents of global types are removed too. With DocType it must be
	// empty (a type is in its own space).
	BucketSpace string
	// Selection is the document selection; required. "true" matches every
	// document. It must be one balanced expression (parentheses matched,
	// strings closed), since Vespa combines it with the path's type and
	// namespace. Each matching document is updated or removed with the
	// selection as its test-and-set condition, so a document changed in the
	// meantime to no longer match is left alone.
	Selection string
	// Slices splits the work into this many parts, SliceIDs of which this
	// process runs, Parallelism at a time. Zero: 1 when SliceIDs is given,
	// else as many as Parallelism (8 by default).
	Slices int
	// SliceIDs are the slices, each in [0, Slices), that this process runs;
	// other processes can run the rest. Nil: all of them.
	SliceIDs []int
	// Parallelism is how many slices run at the same time, each by its own
	// goroutine. Zero: min(len(SliceIDs), DefaultVisitParallelism).
	Parallelism int
	// Timeout is Vespa's timeout of each request. Zero: the client's
	// default, else Vespa's 180 s.
	Timeout time.Duration
	// TimeChunk is how long Vespa works on each request before it answers
	// with a continuation. Zero: Vespa's default, 60 s.
	TimeChunk time.Duration
}

// UpdateWhere applies update to every document that req selects and returns
// how many documents Vespa processed. update is what [Client.Update] takes:
// an [*Update], or the update body ({"fields":{...}}) as JSON. The slices are
// run in parallel and each follows its continuations to the end.
//
// Each request runs under the client's policy only (429s and connection
// errors by default), not retries.Visit: retrying a failed request could
// apply a non-idempotent update (an increment) twice to the documents it
// had already updated. The first error ends the call: the other slices are
// stopped, and the count so far is returned with that error, an [*Error]
// for a status other than 2xx. Under [WithSchema] an update that does not
// fit req.DocType is an [*EncodeError] and nothing is sent.
func (c *Client) UpdateWhere(ctx context.Context, req SelectionRequest, update any) (int64, error) {
	if req.Namespace == "" || req.DocType == "" {
		return 0, errors.New("vespa: UpdateWhere: Namespace and DocType are required")
	}
	body, err := updateBody(update)
	if err != nil {
		return 0, &Error{Op: "update-where", Err: err}
	}
	if err := c.checkUpdateWhere(req.DocType, body); err != nil {
		return 0, err
	}
	return c.massOperation(ctx, "update-where", http.MethodPut, req, body)
}

// RemoveWhere removes every document that req selects and returns how many
// documents Vespa removed. Slices, retries and errors are as for
// [Client.UpdateWhere].
//
// Unlike [Client.Remove], a mass operation is never silently ignored: a
// DocType the cluster does not hold is a 400 ("There is no document type
// ..."; DocumentV1ApiHandler.resolveBucket), and each document's own
// operation is routed to req.Cluster directly, so none is dropped for
// matching no cluster. Vespa's pages carry no X-Vespa-Ignored-Operation
// (the handler commits them with it off); should one arrive (a proxy, a
// fault), the call fails with an [*Error] matching [ErrIgnoredOperation]
// instead of counting documents that were not processed.
func (c *Client) RemoveWhere(ctx context.Context, req SelectionRequest) (int64, error) {
	return c.massOperation(ctx, "remove-where", http.MethodDelete, req, nil)
}

func (c *Client) massOperation(ctx context.Context, op, method string, req SelectionRequest, body []byte) (int64, error) {
	chains, slicesN, parallelism, err := checkSelectionRequest(op, &req)
	if err != nil {
		return 0, err
	}
	path := "/document/v1/"
	if req.DocType != "" {
		path += EscapePathSegment(req.Namespace) + "/" + EscapePathSegment(req.DocType) + "/docid"
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.timeout
	}
	query := func(ch visitChain, cont string) string {
		q := "cluster=" + escapeQueryValue(req.Cluster) + "&selection=" + escapeQueryValue(req.Selection)
		if ch.space != "" {
			q += "&bucketSpace=" + ch.space
		}
		if timeout > 0 {
			q += "&timeout=" + formatTimeout(timeout)
		}
		if req.TimeChunk > 0 {
			q += "&timeChunk=" + formatTimeout(req.TimeChunk)
		}
		if slicesN > 1 {
			q += "&slices=" + strconv.Itoa(slicesN) + "&sliceId=" + strconv.Itoa(ch.slice)
		}
		if cont != "" {
			q += "&continuation=" + escapeQueryValue(cont)
		}
		return q
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		total    atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) {
		errOnce.Do(func() {
			firstErr = err
			cancel(err)
		})
	}
	todo := make(chan visitChain, len(chains))
	for _, ch := range chains {
		todo <- ch
	}
	close(todo)
	for range parallelism {
		wg.Go(func() {
			for ch := range todo {
				cont := ""
				guard := newAdvanceGuard("")
				for {
					// The zero Policy outside: one attempt, see the doc comment.
					p, err := c.fetchVisitPage(ctx, op, method, path, query(ch, cont), body, timeout, noRetry)
					if err == nil {
						err = ignoredPageError(op, path, p)
					}
					if p != nil && !p.IgnoredOperation {
						total.Add(p.count)
					}
					if err == nil {
						err = guard.check(path, cont, p.next)
					}
					if err != nil {
						fail(err)
						return
					}
					if p.next == "" {
						break
					}
					cont = p.next
				}
			}
		})
	}
	wg.Wait()
	return total.Load(), firstErr
}

// checkSelectionRequest validates req and returns the chains to run, the
// number of slices and the parallelism.
func checkSelectionRequest(op string, req *SelectionRequest) ([]visitChain, int, int, error) {
	switch {
	case req.Cluster == "":
		return nil, 0, 0, fmt.Errorf("vespa: %s: Cluster is required", op)
	case req.Selection == "":
		return nil, 0, 0, fmt.Errorf("vespa: %s: Selection is required (\"true\" selects every document)", op)
	case req.DocType != "" && req.Namespace == "":
		return nil, 0, 0, fmt.Errorf("vespa: %s: DocType needs a Namespace", op)
	case req.DocType == "" && req.Namespace != "":
		return nil, 0, 0, fmt.Errorf("vespa: %s: Namespace needs a DocType", op)
	case req.Slices < 0 || req.Slices > maxSlices:
		return nil, 0, 0, fmt.Errorf("vespa: %s: Slices %d is not in [0, %d]", op, req.Slices, maxSlices)
	case req.Parallelism < 0:
		return nil, 0, 0, fmt.Errorf("vespa: %s: Parallelism %d is negative", op, req.Parallelism)
	case req.Timeout < 0 || req.TimeChunk < 0:
		return nil, 0, 0, fmt.Errorf("vespa: %s: Timeout and TimeChunk must not be negative", op)
	}
	if err := checkDocTypeName(op+": DocType", req.DocType); err != nil {
		return nil, 0, 0, err
	}
	if err := checkNamespace(op+": Namespace", req.Namespace); err != nil {
		return nil, 0, 0, err
	}
	if err := checkSelection(op+": Selection", req.Selection); err != nil {
		return nil, 0, 0, err
	}
	spaces, err := bucketSpaces(op+": BucketSpace", req.BucketSpace, req.DocType == "")
	if err != nil {
		return nil, 0, 0, err
	}
	parallelism := req.Parallelism
	if parallelism == 0 {
		parallelism = DefaultVisitParallelism
	}
	n := req.Slices
	switch {
	case n != 0:
	case req.SliceIDs != nil:
		n = 1
	default:
		n = min(parallelism, maxSlices)
	}
	ids := slices.Clone(req.SliceIDs)
	if ids == nil {
		ids = allSlices(n)
	}
	if err := checkSliceIDs(op, ids, n); err != nil {
		return nil, 0, 0, err
	}
	chains := chainsOf(spaces, ids)
	return chains, n, min(parallelism, len(chains)), nil
}

// noRetry is the zero Policy: one attempt.
var noRetry retries.Policy
