package models

import (
	"context"
	"errors"
	"fmt"

	"github.com/govespa/govespa/vespa/retries"
)

// retrying is the Embedder returned by Retrying.
type retrying struct {
	delegate Embedder
	policy   retries.Policy
}

// Retrying wraps delegate so that a failed Embed or EmbedAll is issued again
// under p, which is retries.Embedder (every error, 3 attempts,
// WaitJittered(200 ms, 5 s, 2.0, 0.5), then the last error as the delegate
// returned it) or a copy of it adapted with its With* methods:
//
//	models.Retrying(provider, retries.Embedder.WithMaxAttempts(5))
//
// EmbedAll retries the whole batch. A cancellation is never retried nor
// delayed, and p's predicate never sees it (package retries sees to it):
// when the caller's ctx ends the call returns at once, also in the middle
// of a wait, with an error matching context.Canceled or
// context.DeadlineExceeded; a delegate's error matching context.Canceled
// is returned at once too, even while ctx is alive.
//
// A nil delegate and a policy with an invalid value ([retries.Policy.Err])
// are errors. The zero Policy makes one call. Wrapping is opt-in: an
// unwrapped Embedder makes exactly one call.
func Retrying(delegate Embedder, p retries.Policy) (Embedder, error) {
	if delegate == nil {
		return nil, errors.New("models: Retrying: nil delegate")
	}
	if err := p.Err(); err != nil {
		return nil, fmt.Errorf("models: Retrying: %w", err)
	}
	return &retrying{delegate: delegate, policy: p}, nil
}

// Embed calls the delegate's Embed under the retry policy.
func (r *retrying) Embed(ctx context.Context, text string) ([]float32, error) {
	return retries.Run(ctx, r.policy, func(ctx context.Context) ([]float32, error) {
		return r.delegate.Embed(ctx, text)
	})
}

// EmbedAll calls the delegate's EmbedAll under the retry policy.
func (r *retrying) EmbedAll(ctx context.Context, texts []string) ([][]float32, error) {
	return retries.Run(ctx, r.policy, func(ctx context.Context) ([][]float32, error) {
		return r.delegate.EmbedAll(ctx, texts)
	})
}
