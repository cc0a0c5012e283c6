package vespatest_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

// songSchema is the integration suite's music schema: a text field, two
// attributes and a 384-float embedding under the angular metric.
var songSchema = vespatest.Schema{Name: "music", RankProfiles: []vespatest.RankProfile{
	{Name: "closeness", FirstPhase: "closeness(field, embedding)"},
}, Fields: []vespatest.Field{
	{Name: "title", Type: "string", Indexed: true},
	{Name: "year", Type: "int"},
	{Name: "embedding", Type: "tensor<float>(x[384])", Indexed: true, DistanceMetric: "angular", Indexing: "attribute | index"},
}}

// embedding returns n random floats as a JSON array, as an embedder's output
// is usually fed.
func embedding(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(float32(r.Float64()*2-1)), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

func songFields(r *rand.Rand, i int) string {
	return fmt.Sprintf(`{"title":"song number %d","year":%d,"embedding":%s}`, i, 1950+i%70, embedding(r, 384))
}

// BenchmarkPutTensor384 measures the handler's cost of a put whose document
// holds a 384-float dense tensor, without the network.
func BenchmarkPutTensor384(b *testing.B) {
	s := vespatest.NewServer(vespatest.WithSchema(songSchema))
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 2))
	bodies := make([][]byte, 64)
	for i := range bodies {
		bodies[i] = []byte(`{"fields":` + songFields(r, i) + `}`)
	}
	benchPutHandler(b, s, bodies)
}

// BenchmarkSearchNearestNeighbor10k measures one nearestNeighbor query
// (targetHits 10, angular) over 10,000 documents with 384-float embeddings.
func BenchmarkSearchNearestNeighbor10k(b *testing.B) {
	s := vespatest.NewServer(vespatest.WithSchema(songSchema))
	defer s.Close()
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 10000 {
		if err := s.PutDocument("id:ns:music::"+strconv.Itoa(i), json.RawMessage(songFields(r, i))); err != nil {
			b.Fatal(err)
		}
	}
	q := url.Values{
		"yql":            {`select * from music where {targetHits:10}nearestNeighbor(embedding, q)`},
		"input.query(q)": {embedding(r, 384)},
		"ranking":        {"closeness"},
	}.Encode()
	h := s.Handler()
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/search/?"+q, nil))
		if w.Code != 200 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
