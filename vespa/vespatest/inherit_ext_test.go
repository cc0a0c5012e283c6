package vespatest_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

// vespagen's test application: schema song inherits base (document song
// inherits base), whose document declares user_id and created (attributes)
// and whose schema declares rank profile plain. A song has base's fields to
// put, get, update, visit and search, and base's profile to rank with, as
// in Vespa (config-model ConvertParsedTypes, RankProfileRegistry).
// Before, the put was 400 "Field 'user_id' is not defined in document type
// 'song'".
func TestInherit_richApplication(t *testing.T) {
	s := vespatest.NewTestServer(t, vespatest.WithApplicationDir("../../cmd/vespagen/testdata/rich"))
	hc, doc := s.Client(), s.URL()+"/document/v1/ns/song/docid/s1"
	if st, body := do(t, hc, "POST", doc, `{"fields":{"title":"Blue","user_id":"u1","created":1700000000,"year":1999}}`); st != 200 {
		t.Fatalf("put of an inherited field: %d %s", st, body)
	}
	if st, body := do(t, hc, "PUT", doc, `{"fields":{"created":{"increment":5}}}`); st != 200 {
		t.Fatalf("update of an inherited field: %d %s", st, body)
	}
	st, body := do(t, hc, "GET", doc, "")
	if st != 200 || !strings.Contains(body, `"user_id":"u1"`) || !strings.Contains(body, `"created":1700000005`) {
		t.Errorf("get: %d %s", st, body)
	}
	st, body = do(t, hc, "GET", s.URL()+"/document/v1/ns/song/docid?selection="+url.QueryEscape(`song.user_id=="u1"`), "")
	if st != 200 || !strings.Contains(body, `"id":"id:ns:song::s1"`) {
		t.Errorf("visit selecting on an inherited field: %d %s", st, body)
	}
	if st, body := do(t, hc, "POST", doc, `{"fields":{"nope":1}}`); st != 400 || !strings.Contains(body, "Field 'nope' is not defined in document type 'song'") {
		t.Errorf("an undeclared field: %d %s", st, body)
	}
	search := func(yql string, params ...string) (int, string) {
		q := url.Values{"yql": {yql}}
		for i := 0; i+1 < len(params); i += 2 {
			q.Set(params[i], params[i+1])
		}
		return do(t, hc, "GET", s.URL()+"/search/?"+q.Encode(), "")
	}
	st, body = search(`select * from song where user_id contains "u1"`)
	if st != 200 || !strings.Contains(body, `"totalCount":1`) || !strings.Contains(body, `"user_id":"u1"`) {
		t.Errorf("search on an inherited attribute: %d %s", st, body)
	}
	if st, body = search(`select * from song where user_id contains "u2"`); st != 200 || !strings.Contains(body, `"totalCount":0`) {
		t.Errorf("search for another value: %d %s", st, body)
	}
	// plain is base's: attribute(created) * query(w), w defaulting to 0.5.
	st, body = search(`select * from song where true`, "ranking.profile", "plain")
	if st != 200 || !strings.Contains(body, `"relevance":8.500000025E8`) {
		t.Errorf("base's rank profile on a song: %d %s", st, body)
	}
	if st, body = search(`select * from song where true`, "ranking.profile", "nosuch"); st != 400 || !strings.Contains(body, "does not contain requested rank profile 'nosuch'") {
		t.Errorf("an unknown profile: %d %s", st, body)
	}
}
