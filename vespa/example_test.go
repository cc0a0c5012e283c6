package vespa_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// newExampleVespa starts the emulator (package vespatest) in lenient mode:
// with no schema, every document type and field is accepted and stored as
// given. Each example starts its own, so that each one runs alone; against a
// real Vespa, give NewClient its endpoint instead.
func newExampleVespa() *vespatest.Server {
	return vespatest.NewServer()
}

// newExampleClient starts an emulator as newExampleVespa does, holding docs
// (document ID → fields as JSON), and returns a client of it made as
// ExampleClient_Put makes one. The caller closes both.
func newExampleClient(docs map[string]string) (*vespa.Client, *vespatest.Server) {
	srv := newExampleVespa()
	for id, fields := range docs {
		if err := srv.PutDocument(id, json.RawMessage(fields)); err != nil {
			panic(err)
		}
	}
	c, err := vespa.NewClient(srv.URL())
	if err != nil {
		panic(err)
	}
	return c, srv
}

func ExampleClient_Put() {
	srv := newExampleVespa()
	defer srv.Close()

	c, err := vespa.NewClient(srv.URL())
	if err != nil {
		panic(err)
	}
	defer c.Close()

	id := vespa.MustParseDocumentID("id:mynamespace:music::a-head-full-of-dreams")
	res, err := c.Put(context.Background(), id, map[string]any{
		"artist": "Coldplay",
		"year":   2015,
	}, vespa.OperationOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.ServerID)
	// Output: 200 id:mynamespace:music::a-head-full-of-dreams
}

func ExampleGetInto() {
	c, srv := newExampleClient(nil)
	defer srv.Close()
	defer c.Close()
	ctx := context.Background()

	type Album struct {
		Artist string `json:"artist"`
		Year   int    `json:"year"`
	}
	id := vespa.MustParseDocumentID("id:mynamespace:music::viva-la-vida")
	if _, err := c.Put(ctx, id, Album{Artist: "Coldplay", Year: 2008}, vespa.OperationOptions{}); err != nil {
		panic(err)
	}
	album, _, err := vespa.GetInto[Album](ctx, c, id, vespa.OperationOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", album)
	// Output: {Artist:Coldplay Year:2008}
}

func ExampleClient_Get_notFound() {
	c, srv := newExampleClient(nil)
	defer srv.Close()
	defer c.Close()

	_, err := c.Get(context.Background(), vespa.MustParseDocumentID("id:mynamespace:music::missing"), vespa.OperationOptions{})
	fmt.Println(errors.Is(err, vespa.ErrNotFound))
	if ve := (*vespa.Error)(nil); errors.As(err, &ve) {
		fmt.Println(ve.StatusCode(), ve.Op, ve.ID)
	}
	// Output:
	// true
	// 404 get id:mynamespace:music::missing
}

// A status other than 2xx comes back as an *Error: errors.Is matches it
// against the sentinel of its status (ErrNotFound, ErrConditionNotMet,
// ErrTooManyRequests, ...), and errors.As reads its details. Both see
// through any wrapping the caller adds.
func ExampleError() {
	c, srv := newExampleClient(nil)
	defer srv.Close()
	defer c.Close()
	ctx := context.Background()

	id := vespa.MustParseDocumentID("id:mynamespace:music::yellow")
	if _, err := c.Put(ctx, id, map[string]any{"title": "Yellow", "year": 2000}, vespa.OperationOptions{}); err != nil {
		panic(err)
	}
	// A test-and-set condition that does not hold: 412, and nothing written.
	_, err := c.Put(ctx, id, map[string]any{"title": "Yellow", "year": 2001}, vespa.OperationOptions{
		Condition: "music.year == 1999",
	})
	err = fmt.Errorf("saving %s: %w", id, err) // wrapping keeps the error's identity
	fmt.Println(errors.Is(err, vespa.ErrConditionNotMet), errors.Is(err, vespa.ErrNotFound))
	if ve := (*vespa.Error)(nil); errors.As(err, &ve) {
		fmt.Println(ve.StatusCode(), ve.Op, ve.ID)
	}

	// A missing document is ErrNotFound.
	_, err = c.Get(ctx, vespa.MustParseDocumentID("id:mynamespace:music::missing"), vespa.OperationOptions{})
	fmt.Println(errors.Is(err, vespa.ErrNotFound))
	// Output:
	// true false
	// 412 put id:mynamespace:music::yellow
	// true
}

func ExampleClient_Update() {
	c, srv := newExampleClient(nil)
	defer srv.Close()
	defer c.Close()

	id := vespa.MustParseDocumentID("id:mynamespace:music::parachutes")
	ctx := context.Background()
	_, err := c.Update(ctx, id, vespa.NewUpdate().Assign("year", 2000), vespa.OperationOptions{
		Create: true, // create the document if it does not exist
	})
	if err != nil {
		panic(err)
	}
	res, _ := c.Get(ctx, id, vespa.OperationOptions{})
	fmt.Println(string(res.Fields))
	// Output: {"year":2000}
}

func ExampleNewUpdate() {
	u := vespa.NewUpdate().
		Assign("title", "Yellow").
		Increment("plays", 1).
		Add("tags", []string{"live"}).
		ModifyTensor("embedding", vespa.TensorModify{
			Operation: vespa.TensorAdd,
			Cells:     map[string]float64{"a": 0.5},
		})
	b, _ := json.Marshal(u)
	fmt.Println(string(b))
	// Output: {"fields":{"title":{"assign":"Yellow"},"plays":{"increment":1},"tags":{"add":["live"]},"embedding":{"modify":{"operation":"add","cells":{"a":0.5}}}}}
}

func ExampleParseDocumentID() {
	id, err := vespa.ParseDocumentID("id:mynamespace:music:g=coldplay:a/b+c")
	if err != nil {
		panic(err)
	}
	fmt.Println(id.Namespace, id.DocType, id.Group, id.UserSpecific)
	fmt.Println(id.Path())

	_, err = vespa.ParseDocumentID("id:mynamespace:music:tasty_chocolate_cake")
	fmt.Println(err)
	// Output:
	// mynamespace music coldplay a/b+c
	// /document/v1/mynamespace/music/group/coldplay/a%2Fb%2Bc
	// vespa: invalid document ID "id:mynamespace:music:tasty_chocolate_cake": key/value section missing (an ID with no n= or g= looks like id:ns:type::key)
}

func ExampleClient_Health() {
	c, srv := newExampleClient(nil)
	defer srv.Close()
	defer c.Close()

	fmt.Println(c.Health(context.Background()))
	// Output: <nil>
}

func ExampleWithToken() {
	// A token is refused over plain http unless the host is loopback.
	_, err := vespa.NewClient("http://vespa.example.com:8080", vespa.WithToken("my-secret-token"))
	fmt.Println(err)
	// Options never print their secrets.
	fmt.Println(vespa.WithToken("my-secret-token"))
	// Output:
	// vespa: WithToken: refusing to send a token over plain http to vespa.example.com:8080 (use https, or a loopback host)
	// WithToken([REDACTED])
}
