package feed_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

// newExampleFeeder starts an emulator and returns a feeder of a client of
// it, made as ExampleFeeder_Close makes them (the README shows that one in
// full), and a function that closes the client and the emulator. The caller
// closes the feeder.
func newExampleFeeder() (*feed.Feeder, *vespatest.Server, func()) {
	srv := vespatest.NewServer()
	client, err := vespa.NewClient(srv.URL())
	if err != nil {
		panic(err)
	}
	f, err := feed.New(client, feed.Config{})
	if err != nil {
		panic(err)
	}
	return f, srv, func() {
		client.Close()
		srv.Close()
	}
}

// A Feeder sends many operations at once and reports exactly one outcome for
// each; here the emulator answers the first put with 429 (overload), which
// the feeder retries under retries.Feed, and the update with 412.
func ExampleFeeder() {
	srv := vespatest.NewServer()
	defer srv.Close()
	srv.ScriptFaults(vespatest.OpPut, vespatest.FaultOverload())
	client, err := vespa.NewClient(srv.URL())
	if err != nil {
		panic(err)
	}
	defer client.Close()

	var mu sync.Mutex
	outcomes := map[string]int{}
	f, err := feed.New(client, feed.Config{
		// OnOutcome runs on the feeder's goroutines, concurrently.
		OnOutcome: func(_ context.Context, o feed.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			outcomes[o.IDString()] = o.Status
		},
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	yellow := vespa.MustParseDocumentID("id:mynamespace:music::yellow")
	if err := f.Put(ctx, yellow, []byte(`{"title": "Yellow", "year": 2000}`)); err != nil {
		panic(err)
	}
	// Operations on one document keep their order: this update follows the put.
	if err := f.Enqueue(ctx, feed.Operation{Kind: vespa.OpUpdate, ID: yellow,
		Fields: []byte(`{"year": {"increment": 1}}`), Condition: "music.year == 1999"}); err != nil {
		panic(err)
	}
	if err := f.Close(ctx); err != nil {
		panic(err)
	}
	s := f.Stats()
	fmt.Println("succeeded", s.Succeeded, "failed", s.Failed, "retried on 429:", s.Retries["429"])
	fmt.Println("last outcome of yellow:", outcomes["id:mynamespace:music::yellow"])
	// Output:
	// succeeded 1 failed 1 retried on 429: 1
	// last outcome of yellow: 412
}

// Feeding a JSONL feed file to an emulator, reporting the bad line.
func ExampleFeeder_FeedReader() {
	srv := vespatest.NewServer()
	defer srv.Close()
	client, err := vespa.NewClient(srv.URL(), vespa.WithHTTPVersion(vespa.HTTP2))
	if err != nil {
		panic(err)
	}
	defer client.Close()

	f, err := feed.New(client, feed.Config{
		Connections: 2, // two HTTP/2 connections
		// OnOutcome runs on feeder goroutines, concurrently; this one only
		// prints failures, of which there is one.
		OnOutcome: func(_ context.Context, o feed.Outcome) {
			if !o.OK() {
				fmt.Printf("line %d failed: %v\n", o.Operation.Line, o.Err)
			}
		},
	})
	if err != nil {
		panic(err)
	}
	file := `{"put": "id:mynamespace:music::a", "fields": {"title": "A"}}
{"put": "id:mynamespace:music::b", "fields": {"title": "B"}
{"update": "id:mynamespace:music::a", "fields": {"title": {"assign": "A2"}}}
{"remove": "id:mynamespace:music::c"}
`
	if err := f.FeedReader(context.Background(), "music.jsonl", strings.NewReader(file)); err != nil {
		panic(err)
	}
	if err := f.Close(context.Background()); err != nil {
		panic(err)
	}
	s := f.Stats()
	fmt.Printf("%d operations, %d succeeded, %d failed\n", s.Operations, s.Succeeded, s.Failed)
	doc, _ := srv.Document("id:mynamespace:music::a")
	fmt.Println(string(doc))
	// Output:
	// line 2 failed: feed: music.jsonl:line 2 (byte 61): operation not closed before the next one starts
	// 4 operations, 3 succeeded, 1 failed
	// {"title":"A2"}
}

// Enqueuing single operations and waiting for them with Close.
func ExampleFeeder_Close() {
	srv := vespatest.NewServer()
	defer srv.Close()
	client, err := vespa.NewClient(srv.URL())
	if err != nil {
		panic(err)
	}
	defer client.Close()
	f, err := feed.New(client, feed.Config{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for i := range 100 {
		id := vespa.MustParseDocumentID(fmt.Sprintf("id:mynamespace:music::%d", i))
		if err := f.Put(ctx, id, []byte(fmt.Sprintf(`{"year": %d}`, 1900+i))); err != nil {
			panic(err)
		}
	}
	if err := f.Close(ctx); err != nil { // waits for all 100
		panic(err)
	}
	fmt.Println(f.Stats().Succeeded, srv.DocumentCount())
	// Output: 100 100
}

// Reading a feed file without feeding it.
func ExampleReader() {
	r := feed.NewReader(strings.NewReader(`[
  {"put": "id:ns:music::1", "fields": {"n": 1}},
  {"update": "id:ns:music::1", "create": true, "fields": {"n": {"increment": 1}}},
  {"remove": "id:ns:music::2", "condition": "music.n > 0"}
]`), feed.ReaderConfig{Source: "ops.json"})
	for op, err := range r.All() {
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(op.Line, op.Kind, op.ID, string(op.Fields), op.Condition, op.Create)
	}
	// Output:
	// 2 put id:ns:music::1 {"n": 1}  false
	// 3 update id:ns:music::1 {"n": {"increment": 1}}  true
	// 4 remove id:ns:music::2  music.n > 0 false
}

// Each operation can carry the caller's data and its own completion: here a
// message offset that a consumer commits once its document is stored, and a
// typed put and a builder update.
func ExampleOperation_done() {
	f, srv, closeAll := newExampleFeeder()
	defer closeAll()
	ctx := context.Background()
	type song struct {
		Title string `json:"title"`
		Year  int    `json:"year"`
	}
	var mu sync.Mutex
	var committed []int64
	commit := func(_ context.Context, o feed.Outcome) {
		if o.OK() {
			mu.Lock()
			defer mu.Unlock()
			committed = append(committed, o.Operation.Meta.(int64))
		}
	}
	put, err := feed.NewPut(vespa.MustParseDocumentID("id:mynamespace:music::clocks"), song{"Clocks", 2002})
	if err != nil {
		panic(err)
	}
	put.Meta, put.Done = int64(41), commit // the message's offset
	if err := f.Enqueue(ctx, put); err != nil {
		panic(err)
	}
	if err := f.Flush(ctx); err != nil {
		panic(err)
	}
	upd, err := feed.NewUpdate(put.ID, vespa.NewUpdate().Increment("year", 1))
	if err != nil {
		panic(err)
	}
	upd.Meta, upd.Done = int64(42), commit
	if err := f.Enqueue(ctx, upd); err != nil {
		panic(err)
	}
	if err := f.Close(ctx); err != nil {
		panic(err)
	}
	doc, _ := srv.Document("id:mynamespace:music::clocks")
	fmt.Println("committed offsets:", committed)
	fmt.Println(string(doc))
	// Output:
	// committed offsets: [41 42]
	// {"title":"Clocks","year":2003}
}
