package query_test

import (
	"context"
	"fmt"
	"log"

	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/query/grouping"
	"github.com/govespa/govespa/vespa/vespatest"
)

// songServer starts an emulator holding six songs by three artists, with a
// genre and a price attribute to group on.
func songServer() *vespatest.Server {
	return newExampleServer(vespatest.Schema{Name: "song", Fields: []vespatest.Field{
		{Name: "title", Type: "string", Indexed: true},
		{Name: "artist", Type: "string"},
		{Name: "genre", Type: "string"},
		{Name: "price", Type: "int"},
	}}, map[string]string{
		"id:ns:song::1": `{"title":"Love love love","artist":"Ana","genre":"pop","price":12}`,
		"id:ns:song::2": `{"title":"Love song","artist":"Ana","genre":"pop","price":8}`,
		"id:ns:song::3": `{"title":"Love is blue","artist":"Ana","genre":"jazz","price":25}`,
		"id:ns:song::4": `{"title":"Love love","artist":"Bo","genre":"pop","price":15}`,
		"id:ns:song::5": `{"title":"Love","artist":"Bo","genre":"rock","price":40}`,
		"id:ns:song::6": `{"title":"No love lost","artist":"Cy","genre":"rock","price":5}`,
	})
}

func ExampleBuilder_GroupingOf() {
	yql, err := query.Select().From("purchase").Where(query.True()).Limit(0).
		GroupingOf(grouping.All(
			grouping.Group(grouping.Attr("customer")),
			grouping.Each(grouping.Output(grouping.Sum(grouping.Attr("price")))),
		)).
		YQL()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(yql)
	// Output: select * from purchase where true limit 0 | all(group(customer) each(output(sum(price))))
}

// Facets: one grouping per facet, each counting the matches per value, and
// price ranges as buckets; the hits themselves are not needed (limit 0).
func Example_facets() {
	srv := songServer()
	defer srv.Close()
	qc, vc := newExampleClient(srv)
	defer vc.Close()

	facet := func(attr string) grouping.Op {
		return grouping.All(grouping.Group(grouping.Attr(attr)), grouping.Order(grouping.Desc(grouping.Count())),
			grouping.Each(grouping.Output(grouping.Count())))
	}
	prices := grouping.All(
		grouping.Group(grouping.Predefined(grouping.Attr("price"), grouping.Bucket(0, 10), grouping.Bucket(10, 20), grouping.Bucket(20, 50))),
		grouping.Order(grouping.Asc(grouping.MinOf(grouping.Attr("price")))), // cheapest first
		grouping.Each(grouping.Output(grouping.Count())).As("price"),
	)
	yql, err := query.Select().From("song").Where(query.Contains("title", "love")).Limit(0).
		GroupingOf(facet("genre")).GroupingOf(prices).YQL()
	if err != nil {
		log.Fatal(err)
	}
	res, err := qc.Search(context.Background(), &query.Request{YQL: yql})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("matches:", res.TotalCount)
	for _, g := range res.Groups[0].List("genre").Children {
		n, _ := g.Aggregate("count()")
		fmt.Println("genre", g.Value, n)
	}
	for _, g := range res.Groups[1].List("price").Children {
		n, _ := g.Aggregate("count()")
		fmt.Printf("price [%s, %s): %v\n", g.Limits.From, g.Limits.To, n)
	}
	// Output:
	// matches: 6
	// genre pop 3
	// genre rock 2
	// genre jazz 1
	// price [0, 10): 2
	// price [10, 20): 2
	// price [20, 50): 2
}

// Top-N per group: the two best hits of each of the two artists with the
// most matches, decoded with their relevance.
func Example_topNPerGroup() {
	srv := songServer()
	defer srv.Close()
	qc, vc := newExampleClient(srv)
	defer vc.Close()

	yql, _ := query.Select().From("song").Where(query.Contains("title", "love")).Limit(0).
		GroupingOf(grouping.All(
			grouping.Group(grouping.Attr("artist")),
			grouping.Max(2),                                 // the two artists
			grouping.Order(grouping.Desc(grouping.Count())), // with the most matches
			grouping.Each(
				grouping.Output(grouping.Count()),
				grouping.Max(2), // their two best hits
				grouping.Each(grouping.Output(grouping.Summary())).As("best"),
			),
		)).YQL()
	res, err := qc.Search(context.Background(), &query.Request{YQL: yql})
	if err != nil {
		log.Fatal(err)
	}
	type song struct {
		Title string `json:"title"`
	}
	for _, g := range res.Groups[0].List("artist").Children {
		n, _ := g.Aggregate("count()")
		hits, err := query.GroupHits[song](g.List("best"))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(g.Value, n)
		for _, h := range hits {
			fmt.Printf("  %s %.2f %s\n", h.ID, h.Relevance, h.Fields.Title)
		}
	}
	// Output:
	// Ana 3
	//   id:ns:song::1 0.75 Love love love
	//   id:ns:song::2 0.50 Love song
	// Bo 2
	//   id:ns:song::4 0.67 Love love
	//   id:ns:song::5 0.50 Love
}

func ExampleHits() {
	srv := songServer()
	defer srv.Close()
	qc, vc := newExampleClient(srv)
	defer vc.Close()

	yql, _ := query.Select("title").From("song").Where(query.Contains("title", "love")).Limit(2).YQL()
	res, err := qc.Search(context.Background(), &query.Request{YQL: yql})
	if err != nil {
		log.Fatal(err)
	}
	hits, err := query.Hits[struct {
		Title string `json:"title"`
	}](res)
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("%s %s %.2f %s\n", h.ID, h.Source, h.Relevance, h.Fields.Title)
	}
	// Output:
	// id:ns:song::1 content 0.75 Love love love
	// id:ns:song::4 content 0.67 Love love
}
