package query_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/query"
)

// benchBody is a typical answer: ten hits with a few fields and coverage.
var benchBody = func() string {
	var b strings.Builder
	b.WriteString(`{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":1234},` +
		`"coverage":{"coverage":100,"documents":5000,"full":true,"nodes":2,"results":2,"resultsFull":2},"children":[`)
	for i := range 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"id:ns:music::doc-%d","relevance":%g,"source":"music","fields":{"sddocname":"music",`+
			`"documentid":"id:ns:music::doc-%d","title":"A title for document %d","artist":"Some artist","year":%d}}`, i, 0.9-float64(i)/100, i, i, 2000+i)
	}
	b.WriteString(`]}}`)
	return b.String()
}()

const benchYQL = `select * from music where title contains "head"`

func benchServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, benchBody)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkSearch is one query through query.Client on the core client's
// transport: encode, send under retries.Query, read, decode hits.
func BenchmarkSearch(b *testing.B) {
	benchSearch(b, newClient(b, benchServer(b).URL))
}

// BenchmarkSearch_plainTransport is BenchmarkSearch on a plain
// http.Transport, as the baseline uses: the cost of this package alone.
func BenchmarkSearch_plainTransport(b *testing.B) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	benchSearch(b, newClient(b, benchServer(b).URL, query.WithHTTPClient(&http.Client{Transport: tr})))
}

func benchSearch(b *testing.B, qc *query.Client) {
	ctx := context.Background()
	req := &query.Request{YQL: benchYQL, Hits: 10}
	b.ReportAllocs()
	for b.Loop() {
		r, err := qc.Search(ctx, req)
		if err != nil || len(r.Hits) != 10 {
			b.Fatal(err)
		}
	}
}

// memTransport answers every request with benchBody without a network, so
// the in-memory benchmarks measure the client side only.
type memTransport struct{}

func (memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Request: r,
		Header:        http.Header{"Content-Type": {"application/json"}},
		ContentLength: int64(len(benchBody)),
		Body:          io.NopCloser(strings.NewReader(benchBody)),
	}, nil
}

// BenchmarkSearch_inMemory is BenchmarkSearch without a network: the
// client-side cost of one query.
func BenchmarkSearch_inMemory(b *testing.B) {
	benchSearch(b, newClient(b, "http://127.0.0.1:8080", query.WithHTTPClient(&http.Client{Transport: memTransport{}})))
}

// BenchmarkBaseline_inMemory is BenchmarkBaseline without a network.
func BenchmarkBaseline_inMemory(b *testing.B) {
	baseline(b, "http://127.0.0.1:8080", &http.Client{Transport: memTransport{}})
}

// BenchmarkBaseline is the minimal hand-written loop: json.Marshal a map,
// POST it with net/http, decode root.fields and the children with
// encoding/json.
func BenchmarkBaseline(b *testing.B) {
	srv := benchServer(b)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	baseline(b, srv.URL, &http.Client{Transport: tr})
}

func baseline(b *testing.B, endpoint string, hc *http.Client) {
	ctx := context.Background()
	type hit struct {
		ID        string          `json:"id"`
		Relevance float64         `json:"relevance"`
		Source    string          `json:"source"`
		Fields    json.RawMessage `json:"fields"`
	}
	var out struct {
		Root struct {
			Fields   struct{ TotalCount int64 } `json:"fields"`
			Children []hit                      `json:"children"`
		} `json:"root"`
	}
	b.ReportAllocs()
	for b.Loop() {
		body, _ := json.Marshal(map[string]any{"yql": benchYQL, "hits": 10})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/search/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out.Root.Children = nil
		err = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		if err != nil || len(out.Root.Children) != 10 {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuilder is the cost of rendering a typical statement.
func BenchmarkBuilder(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, err := query.Select("title", "artist").From("music").
			Where(query.And(query.Contains("title", "head full"), query.Range("year", 2000, 2020))).
			Limit(10).YQL()
		if err != nil {
			b.Fatal(err)
		}
	}
}
