package music_test

import (
	"context"
	"fmt"
	"log"

	"github.com/govespa/govespa/cmd/vespagen/internal/golden/music"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
	"github.com/govespa/govespa/vespa/vespatest"
)

// Example puts documents as generated structs, searches them with typed
// field references and reads the hits as structs, against the emulator
// serving the application package the code was generated from.
func Example() {
	srv := vespatest.NewServer(vespatest.WithApplicationDir("../../../../../integration/testdata/app"))
	defer srv.Close()
	ctx := context.Background()
	vc, err := vespa.NewClient(srv.URL())
	if err != nil {
		log.Fatal(err)
	}
	defer vc.Close()

	songs := map[string]music.Music{
		"a": {Title: "Love Me Do", Year: 1962, Tags: []string{"pop"}},
		"b": {Title: "Love Will Tear Us Apart", Year: 1980, Popularity: 9},
		"c": {Title: "Lovely Day", Year: 1977},
		"d": {Title: "Crazy in Love", Year: 2003},
	}
	for _, key := range []string{"a", "b", "c", "d"} {
		if _, err := vc.Put(ctx, music.NewMusicID("ns", key), songs[key], vespa.OperationOptions{}); err != nil {
			log.Fatal(err)
		}
	}

	yql, err := query.Select().
		From(music.MusicDocumentType).
		Where(query.And(music.Title.Contains("love"), music.Year.Lt(1990))).
		OrderBy(music.Year.Asc()).
		YQL()
	if err != nil {
		log.Fatal(err)
	}
	qc, err := query.New(vc)
	if err != nil {
		log.Fatal(err)
	}
	r, err := qc.Search(ctx, &query.Request{YQL: yql, Ranking: music.MusicRankProfileBm25})
	if err != nil {
		log.Fatal(err)
	}
	hits, err := music.DecodeMusicHits(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(yql)
	for _, h := range hits {
		fmt.Println(h.ID, h.Fields.Year, h.Fields.Title, h.Fields.Popularity, h.Fields.Tags)
	}
	// Output:
	// select * from music where title contains "love" and year < 1990 order by year asc
	// id:ns:music::a 1962 Love Me Do 0 [pop]
	// id:ns:music::b 1980 Love Will Tear Us Apart 9 []
}

// ExampleMusicClosenessInputs ranks by a profile with its typed inputs:
// Apply names the profile and sends the embedding as input.query(q).
func ExampleMusicClosenessInputs() {
	embedding := make(vespa.DenseTensor[float32], 384) // from an embedding model
	embedding[0] = 1
	req := &query.Request{YQL: `select * from music where {targetHits: 10}nearestNeighbor(embedding, q)`}
	music.MusicClosenessInputs{Q: embedding}.Apply(req)
	fmt.Println(req.Ranking, len(req.Inputs["query(q)"].([]float32)))
	// Output: closeness 384
}
