package search

import (
	"context"
	"time"
)

type latencyKey struct{}

// WithLatency returns a context that makes the handler wait d before it
// executes the query — an injected slow backend. The query's timeout (its
// timeout parameter, the YQL timeout annotation, or Vespa's default of
// 500 ms) bounds the wait: a latency that reaches it is answered as Vespa
// answers a query whose time ran out, 504 with error code 12.
func WithLatency(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, latencyKey{}, d)
}

func latencyFrom(ctx context.Context) time.Duration {
	d, _ := ctx.Value(latencyKey{}).(time.Duration)
	return d
}

// wait sleeps the injected latency of req, bounded by its timeout and by ctx;
// it reports false when the query ran out of time (or its caller left).
func (req *request) wait(ctx context.Context) bool {
	if req.latency <= 0 {
		return true
	}
	d := min(req.latency, req.timeout)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	return req.latency < req.timeout
}

type softTimeoutKey struct{}

// WithSoftTimeout returns a context that makes the content node run out of
// time after matching the fraction covered of the corpus (an injected slow
// content node): the result is partial, with degraded coverage, unless the
// query turned soft timeout off (ranking.softtimeout.enable=false), which
// makes it Vespa's hard timeout, 504 with error code 12.
func WithSoftTimeout(ctx context.Context, covered float64) context.Context {
	return context.WithValue(ctx, softTimeoutKey{}, covered)
}

func softTimeoutFrom(ctx context.Context) (float64, bool) {
	f, ok := ctx.Value(softTimeoutKey{}).(float64)
	return f, ok
}
