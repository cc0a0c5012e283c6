package search

import (
	"slices"
	"testing"
)

// TestCompare_WeightedSetMatchesItsKeys checks that =, <, > and range on a
// weighted set compare its keys (integer keys as numbers), as Vespa's
// multi-value attribute search matches any element, never the weights.
func TestCompare_WeightedSetMatchesItsKeys(t *testing.T) {
	c := &memCorpus{
		schemas: []Schema{{Name: "w", Fields: []Field{
			{Name: "codes", Type: "weightedset<int>"},
			{Name: "labels", Type: "weightedset<string>"},
			{Name: "meta", Type: "map<string,int>"},
		}}},
		docs: []Document{
			doc("id:ns:w::a", `{"codes":{"7":1,"8":9},"labels":{"red":2},"meta":{"8":8}}`),
			doc("id:ns:w::b", `{"codes":{"3":5},"labels":{"blue":1}}`),
		},
	}
	for _, tc := range []struct {
		where string
		want  []string
	}{
		{"codes = 8", []string{"id:ns:w::a"}},
		{"codes = 9", nil}, // a weight, not a key
		{"codes > 5", []string{"id:ns:w::a"}},
		{"codes < 4", []string{"id:ns:w::b"}},
		{"range(codes, 3, 7)", []string{"id:ns:w::a", "id:ns:w::b"}},
		{`labels contains "red"`, []string{"id:ns:w::a"}},
		{"meta = 8", nil}, // a map is not a weighted set: its keys are not its values
	} {
		r := get(t, c, "yql", "select * from w where "+tc.where)
		got := r.ids()
		slices.Sort(got)
		if r.status != 200 || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %d %v, want %v (%s)", tc.where, r.status, got, tc.want, r.body)
		}
	}
}

// TestCompare_LongsAreExact checks that an integer literal compares with a
// long exactly, as the attribute's integer search does: 2^53 and 2^53+1 are
// one float64 but two longs.
func TestCompare_LongsAreExact(t *testing.T) {
	c := &memCorpus{
		schemas: []Schema{{Name: "l", Fields: []Field{{Name: "n", Type: "long"}}}},
		docs:    []Document{doc("id:ns:l::a", `{"n":9007199254740993}`)},
	}
	for _, tc := range []struct {
		where string
		match bool
	}{
		{"n = 9007199254740993", true},
		{"n = 9007199254740992", false},
		{"n > 9007199254740992", true},
		{"n >= 9007199254740994", false},
		{"9007199254740992 < n", true},
		{"n in (9007199254740992, 1)", false},
		{"n in (9007199254740993)", true},
		{"n < 9.1e15", true}, // a float literal compares as a float
	} {
		r := get(t, c, "yql", "select * from l where "+tc.where)
		if got := len(r.ids()) == 1; r.status != 200 || got != tc.match {
			t.Errorf("%s: %d %v, want a match: %v (%s)", tc.where, r.status, r.ids(), tc.match, r.body)
		}
	}
}
