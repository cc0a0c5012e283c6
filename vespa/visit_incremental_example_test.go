package vespa_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/govespa/govespa/vespa"
)

// An incremental export copies what changed in a time window, removals
// included, and can be interrupted and resumed: the window and the removes
// are part of the visit, so the resume token carries them. The next run's
// window starts 1 µs after this one's end (both ends are included).
func Example_incrementalExport() {
	c, srv := newExampleClient(fiveSongs()) // written before the window
	defer srv.Close()
	defer c.Close()
	ctx := context.Background()

	time.Sleep(time.Millisecond)
	from := time.Now() // the end of the last export, plus 1 µs
	time.Sleep(time.Millisecond)
	if _, err := c.Remove(ctx, vespa.MustParseDocumentID("id:mynamespace:music::1"), vespa.OperationOptions{}); err != nil {
		panic(err)
	}
	for _, id := range []string{"id:mynamespace:music::5", "id:mynamespace:music::6", "id:mynamespace:music::7"} {
		if _, err := c.Put(ctx, vespa.MustParseDocumentID(id), map[string]any{"title": "New"}, vespa.OperationOptions{}); err != nil {
			panic(err)
		}
	}
	time.Sleep(time.Millisecond)
	to := time.Now() // the start of the next export, minus 1 µs

	req := vespa.VisitRequest{
		Namespace:      "mynamespace",
		DocType:        "music",
		FromTimestamp:  from, // written at or after from ...
		ToTimestamp:    to,   // ... and at or before to
		IncludeRemoves: true, // removals come as Documents with Removed set
	}
	var lines []string // the export: one feed operation per change
	export := func(req vespa.VisitRequest, limit int) string {
		v, err := c.Visitor(req)
		if err != nil {
			panic(err)
		}
		for doc, err := range v.All(ctx) {
			if err != nil {
				panic(err)
			}
			b, err := doc.MarshalJSON() // {"put":...} or {"remove":...}
			if err != nil {
				panic(err)
			}
			lines = append(lines, string(b))
			if len(lines) == limit {
				break // interrupted: the token says where to go on
			}
		}
		return v.ResumeToken()
	}
	req.ResumeToken = export(req, 2) // the first run stops after two changes
	export(req, -1)                  // the second resumes and finishes

	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// {"put":"id:mynamespace:music::5","fields":{"title":"New"}}
	// {"put":"id:mynamespace:music::6","fields":{"title":"New"}}
	// {"put":"id:mynamespace:music::7","fields":{"title":"New"}}
	// {"remove":"id:mynamespace:music::1"}
}

// VisitInto decodes each document's fields into a struct, as GetInto does.
func ExampleVisitInto() {
	c, srv := newExampleClient(fiveSongs())
	defer srv.Close()
	defer c.Close()

	type song struct {
		Title string `json:"title"`
		Year  int    `json:"year"`
	}
	var got []string
	for doc, err := range vespa.VisitInto[song](context.Background(), c, vespa.VisitRequest{
		Namespace: "mynamespace",
		DocType:   "music",
		Selection: "music.year < 2004",
	}) {
		if err != nil {
			panic(err)
		}
		got = append(got, fmt.Sprintf("%d %s", doc.Fields.Year, doc.Fields.Title))
	}
	slices.Sort(got)
	fmt.Println(got)
	// Output: [2000 Yellow 2002 Clocks]
}
