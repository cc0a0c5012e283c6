package vespatest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestGet_withoutClusterUsesDefaultGet: in an application with two content
// clusters, a single-document GET without "cluster" is routed on Vespa's
// default-get route (DocumentV1ApiHandler.getDocument resolves the cluster
// only when one is given, parametersFromRequest), while a visit without one
// is refused by resolveCluster.
func TestGet_withoutClusterUsesDefaultGet(t *testing.T) {
	dir := testutil.AppDir(t, map[string]string{
		"services.xml": `<services version="1.0">
  <container id="default" version="1.0"><document-api/></container>
  <content id="music" version="1.0"><min-redundancy>1</min-redundancy>
    <documents><document type="music" mode="index"/></documents></content>
  <content id="books" version="1.0"><min-redundancy>1</min-redundancy>
    <documents><document type="book" mode="index"/></documents></content>
</services>`,
		"schemas/music.sd": testutil.MusicSD,
		"schemas/book.sd":  strings.ReplaceAll(testutil.MusicSD, "music", "book"),
	})
	s := vespatest.NewTestServer(t, vespatest.WithApplicationDir(dir))
	if err := s.PutDocument("id:ns:book::b1", json.RawMessage(`{"title":"Dune"}`)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/document/v1/ns/book/docid/b1", 200, `"title":"Dune"`},
		{"/document/v1/ns/book/docid/b1?cluster=books", 200, `"title":"Dune"`},
		{"/document/v1/ns/music/docid/none", 404, `"id":"id:ns:music::none"`},
		{"/document/v1/ns/book/docid/b1?cluster=nope", 400, "Your Vespa deployment has no content cluster 'nope', only 'music', 'books'"},
		{"/document/v1/ns/book/docid/", 400, "Please specify one of the content clusters in your Vespa deployment: 'music', 'books'"},
	} {
		status, body, _ := get(t, s, c.path)
		if status != c.status || !strings.Contains(string(body), c.body) {
			t.Errorf("GET %s: %d %s, want %d with %s", c.path, status, body, c.status, c.body)
		}
	}
}
