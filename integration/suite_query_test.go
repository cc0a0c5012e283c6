package integration

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/query"
)

// hitSong is a hit's summary fields and its document ID.
type hitSong struct {
	song
	DocumentID string `json:"-"`
}

// testQuery queries the fed corpus with the YQL builder (text match,
// numeric and array filters, ordering), with userQuery() and with
// nearestNeighbor, and checks the hits against the corpus.
func (s *suite) testQuery(t *testing.T) {
	qc, err := query.New(s.client)
	if err != nil {
		t.Fatalf("[%s] query.New: %v", s.tg.Name(), err)
	}
	t.Run("YQL builder with filters and ordering", func(t *testing.T) { s.testQueryBuilder(t, qc) })
	t.Run("YQL builder on an array attribute and a range", func(t *testing.T) { s.testQueryRange(t, qc) })
	t.Run("userQuery ranked by bm25", func(t *testing.T) { s.testUserQuery(t, qc) })
	t.Run("nearestNeighbor ranked by closeness", func(t *testing.T) { s.testNearestNeighbor(t, qc) })
	t.Run("grouping counts and top hits per group", func(t *testing.T) { s.testQueryGrouping(t, qc) })
}

// search runs req and fails t on an error or a result carrying errors.
func (s *suite) search(t *testing.T, qc *query.Client, req *query.Request) (*query.Result, []hitSong) {
	t.Helper()
	if req.Timeout == 0 {
		// Vespa's default of 500 ms bounds the whole call at 1.55 s; the
		// emulator does not time a query out itself, and an exact
		// nearestNeighbor over the suite's songs takes 0.2 s there, about
		// 5 s under -race on a quiet machine and twice that on a busy one.
		req.Timeout = 10 * time.Second
		if raceDetector {
			req.Timeout = time.Minute
		}
	}
	res, err := qc.Search(s.ctx, req)
	if err != nil {
		t.Fatalf("[%s] search %q: %v", s.tg.Name(), req.YQL, err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("[%s] search %q: result with errors: %v", s.tg.Name(), req.YQL, err)
	}
	if res.Coverage != nil && !res.Coverage.Full {
		t.Errorf("[%s] search %q: coverage %v%%, want full", s.tg.Name(), req.YQL, res.Coverage.Percent)
	}
	hits, err := query.DecodeHits[hitSong](res)
	if err != nil {
		t.Fatalf("[%s] search %q: decoding hits: %v", s.tg.Name(), req.YQL, err)
	}
	for k := range hits {
		hits[k].DocumentID = res.Hits[k].ID
	}
	return res, hits
}

// songIndex returns the corpus index of a hit's document ID, or -1.
func (s *suite) songIndex(id string) int {
	prefix := s.docs.id(0).String()
	prefix = prefix[:len(prefix)-1] // id:<ns>:music::song-
	n, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return -1
	}
	var i int
	if _, err := fmt.Sscanf(n, "%d", &i); err != nil || i < 0 || i >= s.docs.n || fmt.Sprint(i) != n {
		return -1
	}
	return i
}

func (s *suite) testQueryBuilder(t *testing.T, qc *query.Client) {
	name, word := s.tg.Name(), titleWords[3]
	yql, err := query.Select().From("music").
		Where(query.And(
			query.Contains("title", word),
			query.Contains("title", s.docs.token),
			query.Greater("year", 2000),
		)).
		OrderBy(query.Desc("popularity")).
		YQL()
	if err != nil {
		t.Fatalf("building YQL: %v", err)
	}
	want := s.docs.count(func(i int) bool { return s.docs.word(i) == word && s.docs.song(i).Year > 2000 })
	res, hits := s.search(t, qc, &query.Request{YQL: yql, Hits: 50})
	if res.TotalCount != int64(want) {
		t.Errorf("[%s] %s: totalCount %d, want %d", name, yql, res.TotalCount, want)
	}
	if len(hits) != min(50, want) {
		t.Fatalf("[%s] %s: %d hits, want %d", name, yql, len(hits), min(50, want))
	}
	for k, h := range hits {
		i := s.songIndex(h.DocumentID)
		if i < 0 {
			t.Errorf("[%s] hit %d: document %q is not in the corpus", name, k, h.DocumentID)
			continue
		}
		// embedding is no summary field of testdata/app's schema: Vespa
		// leaves it out of hits, so it is not compared.
		got, want := h.song, s.docs.song(i)
		got.Embedding, want.Embedding = embedding{}, embedding{}
		compareSong(t, name, h.DocumentID, got, want)
		if h.Year <= 2000 || !strings.Contains(h.Title, word) {
			t.Errorf("[%s] hit %d (%s) does not match: %+v", name, k, h.DocumentID, h.song)
		}
		if k > 0 && h.Popularity > hits[k-1].Popularity {
			t.Errorf("[%s] hit %d: popularity %d after %d, want descending order", name, k, h.Popularity, hits[k-1].Popularity)
		}
	}
}

func (s *suite) testQueryRange(t *testing.T, qc *query.Client) {
	name, tag := s.tg.Name(), tagWords[1]
	yql, err := query.Select("title", "popularity", "tags").From("music").
		Where(query.And(
			query.Contains("tags", tag),
			query.Contains("title", s.docs.token),
			query.Range("popularity", 10, 19),
		)).
		YQL()
	if err != nil {
		t.Fatalf("building YQL: %v", err)
	}
	want := s.docs.count(func(i int) bool {
		sg := s.docs.song(i)
		return sg.Tags[0] == tag && sg.Popularity >= 10 && sg.Popularity <= 19
	})
	res, hits := s.search(t, qc, &query.Request{YQL: yql, Hits: 20, GET: true})
	if res.TotalCount != int64(want) {
		t.Errorf("[%s] %s: totalCount %d, want %d", name, yql, res.TotalCount, want)
	}
	if len(hits) != min(20, want) {
		t.Fatalf("[%s] %s: %d hits, want %d", name, yql, len(hits), min(20, want))
	}
	for k, h := range hits {
		if !slices.Contains(h.Tags, tag) || h.Popularity < 10 || h.Popularity > 19 {
			t.Errorf("[%s] hit %d does not match: %+v", name, k, h.song)
		}
		if len(h.Embedding.Values) != 0 || h.Year != 0 {
			t.Errorf("[%s] hit %d has fields that were not selected: %+v", name, k, h.song)
		}
	}
}

func (s *suite) testUserQuery(t *testing.T, qc *query.Client) {
	name, word := s.tg.Name(), titleWords[5]
	yql, err := query.Select("title").From("music").
		Where(query.And(query.UserQuery(), query.Contains("title", s.docs.token))).
		YQL()
	if err != nil {
		t.Fatalf("building YQL: %v", err)
	}
	want := s.docs.count(func(i int) bool { return s.docs.word(i) == word })
	res, hits := s.search(t, qc, &query.Request{
		YQL:     yql,
		Query:   word,
		Ranking: "bm25",
		Hits:    10,
		// "all": every term must match, whatever the default grammar of
		// the Vespa version (weakAnd in recent ones).
		Params: map[string]any{"model.type": "all"},
	})
	if res.TotalCount != int64(want) {
		t.Errorf("[%s] userQuery %q: totalCount %d, want %d", name, word, res.TotalCount, want)
	}
	if len(hits) != min(10, want) {
		t.Fatalf("[%s] userQuery %q: %d hits, want %d", name, word, len(hits), min(10, want))
	}
	for k, h := range hits {
		if !strings.Contains(h.Title, word) {
			t.Errorf("[%s] hit %d: title %q does not hold %q", name, k, h.Title, word)
		}
		rel := float64(res.Hits[k].Relevance)
		if rel <= 0 {
			t.Errorf("[%s] hit %d: relevance %v, want a positive bm25 score", name, k, rel)
		}
		if k > 0 && rel > float64(res.Hits[k-1].Relevance) {
			t.Errorf("[%s] hit %d: relevance %v after %v, want descending order", name, k, rel, res.Hits[k-1].Relevance)
		}
	}
}

func (s *suite) testNearestNeighbor(t *testing.T, qc *query.Client) {
	name := s.tg.Name()
	const targetHits = 10
	k := 4242 % s.docs.n
	yql, err := query.Select().From("music").
		Where(query.And(
			query.NearestNeighbor("embedding", "q", targetHits).With("approximate", false),
			query.Contains("title", s.docs.token),
		)).
		YQL()
	if err != nil {
		t.Fatalf("building YQL: %v", err)
	}
	res, hits := s.search(t, qc, &query.Request{
		YQL:     yql,
		Ranking: "closeness",
		Inputs:  map[string]any{"q": s.docs.vectors[k]},
		Hits:    targetHits,
	})
	want := s.docs.nearest(s.docs.vectors[k], targetHits)
	if len(hits) != len(want) {
		t.Fatalf("[%s] nearestNeighbor: %d hits, want %d", name, len(hits), len(want))
	}
	if got := s.songIndex(hits[0].DocumentID); got != k {
		t.Errorf("[%s] nearestNeighbor: first hit %s, want song-%d (the query vector is its embedding)", name, hits[0].DocumentID, k)
	}
	// The relevance is closeness(field, embedding) = 1/(1 + distance) in
	// the closeness profile; a target that adds the title term's score
	// (the emulator ignores rank profiles) adds the same amount to every
	// hit, so compare relevances relative to the first hit's.
	var got []int
	for j, h := range hits {
		i := s.songIndex(h.DocumentID)
		got = append(got, i)
		if i < 0 {
			t.Errorf("[%s] nearestNeighbor hit %d: %q is not in the corpus", name, j, h.DocumentID)
			continue
		}
		wantDelta := 1/(1+angularDistance(s.docs.vectors[k], s.docs.vectors[i])) - 1
		gotDelta := float64(res.Hits[j].Relevance - res.Hits[0].Relevance)
		if math.Abs(gotDelta-wantDelta) > 1e-3 {
			t.Errorf("[%s] nearestNeighbor hit %d (song-%d): relevance %v, %.5f from the first hit's, want %.5f (closeness by angular distance)",
				name, j, i, res.Hits[j].Relevance, gotDelta, wantDelta)
		}
	}
	slices.Sort(got)
	wantSorted := slices.Sorted(slices.Values(want))
	if !slices.Equal(got, wantSorted) {
		t.Errorf("[%s] nearestNeighbor: songs %v, want the %d nearest by angular distance %v", name, got, targetHits, wantSorted)
	}
}
