package main

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/govespa/govespa/vespa/models"
	"github.com/govespa/govespa/vespa/retries"
)

// dimensions is the size of the music schema's embedding field,
// tensor<float>(x[384]).
const dimensions = 384

// hashingModel describes the toy embedder to the models package, which turns
// its vectors into document field values and query inputs.
var hashingModel = models.ModelConfig{Name: "hashing", Dimensions: dimensions}

// hashEmbed is a small deterministic embedder that needs no model: each word
// of text adds ±1 to four dimensions chosen by its FNV hash, and the sum is
// normalized to unit length. Texts that share words get close vectors, which
// is all a nearestNeighbor demonstration needs. It is safe for concurrent use.
func hashEmbed(_ context.Context, text string) ([]float32, error) {
	v := make([]float32, dimensions)
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := fnv.New64a()
		h.Write([]byte(word))
		sum := h.Sum64()
		for range 4 {
			sign := float32(1)
			if sum&1 == 1 {
				sign = -1
			}
			v[(sum>>1)%dimensions] += sign
			sum >>= 16
		}
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm > 0 {
		inv := float32(1 / math.Sqrt(norm))
		for i := range v {
			v[i] *= inv
		}
	}
	return v, nil
}

// newEmbedder returns hashEmbed behind models.Retrying, as a real provider
// (a flaky HTTP service) would be wrapped.
func newEmbedder() (models.Embedder, error) {
	return models.Retrying(models.EmbedFunc(hashEmbed), retries.Embedder)
}
