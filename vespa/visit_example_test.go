package vespa_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/govespa/govespa/vespa"
)

// fiveSongs are the documents of the visiting examples, which need a
// document store with a few documents to show slices and continuations.
func fiveSongs() map[string]string {
	docs := map[string]string{}
	for i, title := range []string{"Yellow", "Clocks", "Fix You", "Viva la Vida", "Paradise"} {
		docs[fmt.Sprintf("id:mynamespace:music::%d", i)] = fmt.Sprintf(`{"title":%q,"year":%d}`, title, 2000+2*i)
	}
	return docs
}

func ExampleClient_Visit() {
	c, srv := newExampleClient(fiveSongs())
	defer srv.Close()
	defer c.Close()

	var titles []string
	for doc, err := range c.Visit(context.Background(), vespa.VisitRequest{
		Namespace: "mynamespace",
		DocType:   "music",
		Selection: "music.year >= 2004", // Vespa's document selection language
		Slices:    2,                    // two continuation chains, fetched in parallel
	}) {
		if err != nil {
			panic(err)
		}
		var f struct{ Title string }
		if err := json.Unmarshal(doc.Fields, &f); err != nil {
			panic(err)
		}
		titles = append(titles, f.Title)
	}
	slices.Sort(titles) // documents come in no defined order
	fmt.Println(titles)
	// Output: [Fix You Paradise Viva la Vida]
}

// A Visitor can be stopped at any point and resumed later from its token.
func ExampleVisitor_ResumeToken() {
	c, srv := newExampleClient(fiveSongs())
	defer srv.Close()
	defer c.Close()
	ctx := context.Background()
	req := vespa.VisitRequest{Namespace: "mynamespace", DocType: "music"}

	v, err := c.Visitor(req)
	if err != nil {
		panic(err)
	}
	first := 0
	for _, err := range v.All(ctx) {
		if err != nil {
			panic(err)
		}
		if first++; first == 2 {
			break // interrupted: save the token, stop the process, ...
		}
	}

	req.ResumeToken = v.ResumeToken() // ... and go on later
	rest := 0
	for _, err := range c.Visit(ctx, req) {
		if err != nil {
			panic(err)
		}
		rest++
	}
	fmt.Println(first, "+", rest)
	// Output: 2 + 3
}

func ExampleClient_RemoveWhere() {
	c, srv := newExampleClient(fiveSongs())
	defer srv.Close()
	defer c.Close()

	n, err := c.RemoveWhere(context.Background(), vespa.SelectionRequest{
		Namespace: "mynamespace",
		DocType:   "music",
		Cluster:   "content", // required
		Selection: "music.year < 2004",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(n, "removed,", srv.DocumentCount(), "left")
	// Output: 2 removed, 3 left
}
