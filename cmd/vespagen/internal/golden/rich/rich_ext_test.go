package rich_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/govespa/govespa/cmd/vespagen/internal/golden/rich"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/schema"
)

// fullSong sets every field of a Song.
var fullSong = rich.Song{
	UserID: "u1", Title: "Title", Type: "single", Year: 1999, Plays: 1 << 40, Rating: 4.5, Score: 0.25,
	Live: true, Mood: -3, Location: vespa.Position{Lat: 37.4, Lng: -122}, URL: "https://x.example/a",
	Target: "genre in [rock]", Cover: []byte{0xfb, 0xff, 0xfe, 0x01}, ArtistRef: "id:ns:artist::a1",
	Tags: []string{"x", "y"}, Durations: []int32{180, 200}, Loudness: []float64{-7.5},
	Genres: vespa.WeightedSet[string]{"rock": 10, "pop": 2}, ChartIDs: vespa.WeightedSet[int32]{7: 3},
	Listeners:    vespa.WeightedSet[int64]{1 << 40: 2},
	LyricsByLang: vespa.Map[string, string]{"en": "la"}, PlaysByYear: vespa.Map[int32, int64]{2020: 5},
	RatioNames: json.RawMessage(`{"0.5":"half"}`),
	MainCredit: rich.SongCredit{Person: "p", Role: "writer", Share: 0.5},
	Credits:    []rich.SongCredit{{Person: "q", Role: "singer"}},
	Venues:     vespa.Map[string, rich.SongVenue]{"v1": {City: "Oslo", Capacity: 100, At: vespa.Position{Lat: 59.9, Lng: 10.75}}},
	Embedding:  vespa.DenseTensor[float32]{1, 2, 3, 4}, Half: vespa.DenseTensor[float32]{0.5, 1},
	Exact: vespa.DenseTensor[float64]{0.1, 0.2}, Small: vespa.DenseTensor[int8]{-128, 127, 0, 1, 2, 3, 4, 5},
	Topics: vespa.MappedTensor[float32]{"a": 1}, TopicsHalf: vespa.MappedTensor[float32]{"b": 0.5},
	TopicsExact: vespa.MappedTensor[float64]{"c": 0.1}, TopicsSmall: vespa.MappedTensor[int8]{"d": -1},
	Passages: json.RawMessage(`{"blocks":{"p1":[1,2]}}`), Grid: json.RawMessage(`{"values":[[1,2,3],[4,5,6]]}`),
	Note: "n",
}

// fullSongJSON is fullSong as Vespa's document JSON takes it: raw as
// standard base64 with padding (+ and /, not - and _), a position as lat and
// lng, weighted sets and maps as objects (integer keys as strings), structs
// as objects, tensors in their short forms, the raw tensors as given.
const fullSongJSON = `{"user_id":"u1","created":0,"title":"Title","type":"single","year":1999,"plays":1099511627776,` +
	`"rating":4.5,"score":0.25,"live":true,"mood":-3,"location":{"lat":37.4,"lng":-122},"url":"https://x.example/a",` +
	`"target":"genre in [rock]","cover":"+//+AQ==","artist_ref":"id:ns:artist::a1","tags":["x","y"],` +
	`"durations":[180,200],"loudness":[-7.5],"genres":{"pop":2,"rock":10},"chart_ids":{"7":3},` +
	`"listeners":{"1099511627776":2},"lyrics_by_lang":{"en":"la"},"plays_by_year":{"2020":5},` +
	`"ratio_names":{"0.5":"half"},"main_credit":{"person":"p","role":"writer","share":0.5},` +
	`"credits":[{"person":"q","role":"singer","share":0}],` +
	`"venues":{"v1":{"city":"Oslo","capacity":100,"at":{"lat":59.9,"lng":10.75}}},` +
	`"embedding":{"values":[1,2,3,4]},"half":{"values":[0.5,1]},"exact":{"values":[0.1,0.2]},` +
	`"small":{"values":[-128,127,0,1,2,3,4,5]},"topics":{"cells":{"a":1}},"topics_half":{"cells":{"b":0.5}},` +
	`"topics_exact":{"cells":{"c":0.1}},"topics_small":{"cells":{"d":-1}},"passages":{"blocks":{"p1":[1,2]}},` +
	`"grid":{"values":[[1,2,3],[4,5,6]]},"note":"n"}`

// TestSong_PutJSON checks the document JSON of every field type, that the
// schema check of the SDK (which reads as Vespa's JSON reader does) takes
// it, and that it reads back into the same Song.
func TestSong_PutJSON(t *testing.T) {
	got, err := json.Marshal(fullSong)
	if err != nil || string(got) != fullSongJSON {
		t.Fatalf("got  %s (%v)\nwant %s", got, err, fullSongJSON)
	}
	app, err := schema.ParseDir("../../../testdata/rich")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.CheckPut(rich.SongDocumentType, got); err != nil {
		t.Errorf("the schema check refuses the put: %v", err)
	}
	var back rich.Song
	if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, fullSong) {
		t.Errorf("read back as %+v (%v)", back, err)
	}
	empty, err := json.Marshal(rich.Song{})
	if want := `{"created":0,"year":0,"plays":0,"rating":0,"score":0,"live":false,"mood":0}`; err != nil || string(empty) != want {
		t.Errorf("zero Song: got %s (%v), want %s", empty, err, want)
	}
	if err := app.CheckPut(rich.SongDocumentType, empty); err != nil {
		t.Errorf("the schema check refuses the zero song: %v", err)
	}
	if err := app.CheckPut(rich.ArtistDocumentType, mustJSON(t, rich.Artist{Name: "A", Homepage: "https://a.example/"})); err != nil {
		t.Errorf("the schema check refuses an artist: %v", err)
	}
}

// TestDecodeSongHits_Renderings checks typed hits of /search/ results in the
// shapes Vespa renders: weighted sets and maps as arrays of item/weight and
// key/value (renderer.json.jsonWsets and jsonMaps off, and older Vespa) and
// as objects (Vespa's default now, JsonRenderer), tensors with their type,
// positions as lat/lng and as x/y, raw as padded base64, and summary fields
// that are not document fields.
func TestDecodeSongHits_Renderings(t *testing.T) {
	r, err := query.DecodeResult([]byte(`{"root":{"id":"toplevel","relevance":1,"fields":{"totalCount":2},"children":[
		{"id":"id:ns:song::1","relevance":2.5,"source":"song","fields":{
			"sddocname":"song","documentid":"id:ns:song::1","title_sort":"Title","summaryfeatures":{"bm25(title)":1},
			"title":"Title","year":1999,"mood":-3,"live":true,"cover":"+//+AQ==","artist_ref":"id:ns:artist::a1",
			"location":{"lat":37.4,"lng":-122},
			"genres":[{"item":"rock","weight":10},{"item":"pop","weight":2}],
			"chart_ids":[{"item":7,"weight":3}],
			"plays_by_year":[{"key":2020,"value":5}],
			"venues":[{"key":"v1","value":{"city":"Oslo","capacity":100,"at":{"x":10750000,"y":59900000}}}],
			"credits":[{"person":"q","role":"singer"}],
			"embedding":{"type":"tensor<float>(x[4])","values":[1,2,3,4]},
			"small":{"type":"tensor<int8>(x[8])","values":[-128,127,0,1,2,3,4,5]},
			"topics":{"type":"tensor<float>(topic{})","cells":{"a":1}},
			"grid":{"type":"tensor(x[2],y[3])","values":[[1,2,3],[4,5,6]]}}},
		{"id":"id:ns:song::2","relevance":1,"source":"song","fields":{
			"genres":{"jazz":1},"chart_ids":{"8":4},"listeners":{"1099511627776":2},
			"lyrics_by_lang":{"en":"la"},"venues":{"v2":{"city":"Bergen"}},
			"topics_small":{"type":"tensor<int8>(topic{})","cells":{"d":-1}}}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	hits, err := rich.DecodeSongHits(r)
	if err != nil {
		t.Fatal(err)
	}
	want := []rich.Song{{
		Title: "Title", Year: 1999, Mood: -3, Live: true, Cover: []byte{0xfb, 0xff, 0xfe, 0x01}, ArtistRef: "id:ns:artist::a1",
		Location: vespa.Position{Lat: 37.4, Lng: -122},
		Genres:   vespa.WeightedSet[string]{"rock": 10, "pop": 2}, ChartIDs: vespa.WeightedSet[int32]{7: 3},
		PlaysByYear: vespa.Map[int32, int64]{2020: 5},
		Venues:      vespa.Map[string, rich.SongVenue]{"v1": {City: "Oslo", Capacity: 100, At: vespa.Position{Lat: 59.9, Lng: 10.75}}},
		Credits:     []rich.SongCredit{{Person: "q", Role: "singer"}},
		Embedding:   vespa.DenseTensor[float32]{1, 2, 3, 4}, Small: vespa.DenseTensor[int8]{-128, 127, 0, 1, 2, 3, 4, 5},
		Topics: vespa.MappedTensor[float32]{"a": 1},
		Grid:   json.RawMessage(`{"type":"tensor(x[2],y[3])","values":[[1,2,3],[4,5,6]]}`),
	}, {
		Genres: vespa.WeightedSet[string]{"jazz": 1}, ChartIDs: vespa.WeightedSet[int32]{8: 4},
		Listeners: vespa.WeightedSet[int64]{1 << 40: 2}, LyricsByLang: vespa.Map[string, string]{"en": "la"},
		Venues:      vespa.Map[string, rich.SongVenue]{"v2": {City: "Bergen"}},
		TopicsSmall: vespa.MappedTensor[int8]{"d": -1},
	}}
	if len(hits) != len(want) {
		t.Fatalf("%d hits, want %d", len(hits), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(hits[i].Fields, want[i]) {
			t.Errorf("hit %d:\n got  %+v\n want %+v", i, hits[i].Fields, want[i])
		}
	}
	if hits[0].ID != "id:ns:song::1" || hits[0].Relevance != 2.5 || hits[0].Source != "song" {
		t.Errorf("hit 0 metadata: %+v", hits[0])
	}
}

// TestSong_TypedQuery checks the YQL of a reference of each kind.
func TestSong_TypedQuery(t *testing.T) {
	f := rich.SongFields
	for _, c := range []struct {
		cond query.Condition
		want string
	}{
		{f.Title.Phrase("a", "b"), `title contains phrase("a", "b")`},
		{f.Type.In("single"), `type in ("single")`},
		{f.Year.Range(1990, 1999), `range(year, 1990, 1999)`},
		{f.Plays.Ge(1 << 40), `plays >= 1099511627776L`},
		{f.Rating.Gt(4.5), `rating > 4.5`},
		{f.Score.Le(0.25), `score <= 0.25`},
		{f.Live.Is(true), `live = true`},
		{f.Mood.In(-3, 3), `mood in (-3, 3)`},
		{f.Location.Within(37.4, -122, "10 km"), `geoLocation(location, 37.4, -122.0, "10 km")`},
		{f.URL.Matches("https://x.example/a"), `url contains uri("https://x.example/a")`},
		{f.Durations.Lt(200), `durations < 200`},
		{f.Loudness.Gt(-8), `loudness > -8.0`},
		{f.Genres.Contains("rock"), `genres contains "rock"`},
		{f.ChartIDs.DotProduct(map[int32]int{7: 3}), `dotProduct(chart_ids, [[7, 3]])`},
		{f.Listeners.Wand(map[int64]int{1: 2}), `wand(listeners, [[1, 2]])`},
		{f.Passages.NearestNeighbor("passage_q", 5), `{targetHits: 5}nearestNeighbor(passages, passage_q)`},
		{f.UserID.Contains("u1"), `user_id contains "u1"`},
		{f.Created.Eq(0), `created = 0`},
	} {
		got, err := query.Select().From(rich.SongDocumentType).Where(c.cond).YQL()
		if want := "select * from song where " + c.want; err != nil || (got != want && got != "select * from song where ("+c.want+")") {
			t.Errorf("got %s (%v)\nwant %s", got, err, want)
		}
	}
	got, err := query.Select().Where(rich.SongFields.Target.Satisfied(map[string][]string{"genre": {"rock"}}, nil)).YQL()
	if err != nil || got != `select * from sources * where predicate(target, {"genre": "rock"}, void)` {
		t.Errorf("predicate: %s (%v)", got, err)
	}
	if got := rich.ArtistFields.Homepage.Name(); got != rich.ArtistFieldHomepage {
		t.Errorf("homepage reference names %q", got)
	}
}

// TestSongSemanticInputs_Apply checks every kind of input on a request:
// numbers, a string, dense and mapped tensors as their cells, a mixed tensor
// as literal text, the inherited one, and what is not set left out.
func TestSongSemanticInputs_Apply(t *testing.T) {
	boost := 2.0
	var req query.Request
	rich.SongSemanticInputs{
		Boost: &boost, Mode: "strict", PassageQ: "{{p:a,x:0}:1.0}",
		Q: vespa.DenseTensor[float32]{1, 0, 0, 0}, TopicWeights: vespa.MappedTensor[float64]{"a": 0.5},
	}.Apply(&req)
	want := map[string]any{
		"query(boost)": 2.0, "query(mode)": "strict", "query(passage_q)": "{{p:a,x:0}:1.0}",
		"query(q)": []float32{1, 0, 0, 0}, "query(topic_weights)": map[string]float64{"a": 0.5},
	}
	if req.Ranking != "semantic" || !reflect.DeepEqual(req.Inputs, want) {
		t.Errorf("got %q %v\nwant semantic %v", req.Ranking, req.Inputs, want)
	}
	w := 0.0
	rich.SongPlainInputs{W: &w}.Apply(&req)
	if req.Ranking != rich.SongRankProfilePlain || req.Inputs["query(w)"] != 0.0 {
		t.Errorf("a zero number set is sent: got %q %v", req.Ranking, req.Inputs)
	}
	if rich.SongRankProfileNearDup != "near-dup" || rich.BaseRankProfilePlain != "plain" {
		t.Error("profile names")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
