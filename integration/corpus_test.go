package integration

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa"
)

// vectorDims is the size of the embedding field of testdata/app's music
// schema: tensor<float>(x[384]).
const vectorDims = 384

// titleWords are the words of the titles: plain lowercase words that Vespa's
// tokenizer keeps whole and its stemmer leaves alone, so that a query for one
// matches exactly the titles that hold it.
var titleWords = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}

// tagWords are the values of the tags field.
var tagWords = []string{"rock", "jazz", "folk"}

// corpusYears is the number of distinct years of the corpus's songs.
const corpusYears = 50

// song is a music document, as testdata/app's schema declares it.
type song struct {
	Title      string    `json:"title"`
	Year       int       `json:"year"`
	Popularity int       `json:"popularity"`
	Tags       []string  `json:"tags"`
	Embedding  embedding `json:"embedding"`
}

// embedding is a dense tensor in Vespa's JSON input form {"values": [...]}.
type embedding struct {
	Values []float32 `json:"values"`
}

// corpus is the deterministic set of songs one run of the suite feeds:
// document i is id:<ns>:music::song-<i>, and its fields depend on i alone,
// except that every title ends with the run's token, so that queries on a
// shared Vespa see only this run's documents.
type corpus struct {
	ns      string      // the namespace of this run's documents
	token   string      // a word of every title, unique to the run
	n       int         // the number of songs
	vectors [][]float32 // vector(i) for every song, computed once
}

// newCorpus returns a corpus of n songs with a namespace and a title token
// unique to this run.
func newCorpus(n int) corpus {
	tok := runToken(uint64(time.Now().UnixNano()))
	c := corpus{ns: "it" + tok, token: tok, n: n, vectors: make([][]float32, n)}
	for i := range n {
		c.vectors[i] = vector(i)
	}
	return c
}

// runToken spells x as a word of consonants that no stemmer changes.
func runToken(x uint64) string {
	const letters = "bcfghjkmnpqrtvwxz"
	var b strings.Builder
	b.WriteString("gv")
	for range 10 {
		b.WriteByte(letters[x%uint64(len(letters))])
		x /= uint64(len(letters))
	}
	return b.String()
}

// id returns the ID of song i.
func (c corpus) id(i int) vespa.DocumentID {
	return vespa.DocumentID{Namespace: c.ns, DocType: "music", UserSpecific: fmt.Sprintf("song-%d", i)}
}

// word returns the title word of song i.
func (c corpus) word(i int) string { return titleWords[i%len(titleWords)] }

// song returns the fields of song i (also for i >= c.n, as the feed-file
// test uses).
func (c corpus) song(i int) song {
	v := vector
	if i < len(c.vectors) {
		v = func(i int) []float32 { return c.vectors[i] }
	}
	return song{
		Title:      c.word(i) + " " + c.token,
		Year:       1970 + i%corpusYears,
		Popularity: i % 100,
		Tags:       []string{tagWords[i%len(tagWords)]},
		Embedding:  embedding{Values: v(i)},
	}
}

// fields returns the JSON object of song i's fields.
func (c corpus) fields(i int) json.RawMessage {
	b, err := json.Marshal(c.song(i))
	if err != nil {
		panic(err) // a song always encodes
	}
	return b
}

// count returns how many songs satisfy keep.
func (c corpus) count(keep func(i int) bool) int {
	n := 0
	for i := range c.n {
		if keep(i) {
			n++
		}
	}
	return n
}

// vector returns the embedding of song i: vectorDims values in [-1, 1],
// drawn from a generator seeded by i and rounded to 4 decimals so that they
// survive Vespa's float32 storage and JSON rendering unchanged.
func vector(i int) []float32 {
	r := rand.New(rand.NewPCG(uint64(i), 0x9e3779b97f4a7c15))
	v := make([]float32, vectorDims)
	for d := range v {
		v[d] = float32(math.Round((r.Float64()*2-1)*1e4) / 1e4)
	}
	return v
}

// angularDistance is Vespa's angular distance: the angle between a and b.
func angularDistance(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	cos := dot / math.Sqrt(na*nb)
	return math.Acos(max(-1, min(1, cos)))
}

// nearest returns the indices of the k songs whose embeddings are closest
// to q by angular distance, closest first.
func (c corpus) nearest(q []float32, k int) []int {
	type scored struct {
		i int
		d float64
	}
	all := make([]scored, c.n)
	for i := range c.n {
		all[i] = scored{i, angularDistance(q, c.vectors[i])}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.d != b.d {
			if a.d < b.d {
				return -1
			}
			return 1
		}
		return a.i - b.i
	})
	out := make([]int, 0, k)
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.i)
	}
	return out
}
