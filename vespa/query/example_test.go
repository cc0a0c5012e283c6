package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/vespatest"
)

// exampleServer starts an emulator holding two songs. Examples build their
// own so that each one runs alone.
func exampleServer() *vespatest.Server {
	return newExampleServer(vespatest.Schema{Name: "music", Fields: []vespatest.Field{
		{Name: "title", Type: "string", Indexed: true},
		{Name: "year", Type: "int"},
	}}, map[string]string{
		"id:ns:music::a": `{"title":"A Head Full of Dreams","year":2015}`,
		"id:ns:music::b": `{"title":"Hardwired","year":2016}`,
	})
}

// newExampleServer starts an emulator with one schema, holding docs
// (document ID → fields as JSON).
func newExampleServer(schema vespatest.Schema, docs map[string]string) *vespatest.Server {
	srv := vespatest.NewServer(vespatest.WithSchema(schema))
	for id, fields := range docs {
		if err := srv.PutDocument(id, json.RawMessage(fields)); err != nil {
			log.Fatal(err)
		}
	}
	return srv
}

// newExampleClient returns a query client of srv, made as
// ExampleClient_Search makes one, and the vespa.Client under it, which the
// caller closes.
func newExampleClient(srv *vespatest.Server) (*query.Client, *vespa.Client) {
	vc, err := vespa.NewClient(srv.URL())
	if err != nil {
		log.Fatal(err)
	}
	qc, err := query.New(vc)
	if err != nil {
		log.Fatal(err)
	}
	return qc, vc
}

func ExampleSelect() {
	userText := `dreams" or true or "x` // hostile input stays one literal
	yql, err := query.Select("title").
		From("music").
		Where(query.And(query.Contains("title", userText), query.GreaterOrEqual("year", 2000))).
		OrderBy(query.Desc("year")).
		Limit(10).
		YQL()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(yql)
	// Output: select title from music where title contains "dreams\" or true or \"x" and year >= 2000 order by year desc limit 10
}

func ExampleNearestNeighbor() {
	yql, _ := query.Select().From("doc").
		Where(query.NearestNeighbor("embedding", "q", 100).With("approximate", false)).
		YQL()
	fmt.Println(yql)
	// Output: select * from doc where ({targetHits: 100, approximate: false}nearestNeighbor(embedding, q))
}

func ExampleBuilder_Grouping() {
	yql, _ := query.Select().From("purchase").Limit(0).
		Grouping("all(group(customer) each(output(sum(price))))").
		YQL()
	fmt.Println(yql)
	// Output: select * from purchase where true limit 0 | all(group(customer) each(output(sum(price))))
}

func ExampleClient_Search() {
	srv := exampleServer()
	defer srv.Close()
	vc, err := vespa.NewClient(srv.URL())
	if err != nil {
		log.Fatal(err)
	}
	defer vc.Close()
	qc, err := query.New(vc)
	if err != nil {
		log.Fatal(err)
	}

	yql, _ := query.Select("title", "year").From("music").Where(query.Contains("title", "dreams")).YQL()
	res, err := qc.Search(context.Background(), &query.Request{
		YQL:  yql,
		Hits: 5, // at most five hits
	})
	if err != nil {
		log.Fatal(err)
	}
	type song struct {
		Title string `json:"title"`
		Year  int    `json:"year"`
	}
	songs, err := query.DecodeHits[song](res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.TotalCount, songs)
	// Output: 1 [{A Head Full of Dreams 2015}]
}

func ExampleClient_Search_errors() {
	srv := exampleServer()
	defer srv.Close()
	qc, vc := newExampleClient(srv)
	defer vc.Close()

	_, err := qc.Search(context.Background(), &query.Request{YQL: "select * from music where"})
	code, _ := query.CodeOf(err)
	fmt.Println(errors.Is(err, vespa.ErrBadRequest), code)
	// errors.As reads the status and Vespa's error entries.
	if qe := (*query.Error)(nil); errors.As(err, &qe) {
		fmt.Println(qe.StatusCode(), len(qe.Errors), qe.Has(query.CodeInvalidQueryParameter))
	}
	// Output:
	// true invalid query parameter
	// 400 1 true
}

func ExampleClient_SearchBatch() {
	srv := exampleServer()
	defer srv.Close()
	qc, vc := newExampleClient(srv)
	defer vc.Close()

	var reqs []*query.Request
	for _, word := range []string{"dreams", "hardwired", "nothing"} {
		yql, _ := query.Select().From("music").Where(query.Contains("title", word)).YQL()
		reqs = append(reqs, &query.Request{YQL: yql})
	}
	for _, r := range qc.SearchBatch(context.Background(), reqs, query.BatchConfig{
		MaxConcurrency: 4, // never more than four queries at once
	}) {
		fmt.Println(r.Index, r.Err, len(r.Result.Hits))
	}
	// Output:
	// 0 <nil> 1
	// 1 <nil> 1
	// 2 <nil> 0
}
