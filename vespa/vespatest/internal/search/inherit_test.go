package search

import (
	"testing"

	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

// inheritCorpus is vespagen's rich test application in small: song inherits
// base (schema and document), whose document has the attribute user_id and
// whose schema has the rank profile plain; loose inherits base's document
// only. The schemas are resolved as the server resolves them.
func inheritCorpus(t *testing.T) *memCorpus {
	t.Helper()
	schemas, err := schema.Inherit([]Schema{
		{Name: "base", Fields: []Field{{Name: "user_id", Type: "string", Indexing: "summary | attribute"},
			{Name: "created", Type: "long", Indexing: "summary | attribute"}},
			RankProfiles: []RankProfile{{Name: "plain", FirstPhase: "attribute(created) * query(w)", Inputs: map[string]string{"query(w)": "0.5"}}},
			Fieldsets:    map[string][]string{"ids": {"user_id"}}},
		{Name: "song", Inherits: "base", DocumentInherits: []string{"base"},
			Fields:       []Field{{Name: "title", Type: "string", Indexed: true, Indexing: "summary | index"}},
			RankProfiles: []RankProfile{{Name: "semantic", Inherits: []string{"plain"}}}},
		{Name: "loose", DocumentInherits: []string{"base"}, RankProfiles: []RankProfile{
			{Name: "own", Inherits: []string{"plain"}}, {Name: "lost", Inherits: []string{"nowhere"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &memCorpus{schemas: schemas, docs: []Document{
		doc("id:ns:song::1", `{"title":"blue","user_id":"u1","created":10}`),
		doc("id:ns:song::2", `{"title":"red","user_id":"u2","created":20}`),
		doc("id:ns:loose::1", `{"user_id":"u1","created":30}`),
	}}
}

// A song is searched on base's fields, renders them, and ranks with base's
// profiles (its own, and one inheriting base's); a document that inherits
// base's document without its schema has base's fields but not its
// profiles (RankProfileRegistry.rankProfilesOf follows schema inheritance).
func TestInherit_searchAndRank(t *testing.T) {
	c := inheritCorpus(t)
	r := get(t, c, "yql", `select * from song where user_id contains "u1"`)
	if r.status != 200 || len(r.Root.Children) != 1 || r.Root.Children[0].ID != "id:ns:song::1" || r.Root.Children[0].Fields["user_id"] != "u1" {
		t.Errorf("user_id contains u1: %d %s", r.status, r.body)
	}
	r = get(t, c, "yql", `select * from song where ids contains "u1"`)
	if got := r.ids(); r.status != 200 || len(got) != 1 || got[0] != "id:ns:song::1" {
		t.Errorf("base's field set: %d %s", r.status, r.body)
	}
	for _, profile := range []string{"plain", "semantic"} {
		r = get(t, c, "yql", `select * from song where true`, "ranking.profile", profile, "input.query(w)", "2")
		wantRelevances(t, r, map[string]float64{"id:ns:song::1": 20, "id:ns:song::2": 40})
	}
	r = get(t, c, "yql", `select * from loose where true`, "ranking.profile", "plain")
	r.wantError(t, []string{"loose", "plain"}, 400, 4, "schema 'loose' does not contain requested rank profile 'plain'")
	// but a profile of loose may inherit base's by name (RankProfileRegistry.resolve)
	r = get(t, c, "yql", `select * from loose where true`, "ranking.profile", "own")
	wantRelevances(t, r, map[string]float64{"id:ns:loose::1": 15})
	r = get(t, c, "yql", `select * from loose where true`, "ranking.profile", "lost")
	r.wantError(t, []string{"loose", "lost"}, 501, 501, "inheriting rank profile 'nowhere'")
}
