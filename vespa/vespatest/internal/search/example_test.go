package search_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/govespa/govespa/vespa/vespatest/internal/search"
)

// corpus is a fixed in-memory Corpus.
type corpus []search.Document

func (c corpus) Schemas() []search.Schema {
	return []search.Schema{{Name: "music", Fields: []search.Field{
		{Name: "title", Type: "string", Indexed: true},
		{Name: "year", Type: "int"},
	}}}
}

func (c corpus) Each(fn func(search.Document) bool) {
	for _, d := range c {
		if !fn(d) {
			return
		}
	}
}

func ExampleNewHandler() {
	h := search.NewHandler(corpus{
		{ID: "id:ns:music::a", Type: "music", Fields: json.RawMessage(`{"title":"A Head Full of Dreams","year":2015}`)},
		{ID: "id:ns:music::b", Type: "music", Fields: json.RawMessage(`{"title":"Parachutes","year":2000}`)},
	})
	q := url.Values{"yql": {`select * from music where title contains "dreams"`}}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/search/?"+q.Encode(), nil))
	body, _ := io.ReadAll(w.Body)
	fmt.Println(w.Code)
	fmt.Println(string(body))
	// Output:
	// 200
	// {"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":1},"coverage":{"coverage":100,"documents":2,"full":true,"nodes":1,"results":1,"resultsFull":1},"children":[{"id":"id:ns:music::a","relevance":0.5,"source":"music","fields":{"sddocname":"music","documentid":"id:ns:music::a","title":"A Head Full of Dreams","year":2015}}]}}
}

func ExampleNewHandler_error() {
	h := search.NewHandler(corpus{})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/search/?yql=selectz", nil))
	fmt.Println(w.Code, w.Body.String())
	// Output:
	// 400 {"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":0},"errors":[{"code":4,"summary":"Invalid query parameter","message":"Could not create query from YQL: query:L1:0 mismatched input 'selectz' expecting SELECT"}]}}
}
