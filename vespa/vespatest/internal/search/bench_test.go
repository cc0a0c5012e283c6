package search

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

func benchCorpus(n int) *memCorpus {
	c := &memCorpus{schemas: []Schema{musicSchema}}
	for i := range n {
		c.docs = append(c.docs, Document{ID: fmt.Sprintf("id:ns:music::%d", i), Type: "music",
			Fields: json.RawMessage(fmt.Sprintf(`{"title":"song number %d of the dreams album","year":%d,"emb":[%d,%d]}`, i, 1950+i%70, i%7, i%11))})
	}
	return c
}

// BenchmarkHandler measures one query over a 10,000-document corpus (a full scan, as every
// emulator query is).
func BenchmarkHandler(b *testing.B) {
	h := NewHandler(benchCorpus(10000))
	for _, bc := range []struct{ name, q string }{
		{"contains", url.Values{"yql": {`select * from music where title contains "dreams" and year > 2000`}}.Encode()},
		{"nearestNeighbor", url.Values{"yql": {`select * from music where {targetHits:10}nearestNeighbor(emb, q)`}, "input.query(q)": {"[1,2]"}}.Encode()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/search/?"+bc.q, nil))
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body)
				}
			}
		})
	}
}
