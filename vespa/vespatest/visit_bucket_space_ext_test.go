package vespatest_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestVisit_rootVisitsOneBucketSpace checks that a visit at the root covers one
// bucket space, as Vespa's does: documents of types declared global="true" in
// services.xml are in the global space, the others in the default space.
// Vespa's CLI visits both spaces in turn, so a server that ignored
// bucketSpace would show it every document twice.
func TestVisit_rootVisitsOneBucketSpace(t *testing.T) {
	dir := testutil.AppDir(t, testutil.BucketSpacesApp())
	s := vespatest.NewTestServer(t, vespatest.WithApplicationDir(dir))
	for _, d := range []struct{ id, fields string }{
		{"id:ns:music::m1", `{"title":"a"}`},
		{"id:ns:music::m2", `{"title":"b"}`},
		{"id:ns:artist::a1", `{"name":"c"}`},
	} {
		if err := s.PutDocument(d.id, json.RawMessage(d.fields)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"id:ns:music::m1", "id:ns:music::m2"}},
		{"&bucketSpace=default", []string{"id:ns:music::m1", "id:ns:music::m2"}},
		{"&bucketSpace=global", []string{"id:ns:artist::a1"}},
	} {
		got := visitIDs(t, s, "/document/v1/?cluster=music"+tc.query, 100) // three documents need a few pages
		if slices.Sort(got); !slices.Equal(got, tc.want) {
			t.Errorf("visit %q = %v, want %v", tc.query, got, tc.want)
		}
	}
	// A typed path visits its type's own space, whatever the root default.
	status, body, _ := get(t, s, "/document/v1/ns/artist/docid")
	if status != http.StatusOK || !json.Valid(body) || !containsID(body, "id:ns:artist::a1") {
		t.Fatalf("typed visit of the global type: %d %s", status, body)
	}
}

func containsID(body []byte, id string) bool {
	var page struct {
		Documents []struct {
			ID string `json:"id"`
		} `json:"documents"`
	}
	if json.Unmarshal(body, &page) != nil {
		return false
	}
	for _, d := range page.Documents {
		if d.ID == id {
			return true
		}
	}
	return false
}
