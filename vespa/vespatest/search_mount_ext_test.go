package vespatest_test

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

// integrationMusicSD is the integration suite's schema (integration/testdata/app/schemas/music.sd), with a
// three-cell embedding.
const integrationMusicSD = `schema music {
    document music {
        field title type string {
            indexing: summary | index
            index: enable-bm25
        }
        field year type int {
            indexing: summary | attribute
        }
        field embedding type tensor<float>(x[3]) {
            indexing: attribute | index
            attribute {
                distance-metric: angular
            }
            index {
                hnsw {
                    max-links-per-node: 16
                }
            }
        }
    }
    fieldset default {
        fields: title
    }
    rank-profile bm25 {
        first-phase {
            expression: bm25(title)
        }
    }
    rank-profile closeness {
        inputs {
            query(q) tensor<float>(x[3])
        }
        first-phase {
            expression: closeness(field, embedding)
        }
    }
}`

type searchResult struct {
	Root struct {
		Errors []struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
		Children []struct {
			ID        string         `json:"id"`
			Relevance float64        `json:"relevance"`
			Fields    map[string]any `json:"fields"`
		} `json:"children"`
	} `json:"root"`
}

func TestSearch_musicApplicationRanksAndRendersAsVespa(t *testing.T) {
	sch, err := vespatest.ParseSchema(integrationMusicSD)
	if err != nil {
		t.Fatal(err)
	}
	s := vespatest.NewTestServer(t, vespatest.WithSchema(sch))
	for id, fields := range map[string]string{
		"1": `{"title":"A Head Full of Dreams","year":2015,"embedding":[1,0,0]}`,
		"2": `{"title":"Dreams","year":1977,"embedding":[0,1,0]}`,
		"3": `{"title":"Head over heels","year":1985,"embedding":[1,1,0]}`,
	} {
		if err := s.PutDocument("id:mynamespace:music::"+id, json.RawMessage(fields)); err != nil {
			t.Fatal(err)
		}
	}
	search := func(kv ...string) (int, searchResult) {
		t.Helper()
		q := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		status, body := do(t, s.Client(), "GET", s.URL()+"/search/?"+q.Encode(), "")
		var r searchResult
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		return status, r
	}

	// A nearestNeighbor with an extra text term, ranked by closeness alone.
	status, r := search("yql", `select * from music where {targetHits:10}nearestNeighbor(embedding, q) or title contains "heels"`,
		"input.query(q)", "[1,0,0]", "ranking", "closeness")
	if status != 200 || len(r.Root.Children) != 3 {
		t.Fatalf("%d %+v", status, r)
	}
	for _, h := range r.Root.Children {
		if h.Relevance > 1 {
			t.Errorf("%s: closeness relevance %v above 1", h.ID, h.Relevance)
		}
		if _, ok := h.Fields["embedding"]; ok {
			t.Errorf("%s: embedding (attribute | index, no summary) rendered: %v", h.ID, h.Fields)
		}
		if h.Fields["title"] == nil || h.Fields["sddocname"] != "music" {
			t.Errorf("%s: summary fields missing: %v", h.ID, h.Fields)
		}
	}
	if r.Root.Children[0].ID != "id:mynamespace:music::1" || r.Root.Children[0].Relevance != 1 {
		t.Errorf("nearest first with closeness 1: %+v", r.Root.Children[0])
	}

	status, r = search("yql", `select * from music where title contains "dreams"`, "ranking", "bm25")
	if status != 200 || len(r.Root.Children) != 2 || r.Root.Children[0].ID != "id:mynamespace:music::2" {
		t.Errorf("bm25: the shorter title ranks first: %d %+v", status, r)
	}

	status, r = search("yql", `select * from music where true`, "ranking", "nope")
	if status != 400 || len(r.Root.Errors) != 1 || r.Root.Errors[0].Code != 4 ||
		r.Root.Errors[0].Message != "schema 'music' does not contain requested rank profile 'nope'" {
		t.Errorf("undefined profile: %d %+v", status, r)
	}
}
