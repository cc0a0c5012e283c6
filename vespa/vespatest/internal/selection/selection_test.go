package selection

import (
	"fmt"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/docid"
)

func TestSelection_evaluates(t *testing.T) {
	id, err := docid.Parse("id:ns:music:g=grp:key")
	if err != nil {
		t.Fatal(err)
	}
	num, _ := docid.Parse("id:other:music:n=42:k")
	fields := []byte(`{"artist":"Coldplay","year":2015,"tags":["a","b"],"ws":{"x":1},"score":1.5}`)
	cases := []struct {
		sel  string
		doc  docid.ID
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
		{`not music.tags == "z"`, id, true}, // no element matches: false
		{`not music.tags > 3`, id, false},   // no element is comparable: invalid
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
		sel, err := Parse(c.sel)
		if err != nil {
			t.Errorf("%s: %v", c.sel, err)
			continue
		}
		if got, _ := sel.Matches(c.doc, fields); got != c.want {
			t.Errorf("%s = %v, want %v", c.sel, got, c.want)
		}
	}
}

// TestSelection_arithmeticAndNow follows Vespa's selection grammar
// (document/src/vespa/document/select/grammar/parser.yy: arith_expr,
// NOW_FUNC; precedence %left PLUS MINUS < MULTIPLY DIVIDE < MODULO) and the
// literals of document/src/main/javacc/SelectParser.jj (INTEGER as decimal,
// 0x hex or 0 octal; FLOAT): expiry and cleanup selections such as
// "music.ts < now() - 86400" parse and evaluate.
func TestSelection_arithmeticAndNow(t *testing.T) {
	id, _ := docid.Parse("id:ns:music::a")
	now := time.Now().Unix()
	fields := []byte(fmt.Sprintf(`{"year":2015,"score":1.5,"ts":%d,"old":%d,"artist":"Cold","tags":[7]}`, now-10, now-100000))
	for _, c := range []struct {
		sel  string
		want bool
	}{
		{"music.ts > now() - 3600", true},
		{"music.old < now() - 86400", true},
		{"music.ts < now() - 86400", false},
		{"now() > 1700000000", true},
		{"music.year / 10 == 201", true}, // integer division truncates
		{"music.year / 10.0 == 201.5", true},
		{"music.year % 100 == 15", true},
		{"music.year - 15 == 2000", true},
		{"music.year-15 == 2000", true}, // "-" after a value is subtraction
		{"music.year == 2000 + 3 * 5", true},
		{"music.year == (2000 + 3) * 5", false},
		{"(music.year + 5) * 2 == 4040", true},
		{"2 * 10 % 3 == 2", true}, // % binds tighter than *: 2 * (10 % 3)
		{"music.score * 2 == 3", true},
		{"music.year + music.score == 2016.5", true},
		{"music.tags + 1 == 8", true}, // a one-element array counts as its element
		{"music.artist + 'play' == 'Coldplay'", true},
		{"music.missing + 1 == 1", false}, // arithmetic on a missing field is invalid
		{"not (music.missing + 1 == 1)", false},
		{"music.year / 0 == 1", false},
		{"not (music.year / 0 == 1)", false}, // integer division by zero is invalid
		{"not (music.year % 0 == 1)", false},
		{"music.score / 0 > 1000", true}, // float division by zero is infinite
		{"music.score % 1 == 0.5", true},
		{"music.year % 7 == 6", true},
		{"music.year == 0x7df", true},
		{"music.year == 03737", true}, // octal
		{"music.year > -1", true},
		{"music.score == +1.5", true},
		{"music.year == 2015L", true},
		{"music.score == 1.5f", true},
		{"(music.year > 2000) == true", true},
		{"music.year == 2015.0", true}, // an integer field equals the same float
	} {
		sel, err := Parse(c.sel)
		if err != nil {
			t.Errorf("%s: %v", c.sel, err)
			continue
		}
		if got, _ := sel.Matches(id, fields); got != c.want {
			t.Errorf("%s = %v, want %v", c.sel, got, c.want)
		}
	}
	for _, s := range []string{"now()", "music.year + 1", "1 + 2", "now(", "music.year + == 1", "music.year * "} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%q parsed, want an error", s)
		}
	}
}

func TestSelection_rejectsMalformed(t *testing.T) {
	for _, s := range []string{"", "music.year >", "(music", "music)", "all the things", `music.a =~ "("`,
		"id.bogus == 1", `"x"`, "music.year == == 1", "music and", "#"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%q parsed, want an error", s)
		}
	}
}

func FuzzParseSelection(f *testing.F) {
	for _, s := range []string{"true", `music.artist == "x" and not id.user == 3`, "(a or b) and c.d =~ 'x*'",
		`id.group == 'a\'b'`, "music.year >= -1.5e3", "not not false"} {
		f.Add(s)
	}
	id, _ := docid.Parse("id:ns:music::a")
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := Parse(s)
		if err != nil {
			return
		}
		_, _ = sel.Matches(id, []byte(`{"artist":"x","year":3}`))
	})
}

// TestTri_logic spells out the three-valued tables of and, or and not (F false, I invalid,
// T true): false wins an and, true wins an or, and otherwise invalid stays invalid. In a
// table the rows are the left operand and the columns the right one, both in the order F I T.
func TestTri_logic(t *testing.T) {
	const name = "FIT" // name[v] names the tri v
	for _, c := range []struct {
		op    string
		node  func(l, r selNode) selNode
		table []string
	}{
		{"and", func(l, r selNode) selNode { return andNode{l, r} }, []string{"FFF", "FII", "FIT"}},
		{"or", func(l, r selNode) selNode { return orNode{l, r} }, []string{"FIT", "IIT", "TTT"}},
	} {
		for l, row := range c.table {
			for r := range row {
				if got := c.node(constNode(l), constNode(r)).eval(nil); name[got] != row[r] {
					t.Errorf("%c %s %c = %c, want %c", name[l], c.op, name[r], name[got], row[r])
				}
			}
		}
	}
	for v, want := range "TIF" {
		if got := (notNode{constNode(v)}).eval(nil); rune(name[got]) != want {
			t.Errorf("not %c = %c, want %c", name[v], name[got], want)
		}
	}
}
