package schema

import "testing"

// Predicates print as Vespa's Java Predicate.toString (a get: predicate-search-core
// Conjunction/Disjunction/FeatureSet/Negation.appendTo, FeatureSet a TreeSet) and as
// document's C++ PredicatePrinter (a docsum, predicate_printer.cpp). The first case's Java
// form is what the JDisc harness (Vespa's JsonWriter) returned for it in
// integration's TestRich_RoundTrip; its docsum form is what the harness's docsum
// writer (after PredicatePrinter) renders.
func TestParsePredicate_javaAndDocsumForms(t *testing.T) {
	for _, c := range []struct{ in, java, docsum string }{
		{"gender in [Female] and age in [20..30]",
			"gender in [Female] and age in [20..30]",
			"('gender' in ['Female'] and 'age' in [20..30])\n"},
		{"country in [se, no]", "country in [no, se]", "'country' in ['no','se']\n"},
		{"'my key' not in ['a b', x] or not (a in [b] and c in [..5])",
			"'my key' not in ['a b', x] or not (a in [b] and c in [..5])",
			"('my key' not in ['a b','x'] or not ('a' in ['b'] and 'c' in [..5]))\n"},
		{"a in [1] and (b in [2] or c in [-3..])",
			"a in [1] and (b in [2] or c in [-3..])",
			"('a' in ['1'] and ('b' in ['2'] or 'c' in [-3..]))\n"},
		{"true", "true", "true\n"},
		{"NOT (x IN [y]) OR false", "x not in [y] or false", "('x' not in ['y'] or false)\n"},
	} {
		p, err := ParsePredicate(c.in)
		if err != nil {
			t.Errorf("ParsePredicate(%q): %v", c.in, err)
			continue
		}
		if got := p.String(); got != c.java {
			t.Errorf("ParsePredicate(%q).String() = %q, want %q", c.in, got, c.java)
		}
		if got := p.DocsumString(); got != c.docsum {
			t.Errorf("ParsePredicate(%q).DocsumString() = %q, want %q", c.in, got, c.docsum)
		}
	}
}

func TestParsePredicate_refusesMalformed(t *testing.T) {
	for _, in := range []string{"", "a in", "a in [", "a in [b", "a [b]", "a in [1..x]", "(a in [b]", "a in [b] and", "'a in [b]", "a in [b] c"} {
		if _, err := ParsePredicate(in); err == nil {
			t.Errorf("ParsePredicate(%q): no error", in)
		}
	}
}

func FuzzParsePredicate(f *testing.F) {
	f.Add("gender in [Female] and age in [20..30]")
	f.Add("not (a in [b] or c not in ['d e'])")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePredicate(s)
		if err != nil {
			return
		}
		// What is printed parses back to the same predicate.
		q, err := ParsePredicate(p.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, p.String(), err)
		}
		if q.String() != p.String() {
			t.Fatalf("%q: %q reparsed as %q", s, p.String(), q.String())
		}
	})
}
