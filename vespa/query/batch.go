package query

import (
	"context"
	"iter"
	"sync"

	"github.com/govespa/govespa/vespa/retries"
)

// Default values of [BatchConfig].
const (
	DefaultInitialConcurrency = 2
	DefaultMaxConcurrency     = 32
)

// BatchConfig tunes [Client.SearchBatch] and [Client.SearchEach]. Its zero
// value means the defaults; a value <= 0 means the default of that field.
//
// The number of queries in flight adapts to the cluster: it starts at
// InitialConcurrency, grows by one after as many successful answers as the
// current limit, and halves (at most once per round of queries, down to
// MinConcurrency) on a 429, 503 or 504 — the signs of an overloaded
// container or of slow embedders. It never exceeds MaxConcurrency.
type BatchConfig struct {
	// InitialConcurrency is the limit at the start. Default 2.
	InitialConcurrency int
	// MinConcurrency is the floor of the limit. Default 1.
	MinConcurrency int
	// MaxConcurrency is the ceiling of the limit. Default 32.
	MaxConcurrency int

	// observe is a test hook: see limiter.observe.
	observe func(inFlight, limit int)
}

// Response is the outcome of one query of a batch: what [Client.Search]
// returned for Requests[Index].
type Response struct {
	// Index is the position of the request in the batch.
	Index int
	// Request is the request that was sent.
	Request *Request
	// Result is the result, as Search returned it (may be set with Err).
	Result *Result
	// Err is the error Search returned; the context's error for queries
	// that never started because ctx ended.
	Err error
}

func (cfg BatchConfig) limiter() *limiter {
	lo := cfg.MinConcurrency
	if lo <= 0 {
		lo = 1
	}
	hi := cfg.MaxConcurrency
	if hi <= 0 {
		hi = DefaultMaxConcurrency
	}
	hi = max(hi, lo)
	start := cfg.InitialConcurrency
	if start <= 0 {
		start = DefaultInitialConcurrency
	}
	start = min(max(start, lo), hi)
	l := newLimiter(start, lo, hi)
	l.observe = cfg.observe
	return l
}

// overloaded reports whether an outcome asks the batch to slow down.
func overloaded(err error) bool {
	switch (retries.Outcome{Err: err}).StatusCode() {
	case 429, 503, 504:
		return true
	}
	return false
}

// SearchBatch runs every request, with adaptive concurrency (see
// [BatchConfig]), and returns one Response per request, in input order.
// A failed query never fails the others: its error is in its Response.
// When ctx ends, queries not yet started get ctx's error.
func (c *Client) SearchBatch(ctx context.Context, reqs []*Request, cfg BatchConfig) []Response {
	out := make([]Response, len(reqs))
	for r := range c.SearchEach(ctx, reqs, cfg) {
		out[r.Index] = r
	}
	return out
}

// SearchEach runs every request like [Client.SearchBatch] and yields each
// Response as soon as its query completes, so in completion order (use
// Response.Index to match it to its request). Every request gets exactly one
// Response unless the loop stops early; then the queries in flight are
// cancelled and SearchEach returns once they have ended. The sequence is
// single-use in spirit: each iteration runs the whole batch again.
func (c *Client) SearchEach(ctx context.Context, reqs []*Request, cfg BatchConfig) iter.Seq[Response] {
	return func(yield func(Response) bool) {
		ctx, cancel := context.WithCancel(ctx)
		lim := cfg.limiter()
		results := make(chan Response)
		go c.dispatch(ctx, reqs, lim, results)
		// However the loop ends (done, break, or a panic in its body that
		// the caller recovers), the queries in flight are cancelled and
		// results is drained until dispatch closes it, so the dispatcher
		// and every worker have ended when SearchEach returns.
		defer func() {
			cancel()
			for range results {
			}
		}()
		for r := range results {
			if !yield(r) {
				return
			}
		}
	}
}

// dispatch starts the queries as the limiter allows, sends every Response to
// results, and closes it when all workers have ended.
func (c *Client) dispatch(ctx context.Context, reqs []*Request, lim *limiter, results chan<- Response) {
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		close(results)
	}()
	for i, req := range reqs {
		epoch, err := lim.acquire(ctx)
		if err != nil {
			for j := i; j < len(reqs); j++ {
				results <- Response{Index: j, Request: reqs[j], Err: err}
			}
			return
		}
		wg.Go(func() {
			res, err := c.Search(ctx, req)
			lim.release(epoch, overloaded(err))
			results <- Response{Index: i, Request: req, Result: res, Err: err}
		})
	}
}
