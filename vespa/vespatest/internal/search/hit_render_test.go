package search

import (
	"encoding/json"
	"testing"
)

// clusteredCorpus is a memCorpus whose document types live in one content
// cluster with another name.
type clusteredCorpus struct {
	*memCorpus
	cluster string
}

func (c clusteredCorpus) ClusterOf(string) string { return c.cluster }

// A hit is rendered as Vespa's container writes it from a docsum: its
// source is the content cluster (FederationSearcher.search sets the search
// chain's id), a predicate is in document's C++ PredicatePrinter form, a
// float is widened to a double (searchsummary slime_filler.cpp
// insertDouble), a tensor type is written as TensorType.toString (no
// <double>), and its float cells as floats (JsonFormat), 0.1 where a get
// writes 0.10000000149011612. The integration suite's TestRich_RoundTrip checks the same
// against Vespa's own JsonRenderer in the JDisc harness.
func TestRenderHit_asTheContainerWritesADocsum(t *testing.T) {
	sch := Schema{Name: "rich", Fields: []Field{
		{Name: "p", Type: "predicate", Indexing: "summary | attribute"},
		{Name: "f", Type: "float", Indexing: "summary | attribute"},
		{Name: "fs", Type: "array<float>", Indexing: "summary | attribute"},
		{Name: "d", Type: "double", Indexing: "summary | attribute"},
		{Name: "t", Type: "tensor<double>(x[2])", Indexing: "summary | attribute"},
		{Name: "tf", Type: "tensor<float>(cat{})", Indexing: "summary | attribute"},
	}}
	c := clusteredCorpus{cluster: "content", memCorpus: &memCorpus{
		schemas: []Schema{sch},
		docs: []Document{doc("id:ns:rich::1",
			`{"p":"gender in [Female] and age in [20..30]","f":0.1,"fs":[0.1,1.5],"d":0.1,"t":[1,2],"tf":{"type":"tensor<float>(cat{})","cells":{"a":0.10000000149011612}}}`)},
	}}
	r := get(t, c, "yql", "select * from rich where true")
	if r.status != 200 || len(r.Root.Children) != 1 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	h := r.Root.Children[0]
	if h.Source != "content" {
		t.Errorf("source = %q, want the cluster, content", h.Source)
	}
	for name, want := range map[string]string{
		"p":  `"('gender' in ['Female'] and 'age' in [20..30])"`,
		"f":  `0.10000000149011612`,
		"fs": `[0.10000000149011612,1.5]`,
		"d":  `0.1`,
		"t":  `{"type":"tensor(x[2])","values":[1.0,2.0]}`,
		"tf": `{"type":"tensor<float>(cat{})","cells":{"a":0.1}}`,
	} {
		got, _ := json.Marshal(h.Fields[name])
		var w any
		_ = json.Unmarshal([]byte(want), &w)
		wb, _ := json.Marshal(w)
		if string(got) != string(wb) {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}

// A typed input's value is checked before the profile is evaluated, as
// Vespa's container checks it (RankProfileInputProperties): a value it
// cannot read as the declared type is 400 Illegal query even for a profile
// the emulator cannot evaluate (which is 501 with a good value).
func TestPlanRanking_typedInputsCheckedFirst(t *testing.T) {
	sch := Schema{Name: "rich", Fields: []Field{
		{Name: "t", Type: "tensor<float>(x[4])", Indexing: "summary | attribute"},
	}, RankProfiles: []RankProfile{{
		Name:       "typed",
		FirstPhase: "sum(query(q) * attribute(t))",
		Inputs:     map[string]string{"query(q)": "", "query(w)": "1.0"},
		InputTypes: map[string]string{"query(q)": "tensor<float>(x[4])", "query(w)": "double"},
	}}}
	c := &memCorpus{schemas: []Schema{sch}, docs: []Document{doc("id:ns:rich::1", `{"t":[1,2,3,4]}`)}}
	yql := "select * from rich where true"
	bad := []string{"yql", yql, "ranking", "typed", "input.query(q)", "{{y:0}:1}"}
	get(t, c, bad...).wantError(t, bad, 400, 3,
		"Could not set 'ranking.features.query(q)' to '{{y:0}:1}': Could not parse '{{y:0}:1}' as a tensor of type tensor<float>(x[4]): tensor<float>(x[4]) does not contain dimension 'y'")
	badW := []string{"yql", yql, "ranking", "typed", "input.query(w)", "abc"}
	get(t, c, badW...).wantError(t, badW, 400, 3,
		"Could not set 'ranking.features.query(w)' to 'abc': Could not parse 'abc' as a tensor of type tensor(): Expected a number")
	good := []string{"yql", yql, "ranking", "typed", "input.query(q)", "[1,1,1,1]"}
	if r := get(t, c, good...); r.status != 501 {
		t.Errorf("a good input to a profile the emulator cannot evaluate: %d %s", r.status, r.body)
	}
}
