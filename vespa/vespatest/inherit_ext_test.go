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

// A package whose inheritance Vespa's config model refuses does not deploy:
// 400 INVALID_APPLICATION_PACKAGE with the model's words, wrapped by
// ModelsBuilder as "Invalid application" (InheritanceResolver,
// DocumentType.verifyTypeConsistency, Schema.validate at 1f79d33dd014);
// the active application stays. Before, such a package activated.
func TestInherit_deployRefusesMistakes(t *testing.T) {
	const services = `<services version="1.0"><container id="default" version="1.0"><search/><document-api/></container>` +
		`<content id="c" version="1.0"><min-redundancy>1</min-redundancy><documents>` +
		`<document type="base" mode="index"/><document type="song" mode="index"/></documents></content></services>`
	const base = "schema base {\n document base {\n  field user_id type string { indexing: summary | attribute }\n }\n}\n"
	s := vespatest.NewTestServer(t)
	for _, c := range []struct{ name, song, want string }{
		{"unknown parent schema", "schema song inherits nosuch {\n document song inherits nosuch {\n }\n}\n",
			"schema 'song' inherits 'nosuch', but this schema does not exist"},
		{"unknown parent document", "schema song {\n document song inherits nosuch {\n }\n}\n",
			"document song inherits from unavailable document nosuch"},
		{"field of another type", "schema song inherits base {\n document song inherits base {\n  field user_id type int { indexing: attribute }\n }\n}\n",
			`Inheritance type mismatch: field \"user_id\" in datatype \"song\" must have same datatype as in parent document type \"base\"`},
		{"schema without its document", "schema song inherits base {\n document song {\n }\n}\n",
			"schema 'song' inherits 'base', but its document type does not inherit the parent's document type"},
	} {
		st, body := postDeploy(t, s, zipOf(t, map[string]string{"services.xml": services, "schemas/base.sd": base, "schemas/song.sd": c.song}))
		if want := `{"error-code":"INVALID_APPLICATION_PACKAGE","message":"Invalid application: ` + c.want + `"}`; st != 400 || body != want {
			t.Errorf("%s: %d %s, want 400 %s", c.name, st, body, want)
		}
	}
	if st, _ := do(t, s.Client(), "POST", s.URL()+"/document/v1/ns/song/docid/1", `{"fields":{"x":1}}`); st != 200 {
		t.Errorf("a refused deploy replaced the lenient application: put %d", st)
	}
	good := "schema song inherits base {\n document song inherits base {\n  field user_id type string { indexing: summary | index }\n }\n}\n"
	if st, body := postDeploy(t, s, zipOf(t, map[string]string{"services.xml": services, "schemas/base.sd": base, "schemas/song.sd": good})); st != 200 {
		t.Fatalf("a field declared again with its parent's type: %d %s", st, body)
	}
	if st, body := do(t, s.Client(), "POST", s.URL()+"/document/v1/ns/song/docid/1", `{"fields":{"x":1}}`); st != 400 || !strings.Contains(body, "Field 'x' is not defined in document type 'song'") {
		t.Errorf("after deploy: %d %s", st, body)
	}
}

// Schemas declared in Go inherit as parsed ones do, and a mistake is
// Start's error.
func TestInherit_goSchemas(t *testing.T) {
	base := vespatest.Schema{Name: "base", Fields: []vespatest.Field{{Name: "user_id", Type: "string"}},
		RankProfiles: []vespatest.RankProfile{{Name: "plain", FirstPhase: "attribute(created)"}}}
	song := vespatest.Schema{Name: "song", Inherits: "base", DocumentInherits: []string{"base"},
		Fields: []vespatest.Field{{Name: "created", Type: "long"}}}
	s := vespatest.NewTestServer(t, vespatest.WithSchema(base, song))
	if st, body := do(t, s.Client(), "POST", s.URL()+"/document/v1/ns/song/docid/1", `{"fields":{"user_id":"u1","created":3}}`); st != 200 {
		t.Fatalf("put: %d %s", st, body)
	}
	st, body := do(t, s.Client(), "GET", s.URL()+"/search/?yql="+url.QueryEscape(`select * from song where user_id contains "u1"`)+"&ranking.profile=plain", "")
	if st != 200 || !strings.Contains(body, `"relevance":3.0`) {
		t.Errorf("search: %d %s", st, body)
	}
	song.DocumentInherits = []string{"nosuch"}
	_, err := vespatest.Start(vespatest.WithSchema(base, song))
	if err == nil || err.Error() != "vespatest: document song inherits from unavailable document nosuch" {
		t.Errorf("Start with an unknown parent: %v", err)
	}
}
