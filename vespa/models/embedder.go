package models

import (
	"context"
	"fmt"
)

// Embedder turns text into embedding vectors on the client side, for query
// vectors and for documents fed with their embeddings precomputed.
// Implementations must be safe for concurrent use.
type Embedder interface {
	// Embed returns the embedding of one text.
	Embed(ctx context.Context, text string) ([]float32, error)
	// EmbedAll returns the embeddings of texts, in order, one per text.
	EmbedAll(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedFunc adapts a function that embeds one text into an [Embedder]. Its
// EmbedAll calls the function once per text, in order, and stops at the first
// error. A provider with a batch endpoint implements Embedder itself, or uses
// [EmbedAllFunc].
type EmbedFunc func(ctx context.Context, text string) ([]float32, error)

// Embed calls f.
func (f EmbedFunc) Embed(ctx context.Context, text string) ([]float32, error) {
	return f(ctx, text)
}

// EmbedAll calls f for each text in turn. An error names the index of the
// text that failed and wraps f's error.
func (f EmbedFunc) EmbedAll(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, err := f(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("models: embedding text %d of %d: %w", i, len(texts), err)
		}
		out[i] = v
	}
	return out, nil
}

// EmbedAllFunc adapts a batch function into an [Embedder]. Its Embed calls the
// function with one text. The function must return one vector per text; a
// different count is an error.
type EmbedAllFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Embed calls f with the single text.
func (f EmbedAllFunc) Embed(ctx context.Context, text string) ([]float32, error) {
	vs, err := f.EmbedAll(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// EmbedAll calls f and checks that it returned one vector per text.
func (f EmbedAllFunc) EmbedAll(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := f(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("models: embedder returned %d vectors for %d texts", len(vs), len(texts))
	}
	return vs, nil
}
