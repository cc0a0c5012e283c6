package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/models"
)

// The words that titles and tags are drawn from. "love" and "night" are
// common on purpose, so that the queries have something to find.
var (
	titleWords = []string{
		"love", "love", "night", "night", "dream", "heart", "fire", "rain", "summer", "river",
		"midnight", "city", "light", "shadow", "ocean", "golden", "broken", "wild", "blue", "electric",
		"paper", "silver", "road", "home", "stars", "dance", "storm", "echo", "winter", "garden",
	}
	tagWords = []string{"rock", "pop", "jazz", "indie", "folk", "soul", "live", "acoustic"}
)

// Years of the corpus: firstYear..lastYear, uniformly.
const (
	firstYear = 1960
	lastYear  = 2024
)

// song is one generated document: its ID and the JSON of its fields.
type song struct {
	id     vespa.DocumentID
	title  string
	year   int
	fields json.RawMessage
}

// corpus generates n songs in namespace ns, the same ones on every run: a
// title of two to four words, a year, a popularity, one or two tags, and the
// title's embedding.
func corpus(ctx context.Context, ns string, n int, e models.Embedder) ([]song, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	songs := make([]song, n)
	for i := range songs {
		words := make([]string, 2+rng.IntN(3))
		for j := range words {
			words[j] = titleWords[rng.IntN(len(titleWords))]
		}
		title := strings.ToUpper(words[0][:1]) + strings.Join(words, " ")[1:]
		tags := []string{tagWords[rng.IntN(len(tagWords))]}
		if rng.IntN(2) == 0 {
			tags = append(tags, tagWords[rng.IntN(len(tagWords))])
		}
		year := firstYear + rng.IntN(lastYear-firstYear+1)
		fields := map[string]any{
			"title":      title,
			"year":       year,
			"popularity": rng.IntN(101),
			"tags":       tags,
		}
		if err := hashingModel.FillEmbedding(ctx, e, fields, "embedding", title); err != nil {
			return nil, err
		}
		b, err := json.Marshal(fields)
		if err != nil {
			return nil, err
		}
		id, err := vespa.NewDocumentID(ns, "music", fmt.Sprintf("song-%05d", i))
		if err != nil {
			return nil, err
		}
		songs[i] = song{id: id, title: title, year: year, fields: b}
	}
	return songs, nil
}
