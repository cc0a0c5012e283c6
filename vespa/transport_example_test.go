package vespa_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/query"
)

// requestCounter counts the requests that pass through the transports it
// wraps, by API: the place where OpenTelemetry's otelhttp.NewTransport, a
// metrics recorder or a request-ID header would go.
type requestCounter struct{ documents, searches atomic.Int64 }

func (rc *requestCounter) wrap(base http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if strings.HasPrefix(r.URL.Path, "/search/") {
			rc.searches.Add(1)
		} else {
			rc.documents.Add(1)
		}
		return base.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// One wrapper sees every request of the client: sync operations, each
// feeder connection and queries.
func ExampleWithTransportWrapper() {
	srv := newExampleVespa()
	defer srv.Close()
	var counter requestCounter
	c, err := vespa.NewClient(srv.URL(), vespa.WithTransportWrapper(counter.wrap))
	if err != nil {
		panic(err)
	}
	defer c.Close()
	ctx := context.Background()

	id := vespa.MustParseDocumentID("id:mynamespace:music::a")
	if _, err := c.Put(ctx, id, map[string]any{"title": "Yellow"}, vespa.OperationOptions{}); err != nil {
		panic(err)
	}
	f, err := feed.New(c, feed.Config{Connections: 2}) // two connections, both wrapped
	if err != nil {
		panic(err)
	}
	for _, key := range []string{"b", "c", "d"} {
		_ = f.Put(ctx, vespa.MustParseDocumentID("id:mynamespace:music::"+key), json.RawMessage(`{"title":"x"}`))
	}
	if err := f.Close(ctx); err != nil {
		panic(err)
	}
	q, _ := query.New(c)
	if _, err := q.Search(ctx, &query.Request{YQL: "select * from music where true"}); err != nil {
		panic(err)
	}
	fmt.Println("document requests:", counter.documents.Load(), "queries:", counter.searches.Load())
	// Output: document requests: 4 queries: 1
}
