package music_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/govespa/govespa/cmd/vespagen/internal/golden/music"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
)

// TestMusic_TypedQuery checks the YQL the typed references make.
func TestMusic_TypedQuery(t *testing.T) {
	got, err := query.Select(music.MusicFieldTitle, music.MusicFieldYear).
		From(music.MusicDocumentType).
		Where(query.And(music.Title.Contains("love"), music.Year.Lt(1990), music.Tags.In("rock", "pop"), music.Popularity.In(1, 2))).
		OrderBy(music.Year.Desc()).
		YQL()
	want := `select title, year from music where title contains "love" and year < 1990 and tags in ("rock", "pop") and popularity in (1, 2) order by year desc`
	if err != nil || got != want {
		t.Errorf("got %s (%v)\nwant %s", got, err, want)
	}
	nn, err := query.Select().From(music.MusicDocumentType).Where(music.Embedding.NearestNeighbor("q", 10)).YQL()
	if want := `select * from music where ({targetHits: 10}nearestNeighbor(embedding, q))`; err != nil || nn != want {
		t.Errorf("got %s (%v)\nwant %s", nn, err, want)
	}
}

// TestMusic_PutJSON checks the document JSON of a Music: Vespa's field
// names, a zero number written, an empty string and tensor left out, the
// tensor in its short form.
func TestMusic_PutJSON(t *testing.T) {
	for _, c := range []struct {
		doc  music.Music
		want string
	}{
		{music.Music{Title: "Hey", Year: 1990, Tags: []string{"a"}, Embedding: vespa.DenseTensor[float32]{0.5, -1}},
			`{"title":"Hey","year":1990,"popularity":0,"tags":["a"],"embedding":{"values":[0.5,-1]}}`},
		{music.Music{}, `{"year":0,"popularity":0}`},
	} {
		got, err := json.Marshal(c.doc)
		if err != nil || string(got) != c.want {
			t.Errorf("got %s (%v)\nwant %s", got, err, c.want)
		}
	}
}

// TestDecodeMusicHits_Result checks typed hits of a /search/ result as
// Vespa renders it: the tensor with its type, summary fields that are not
// document fields (sddocname, documentid), match-features.
func TestDecodeMusicHits_Result(t *testing.T) {
	r, err := query.DecodeResult([]byte(`{"root":{"id":"toplevel","relevance":1,"fields":{"totalCount":1},
		"coverage":{"coverage":100,"documents":2,"full":true,"nodes":1,"results":1,"resultsFull":1},
		"children":[{"id":"id:ns:music::a","relevance":0.75,"source":"music","fields":{
			"matchfeatures":{"closeness(field,embedding)":0.75},
			"sddocname":"music","documentid":"id:ns:music::a","title":"Hey","year":1990,"popularity":7,
			"tags":["a","b"],"embedding":{"type":"tensor<float>(x[3])","values":[1,0.5,-2]}}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	hits, err := music.DecodeMusicHits(r)
	if err != nil {
		t.Fatal(err)
	}
	want := music.Music{Title: "Hey", Year: 1990, Popularity: 7, Tags: []string{"a", "b"}, Embedding: vespa.DenseTensor[float32]{1, 0.5, -2}}
	if len(hits) != 1 || hits[0].ID != "id:ns:music::a" || hits[0].Relevance != 0.75 || !reflect.DeepEqual(hits[0].Fields, want) {
		t.Fatalf("got %+v, want one hit of %+v", hits, want)
	}
	if v, ok := hits[0].MatchFeatures.Float("closeness(field,embedding)"); !ok || v != 0.75 {
		t.Errorf("match feature %v %v", v, ok)
	}
	if _, err := music.DecodeMusicHits(mustResult(t, `{"root":{"id":"r","relevance":1,"children":[{"id":"x","relevance":1,"fields":{"year":"abc"}}]}}`)); err == nil {
		t.Error("a year that is not a number decoded")
	}
}

// TestMusicClosenessInputs_Apply checks the request the profile's inputs
// make: the profile, the tensor as its cells, other inputs kept, an unset
// input not sent.
func TestMusicClosenessInputs_Apply(t *testing.T) {
	req := &query.Request{Inputs: map[string]any{"query(other)": 1}}
	music.MusicClosenessInputs{Q: vespa.DenseTensor[float32]{1, 2}}.Apply(req)
	want := map[string]any{"query(other)": 1, "query(q)": []float32{1, 2}}
	if req.Ranking != "closeness" || !reflect.DeepEqual(req.Inputs, want) {
		t.Errorf("got %q %v, want closeness %v", req.Ranking, req.Inputs, want)
	}
	var empty query.Request
	music.MusicClosenessInputs{}.Apply(&empty)
	if empty.Ranking != music.MusicRankProfileCloseness || len(empty.Inputs) != 0 {
		t.Errorf("no inputs set: got %q %v", empty.Ranking, empty.Inputs)
	}
	if music.MusicRankProfileBm25 != "bm25" {
		t.Errorf("bm25 is %q", music.MusicRankProfileBm25)
	}
}

// TestNewMusicID_Text checks the document ID helper.
func TestNewMusicID_Text(t *testing.T) {
	if got := music.NewMusicID("ns", "a/b").String(); got != "id:ns:music::a/b" {
		t.Errorf("got %s", got)
	}
}

func mustResult(t *testing.T, body string) *query.Result {
	t.Helper()
	r, err := query.DecodeResult([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
