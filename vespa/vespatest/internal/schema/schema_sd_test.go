package schema

import "testing"

func FuzzParseSchema(f *testing.F) {
	f.Add("schema music { document music { field a type string { indexing: summary | index } } }")
	f.Add("schema x { document x { field t type tensor<float>(x[3]) { indexing: attribute\n attribute { distance-metric: angular } } } }")
	f.Fuzz(func(t *testing.T, s string) { _, _ = Parse(s) })
}

// Field sets and the summary- and match-features of a rank profile, in the
// block and the one-line forms (Vespa's schema reference: fieldset,
// summary-features, match-features).
func TestParse_fieldsetsAndFeatures(t *testing.T) {
	sch, err := Parse(`schema m {
  document m { field title type string { indexing: summary | index } }
  fieldset default { fields: title, body }
  rank-profile p {
    first-phase { expression: bm25(title) }
    summary-features: bm25(title) attribute( year )
    match-features {
      bm25(title)
      nativeRank
    }
  }
}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := sch.Fieldsets["default"]; len(got) != 2 || got[0] != "title" || got[1] != "body" {
		t.Errorf("fieldset default = %q", got)
	}
	p := sch.RankProfiles[0]
	if len(p.SummaryFeatures) != 2 || p.SummaryFeatures[0] != "bm25(title)" || p.SummaryFeatures[1] != "attribute(year)" {
		t.Errorf("summary-features = %q", p.SummaryFeatures)
	}
	if len(p.MatchFeatures) != 2 || p.MatchFeatures[1] != "nativeRank" {
		t.Errorf("match-features = %q", p.MatchFeatures)
	}
}
