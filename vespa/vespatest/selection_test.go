package vespatest

import "testing"

func TestSelection_evaluates(t *testing.T) {
	id, err := parseDocID("id:ns:music:g=grp:key")
	if err != nil {
		t.Fatal(err)
	}
	num, _ := parseDocID("id:other:music:n=42:k")
	fields := []byte(`{"artist":"Coldplay","year":2015,"tags":["a","b"],"ws":{"x":1},"score":1.5}`)
	cases := []struct {
		sel  string
		doc  docID
		want bool
	}{
		{"true", id, true},
		{"false", id, false},
		{"music", id, true},
		{"book", id, false},
		{`music.artist == "Coldplay"`, id, true},
		{`music.artist != "Coldplay"`, id, false},
		{`music.artist =~ "^Cold"`, id, true},
		{`music.artist = "C*play"`, id, true},
		{`music.artist = "C?play"`, id, false},
		{"music.year > 2000 and music.year <= 2015", id, true},
		{"music.year < 2000 or music.score >= 1.5", id, true},
		{"not music.year == 2015", id, false},
		{"music.missing == null", id, true},
		{"music.missing != null", id, false},
		{"music.artist == null", id, false},
		{"music.missing > 3", id, false},
		{"not (music.missing > 3)", id, false}, // invalid stays invalid
		{`music.tags == "b"`, id, true},
		{`music.ws == "x"`, id, true},
		{`book.year == 2015`, id, false},
		{`id == "id:ns:music:g=grp:key"`, id, true},
		{`id.namespace == "ns" and id.type == "music"`, id, true},
		{`id.group == "grp"`, id, true},
		{`id.user == 42`, num, true},
		{`id.user == 42`, id, false},
		{`id.specific == 'key'`, id, true},
		{`(music and (id.namespace=='ns')) and (id.group=='grp')`, id, true},
		{`MUSIC.year == 2015 OR music`, id, true},
	}
	for _, c := range cases {
		sel, err := parseSelection(c.sel)
		if err != nil {
			t.Errorf("%s: %v", c.sel, err)
			continue
		}
		if got, _ := sel.matches(c.doc, fields); got != c.want {
			t.Errorf("%s = %v, want %v", c.sel, got, c.want)
		}
	}
}

func TestSelection_rejectsMalformed(t *testing.T) {
	for _, s := range []string{"", "music.year >", "(music", "music)", "all the things", `music.a =~ "("`,
		"id.bogus == 1", `"x"`, "music.year == == 1", "music and", "#"} {
		if _, err := parseSelection(s); err == nil {
			t.Errorf("%q parsed, want an error", s)
		}
	}
}

func FuzzParseSelection(f *testing.F) {
	for _, s := range []string{"true", `music.artist == "x" and not id.user == 3`, "(a or b) and c.d =~ 'x*'",
		`id.group == 'a\'b'`, "music.year >= -1.5e3", "not not false"} {
		f.Add(s)
	}
	id, _ := parseDocID("id:ns:music::a")
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := parseSelection(s)
		if err != nil {
			return
		}
		_, _ = sel.matches(id, []byte(`{"artist":"x","year":3}`))
	})
}
