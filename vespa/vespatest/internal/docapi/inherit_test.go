package docapi

import (
	"io"

	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
	"github.com/govespa/govespa/vespa/vespatest/internal/store"
)

// A document type has the fields and structs of the types it inherits, at
// any depth (Vespa's DocumentType.inherit): a put, an update, a get and a
// selection on a song see base's fields as its own; a field no type in its
// line declares is still "not defined".
func TestInherit_backendFields(t *testing.T) {
	schemas := []schema.Schema{
		{Name: "base", Fields: []schema.Field{{Name: "user_id", Type: "string"}},
			Structs: map[string][]schema.Field{"who": {{Name: "name", Type: "string"}}}},
		{Name: "mid", DocumentInherits: []string{"base"}, Fields: []schema.Field{{Name: "created", Type: "long"}}},
		{Name: "song", DocumentInherits: []string{"mid"}, Fields: []schema.Field{
			{Name: "title", Type: "string"}, {Name: "by", Type: "who"}}},
	}
	app, err := schema.NewApplication(schemas, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var ptr atomic.Pointer[schema.Application]
	ptr.Store(app)
	b := &Backend{Store: store.New(), Application: &ptr, Faults: fault.NewSet(1), MaxRequestBytes: 1 << 20}
	call := func(method, path, body string) (int, string) {
		w := httptest.NewRecorder()
		b.ServeDocV1(w, httptest.NewRequest(method, path, strings.NewReader(body)))
		out, _ := io.ReadAll(w.Body)
		return w.Code, string(out)
	}
	doc := "/document/v1/ns/song/docid/1"
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", doc, `{"fields":{"title":"t","user_id":"u1","created":"5","by":{"name":"n"}}}`, "200"},
		{"PUT", doc, `{"fields":{"created":{"increment":2},"user_id":{"assign":"u2"}}}`, "200"},
		{"GET", doc, "", `200 "fields":{"title":"t","user_id":"u2","created":7,"by":{"name":"n"}}`},
		{"GET", "/document/v1/ns/song/docid?selection=song.user_id%3D%3D%22u2%22%20and%20song.created%3E6", "", `200 "id":"id:ns:song::1"`},
		{"POST", doc, `{"fields":{"by":{"age":1}}}`, "400 Field 'age' is not defined in struct type 'who'"},
		{"POST", doc, `{"fields":{"nope":1}}`, "400 Field 'nope' is not defined in document type 'song'"},
		{"POST", "/document/v1/ns/base/docid/1", `{"fields":{"title":"t"}}`, "400 Field 'title' is not defined in document type 'base'"},
	} {
		status, text, _ := strings.Cut(c.want, " ")
		code, body := call(c.method, c.path, c.body)
		if strconv.Itoa(code) != status || !strings.Contains(body, text) {
			t.Errorf("%s %s %s: %d %s, want %s", c.method, c.path, c.body, code, body, c.want)
		}
	}
}
