package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/vespatest"
)

// newEmulator starts the emulator with a small music corpus and returns a
// query client for it.
func newEmulator(t *testing.T) *query.Client {
	t.Helper()
	srv := vespatest.NewTestServer(t, vespatest.WithSchema(vespatest.Schema{Name: "music", Fields: []vespatest.Field{
		{Name: "title", Type: "string", Indexed: true},
		{Name: "artist", Type: "string", Indexed: true},
		{Name: "year", Type: "int"},
		{Name: "embedding", Type: "tensor<float>(x[2])", DistanceMetric: "euclidean"},
	}}))
	docs := map[string]string{
		"id:ns:music::a": `{"title":"A Head Full of Dreams","artist":"Coldplay","year":2015,"embedding":[1,0]}`,
		"id:ns:music::b": `{"title":"Hardwired","artist":"Metallica","year":2016,"embedding":[0,1]}`,
		"id:ns:music::c": `{"title":"Head \"Quoted\" Song","artist":"Bob","year":1999,"embedding":[0.9,0.1]}`,
	}
	for id, f := range docs {
		if err := srv.PutDocument(id, json.RawMessage(f)); err != nil {
			t.Fatal(err)
		}
	}
	return newClient(t, srv.URL())
}

type music struct {
	Title  string `json:"title"`
	Artist string `json:"artist"`
	Year   int    `json:"year"`
}

func TestEmulator_BuilderQueries(t *testing.T) {
	qc := newEmulator(t)
	cases := []struct {
		name string
		b    query.Builder
		want int
	}{
		{"contains", query.Select().From("music").Where(query.Contains("artist", "coldplay")), 1},
		{"escaped quote", query.Select().From("music").Where(query.Contains("title", `"quoted"`)), 1},
		{"injection attempt stays a literal", query.Select().From("music").Where(query.Contains("title", `x" or true or title contains "y`)), 0},
		{"range and order", query.Select().From("music").Where(query.Range("year", 2000, 2020)).OrderBy(query.Desc("year")), 2},
		{"or of comparisons", query.Select().From("music").Where(query.Or(query.Less("year", 2000), query.Greater("year", 2015))), 2},
		{"true", query.Select().From("music").Where(query.True()), 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			yql, err := tc.b.YQL()
			if err != nil {
				t.Fatal(err)
			}
			for _, get := range []bool{false, true} {
				r, err := qc.Search(context.Background(), &query.Request{YQL: yql, GET: get})
				if err != nil {
					t.Fatalf("%s (GET %v): %v", yql, get, err)
				}
				if len(r.Hits) != tc.want {
					t.Errorf("%s (GET %v): %d hits, want %d", yql, get, len(r.Hits), tc.want)
				}
				hits, err := query.DecodeHits[music](r)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					if h.Title == "" {
						t.Errorf("hit without title: %+v", h)
					}
				}
			}
		})
	}
}

func TestEmulator_OrderHitsAndErrors(t *testing.T) {
	qc := newEmulator(t)
	yql, _ := query.Select("title", "year").From("music").Where(query.True()).OrderBy(query.Asc("year")).YQL()
	r, err := qc.Search(context.Background(), &query.Request{YQL: yql, Hits: 2})
	if err != nil {
		t.Fatal(err)
	}
	hits, _ := query.DecodeHits[music](r)
	if len(hits) != 2 || hits[0].Year != 1999 || hits[1].Year != 2015 || r.TotalCount != 3 {
		t.Errorf("hits %+v total %d", hits, r.TotalCount)
	}
	_, err = qc.Search(context.Background(), &query.Request{YQL: "selectz * from music where true"})
	if !errors.Is(err, vespa.ErrBadRequest) {
		t.Errorf("bad YQL: %v", err)
	}
	// Vespa's search handler answers a YQL syntax error with code 4 (checked
	// against it in integration/differential_test.go).
	if c, ok := query.CodeOf(err); !ok || c != query.CodeInvalidQueryParameter {
		t.Errorf("code %v %v", c, ok)
	}
}

func TestEmulator_NearestNeighborWithInputs(t *testing.T) {
	qc := newEmulator(t)
	yql, err := query.Select().From("music").Where(query.NearestNeighbor("embedding", "q", 2)).YQL()
	if err != nil {
		t.Fatal(err)
	}
	for _, get := range []bool{false, true} {
		r, err := qc.Search(context.Background(), &query.Request{YQL: yql, Inputs: map[string]any{"q": []float32{1, 0}}, GET: get})
		if err != nil {
			t.Fatalf("GET %v: %v", get, err)
		}
		hits, _ := query.DecodeHits[music](r)
		if len(hits) != 2 || hits[0].Artist != "Coldplay" {
			t.Errorf("GET %v: %+v", get, hits)
		}
	}
}

func TestEmulator_UserInputParam(t *testing.T) {
	qc := newEmulator(t)
	yql, _ := query.Select().From("music").Where(query.UserInput(query.Param("text"))).YQL()
	r, err := qc.Search(context.Background(), &query.Request{YQL: yql, Params: map[string]any{"text": "metallica"}})
	if err != nil {
		t.Skipf("emulator: userInput not supported: %v", err)
	}
	if len(r.Hits) != 1 {
		t.Errorf("%d hits", len(r.Hits))
	}
}

// A rank feature given as an object under ranking.features.* reaches Vespa
// as a tensor, the same way for GET and POST (it used to be sent as a raw
// object in POST bodies, which Vespa flattens into bogus names).
func TestEmulator_RankFeatureObjectGetAndPost(t *testing.T) {
	qc := newEmulator(t)
	yql, err := query.Select().From("music").Where(query.NearestNeighbor("embedding", "q", 1)).YQL()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		params map[string]any
	}{
		{"flat name", map[string]any{"ranking.features.query(q)": map[string]any{"values": []float64{0, 1}}}},
		{"nested", map[string]any{"ranking": map[string]any{"features": map[string]any{"query(q)": map[string]any{"values": []float64{0, 1}}}}}},
		{"rankfeature", map[string]any{"rankfeature.query(q)": json.RawMessage(`{"values":[0,1]}`)}},
	} {
		for _, get := range []bool{false, true} {
			r, err := qc.Search(context.Background(), &query.Request{YQL: yql, Params: tc.params, GET: get})
			if err != nil {
				t.Fatalf("%s (GET %v): %v", tc.name, get, err)
			}
			if len(r.Hits) != 1 || r.Hits[0].ID != "id:ns:music::b" {
				t.Errorf("%s (GET %v): hits %+v, want the song nearest [0, 1]", tc.name, get, r.Hits)
			}
		}
	}
}
