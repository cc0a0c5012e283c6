package vespatest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func do(t *testing.T, s *Server, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestSmoke(t *testing.T) {
	s := NewTestServer(t)
	st, b := do(t, s, "POST", "/document/v1/ns/music/docid/a", `{"fields":{"artist":"Coldplay","year":2015}}`)
	t.Log(st, b)
	st, b = do(t, s, "GET", "/document/v1/ns/music/docid/a", ``)
	t.Log(st, b)
	st, b = do(t, s, "PUT", "/document/v1/ns/music/docid/a", `{"fields":{"year":{"increment":1}}}`)
	t.Log(st, b)
	st, b = do(t, s, "GET", "/document/v1/ns/music/docid/a", ``)
	t.Log(st, b)
	st, b = do(t, s, "GET", "/document/v1/ns/music/docid?wantedDocumentCount=10&selection=music.year>2000", ``)
	t.Log(st, b)
	st, b = do(t, s, "GET", "/search/?yql=select%20*%20from%20music%20where%20true", ``)
	t.Log(st, b)
}
