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
// chain's id), a predicate is in document's C++ PredicatePrinter form and
// ends with a newline (PredicateFieldValue::toString, slime_filler.cpp), a
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
		"p":  `"('gender' in ['Female'] and 'age' in [20..30])\n"`,
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

// A hit leaves out what the docsum holds as undefined and writes an unset
// bool attribute as false, as the content node's docsum writers do
// (searchsummary SingleAttrDFW: an integer attribute holding its type's
// smallest value is left out, isDefaultValue, and a bool attribute has no
// undefined value, so a document without it holds 0, false;
// check_undefined_value_visitor.cpp: empty raw is left out). Only
// attributes: an integer summary field that is not one is written whatever
// it holds, and a bool that is not one is left out when unset. The
// integration suite's TestRich_RoundTrip checks the same against the JDisc
// harness.
func TestRenderHit_attributeDefaultsAndUndefinedValues(t *testing.T) {
	// A field without an indexing statement is "summary | attribute", or
	// "summary | index" when Indexed.
	sch := Schema{Name: "rich", Fields: []Field{
		{Name: "s", Type: "string", Indexed: true},
		{Name: "b", Type: "bool"}, {Name: "bs", Type: "bool", Indexing: "summary"},
		{Name: "i", Type: "int"}, {Name: "l", Type: "long"}, {Name: "by", Type: "byte"},
		{Name: "is", Type: "int", Indexing: "summary"}, {Name: "r", Type: "raw", Indexing: "summary"},
	}}
	c := &memCorpus{schemas: []Schema{sch}, docs: []Document{
		doc("id:ns:rich::min", `{"s":"min","i":-2147483648,"l":-9223372036854775808,"by":-128,"is":-2147483648,"r":""}`),
		doc("id:ns:rich::set", `{"s":"set","b":true,"bs":true,"i":-2147483647,"l":-5,"by":-127,"is":1,"r":"AAEC"}`),
	}}
	for _, q := range []struct {
		term string
		want map[string]string // field → JSON; every other field absent
	}{
		{"min", map[string]string{"s": `"min"`, "b": `false`, "is": `-2147483648`}},
		{"set", map[string]string{"s": `"set"`, "b": `true`, "bs": `true`, "i": `-2147483647`,
			"l": `-5`, "by": `-127`, "is": `1`, "r": `"AAEC"`}},
	} {
		r := get(t, c, "yql", `select * from rich where s contains "`+q.term+`"`)
		if r.status != 200 || len(r.Root.Children) != 1 {
			t.Fatalf("%s: status %d: %s", q.term, r.status, r.body)
		}
		fields := r.Root.Children[0].Fields
		for _, name := range []string{"s", "b", "bs", "i", "l", "by", "is", "r"} {
			v, present := fields[name]
			want, expected := q.want[name]
			got, _ := json.Marshal(v)
			if present != expected || (expected && string(got) != want) {
				t.Errorf("%s: %s = %s (present %v), want %s (present %v)", q.term, name, got, present, want, expected)
			}
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
