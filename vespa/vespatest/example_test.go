package vespatest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest"
)

// printAnswer sends a request with body to srv's path through srv.Client(),
// as ExampleNewServer's put does, and prints the answer's status and body.
func printAnswer(srv *vespatest.Server, method, path, body string) {
	req, err := http.NewRequestWithContext(context.Background(), method, srv.URL()+path, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(b))
}

// A server in lenient mode accepts any document type and field.
func ExampleNewServer() {
	srv := vespatest.NewServer()
	defer srv.Close()

	path := "/document/v1/mynamespace/music/docid/a-head-full-of-dreams"
	put, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL()+path,
		strings.NewReader(`{"fields":{"artist":"Coldplay","year":2015}}`))
	resp, err := srv.Client().Do(put)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()

	printAnswer(srv, http.MethodGet, path, "") // a GET the same way, printing the answer
	// Output:
	// 200 {"pathId":"/document/v1/mynamespace/music/docid/a-head-full-of-dreams","id":"id:mynamespace:music::a-head-full-of-dreams","fields":{"artist":"Coldplay","year":2015}}
}

// Faults stand in for an overloaded Vespa, so that retry logic can be tested.
func ExampleServer_ScriptFaults() {
	srv := vespatest.NewServer()
	defer srv.Close()
	srv.ScriptFaults(vespatest.OpPut, vespatest.FaultOverload())

	for range 2 {
		printAnswer(srv, http.MethodPost, "/document/v1/ns/music/docid/1", `{"fields":{}}`)
	}
	fmt.Println("injected 429s:", srv.FaultStats().ByStatus[http.StatusTooManyRequests])
	// Output:
	// 429 {"pathId":"/document/v1/ns/music/docid/1","message":"Rejecting execution due to overload: 256 requests already enqueued"}
	// 200 {"pathId":"/document/v1/ns/music/docid/1","id":"id:ns:music::1"}
	// injected 429s: 1
}

// Schemas make the server reject unknown document types and fields as Vespa does.
func ExampleWithSchema() {
	srv := vespatest.NewServer(vespatest.WithSchema(vespatest.Schema{
		Name:   "music",
		Fields: []vespatest.Field{{Name: "artist", Type: "string"}},
	}))
	defer srv.Close()

	printAnswer(srv, http.MethodPost, "/document/v1/ns/music/docid/1", `{"fields":{"album":"x"}}`)
	// Output:
	// 400 {"pathId":"/document/v1/ns/music/docid/1","message":"Field 'album' is not defined in document type 'music'"}
}
