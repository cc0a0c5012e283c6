package vespa_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/govespa/govespa/vespa"
)

// newExampleVespa starts a tiny in-memory stand-in for a Vespa container:
// puts, gets, removes and field assigns on /document/v1, and a health page.
// The examples use it instead of the emulator (package vespatest) so that
// they depend on nothing but this package.
func newExampleVespa() *httptest.Server {
	var mu sync.Mutex
	docs := map[string]json.RawMessage{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if r.URL.Path == "/state/v1/health" {
			fmt.Fprint(w, `{"status":{"code":"up"}}`)
			return
		}
		// /document/v1/<ns>/<type>/docid/<id>
		parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/document/v1/"), "/", 4)
		if len(parts) != 4 || parts[2] != "docid" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"pathId":%q,"message":"unsupported path"}`, r.URL.EscapedPath())
			return
		}
		id := "id:" + parts[0] + ":" + parts[1] + "::" + parts[3]
		var body struct{ Fields map[string]json.RawMessage }
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		defer mu.Unlock()
		switch r.Method {
		case http.MethodPost:
			docs[id], _ = json.Marshal(body.Fields)
		case http.MethodPut:
			var fields map[string]any
			_ = json.Unmarshal(docs[id], &fields)
			if fields == nil {
				fields = map[string]any{}
			}
			for k, v := range body.Fields {
				var op struct{ Assign any }
				_ = json.Unmarshal(v, &op)
				fields[k] = op.Assign
			}
			docs[id], _ = json.Marshal(fields)
		case http.MethodDelete:
			delete(docs, id)
		case http.MethodGet:
			d, ok := docs[id]
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprintf(w, `{"pathId":%q,"id":%q}`, r.URL.EscapedPath(), id)
				return
			}
			fmt.Fprintf(w, `{"pathId":%q,"id":%q,"fields":%s}`, r.URL.EscapedPath(), id, d)
			return
		}
		fmt.Fprintf(w, `{"pathId":%q,"id":%q}`, r.URL.EscapedPath(), id)
	}))
}

func ExampleClient_Put() {
	srv := newExampleVespa()
	defer srv.Close()

	c, err := vespa.NewClient(srv.URL)
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
	srv := newExampleVespa()
	defer srv.Close()
	c, _ := vespa.NewClient(srv.URL)
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
	srv := newExampleVespa()
	defer srv.Close()
	c, _ := vespa.NewClient(srv.URL)
	defer c.Close()

	_, err := c.Get(context.Background(), vespa.MustParseDocumentID("id:mynamespace:music::missing"), vespa.OperationOptions{})
	fmt.Println(errors.Is(err, vespa.ErrNotFound))
	var ve *vespa.Error
	if errors.As(err, &ve) {
		fmt.Println(ve.StatusCode(), ve.Op, ve.ID)
	}
	// Output:
	// true
	// 404 get id:mynamespace:music::missing
}

func ExampleClient_Update() {
	srv := newExampleVespa()
	defer srv.Close()
	c, _ := vespa.NewClient(srv.URL)
	defer c.Close()
	ctx := context.Background()

	id := vespa.MustParseDocumentID("id:mynamespace:music::parachutes")
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
	srv := newExampleVespa()
	defer srv.Close()
	c, _ := vespa.NewClient(srv.URL)
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
