package query

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// statements builds statements that place the user-controlled values v (a
// string) and name (an identifier) in every position the builder accepts
// them.
func statements(v, name string) []Builder {
	return []Builder{
		Select().Where(Contains("title", v)),
		Select().Where(Contains("title", v).With("stem", false).With("label", v)),
		Select().Where(And(Phrase("t", v, v), Not(Near("t", v, "b").With("distance", 2)))),
		Select().Where(Or(In("genre", v, v), Matches("a", v), UserInput(v))),
		Select().Where(SameElement("p", Contains("n", v), Equal("age", v))),
		Select().Where(NearestNeighbor("e", "q", 10).With("label", v).With("m", map[string]any{v: v})),
		Select().Where(And(Fuzzy("t", v).With("prefix", true), Equiv("t", v, v), URI("u", v))),
		Select().Where(Or(WeightedSet("w", map[string]int{v: 1}), DotProduct("d", map[string]int{v: 2}), Wand("x", map[string]int{v: 3}).With("targetHits", 5))),
		Select().Where(And(NonEmpty(Contains("t", v)), Predicate("p", map[string][]string{v: {v}}, map[string]int64{v: 1}), GeoLocation("g", 1, 2, v))),
		Select(name).From(name).Where(Contains(name, "x")).OrderBy(Desc(name)),
		Select().Where(UserInput(Param(name))),
	}
}

// wantStrings lists the string literals each statement of statements holds,
// in order.
func wantStrings(v string) [][]string {
	return [][]string{
		{v},
		{v, v},
		{v, v, v, "b"},
		{v, v, v, v},
		{v, v},
		{v, v, v},
		{v, v, v, v},
		{v, v, v},
		{v, v, v, v, v},
		{"x"},
		nil,
	}
}

func FuzzBuilder_ValuesNeverChangeStructure(f *testing.F) {
	for _, s := range []string{"", "x", `"`, `\`, `\"`, `" or true or "`, `'`, "\n", "\x00", "\u2028", "🎸", `\u0022`,
		"a\" ) | all(group(a)) //", "/* */", "@p", "{x:1}", "\x7f", "\xff", "é"} {
		f.Add(s, "title")
	}
	for _, name := range []string{"and", "a b", "a.b", "a-b:c", "a-b_c", "all", "a)or(true"} {
		f.Add("x", name)
	}
	ref := statements("x", "f")
	f.Fuzz(func(t *testing.T, v, name string) {
		built := statements(v, name)
		wants := wantStrings(v)
		for i, b := range built {
			yql, err := b.YQL()
			if err != nil {
				if !errors.Is(err, ErrInvalidYQL) {
					t.Fatalf("statement %d: error %v is not ErrInvalidYQL", i, err)
				}
				if i >= 9 && validName(name) && (i == 9 || !strings.Contains(name, ".")) {
					t.Fatalf("statement %d: valid name %q rejected: %v", i, name, err)
				}
				if i < 9 && utf8.ValidString(v) {
					t.Fatalf("statement %d: valid UTF-8 value %q rejected: %v", i, v, err)
				}
				continue
			}
			toks, err := lexYQL(yql)
			if err != nil {
				t.Fatalf("statement %d: %s: %v", i, yql, err)
			}
			refYQL, err := ref[i].YQL()
			if err != nil {
				t.Fatal(err)
			}
			refToks, _ := lexYQL(refYQL)
			if i >= 9 {
				// name is an identifier: every place "f" stands in the
				// reference must hold exactly the tokens of name.
				nameToks, err := lexYQL(name)
				if err != nil || !validName(name) {
					t.Fatalf("statement %d: name %q accepted: %s", i, name, yql)
				}
				var want []token
				for _, tk := range refToks {
					if tk.kind == "id" && tk.text == "f" {
						want = append(want, nameToks...)
					} else {
						want = append(want, tk)
					}
				}
				if shape(toks) != shape(want) {
					t.Fatalf("statement %d: structure changed\n got %s\nwant %s", i, shape(toks), shape(want))
				}
				continue
			}
			if got, want := shape(toks), shape(refToks); got != want {
				t.Fatalf("statement %d: structure changed\n got %s\nwant %s\nyql %s", i, got, want, yql)
			}
			var strs []string
			for _, tk := range toks {
				if tk.kind == "str" {
					strs = append(strs, tk.text)
				}
			}
			if !slices.Equal(strs, wants[i]) {
				t.Fatalf("statement %d: literals %q, want %q\nyql %s", i, strs, wants[i], yql)
			}
		}
	})
}

// namePattern is yqlplus.g4's IDENTIFIER (no ':' since December 2021), dotted.
var namePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$`)

// validName is the test's independent statement of which names are safe.
func validName(s string) bool {
	if !namePattern.MatchString(s) {
		return false
	}
	for seg := range strings.SplitSeq(s, ".") {
		switch strings.ToLower(seg) {
		case "and", "or", "in", "contains", "true", "false", "null", "from", "as", "timeout", "asc", "not", "all", "each":
			return false
		}
	}
	return true
}
