package schema

import "testing"

// TestFieldType_Normalize_objects covers the two object-valued kinds: a weighted set's weights
// become integers, a map's values are normalized as its value type, a member without a value is
// dropped, and an object left empty is "no value".
func TestFieldType_Normalize_objects(t *testing.T) {
	checkNormalize(t, []normalizeCase{
		{"weightedset<string>", `{"a":1,"b":"2","c":3.0}`, `{"a":1,"b":2,"c":3}`, ""},
		{"weightedset<string>", `{}`, "", ""},
		{"weightedset<string>", `["a"]`, "", `expected a weighted set object, got ["a"]`},
		{"weightedset<string>", `{"a":1,"b":"x"}`, "", `weight of "b": For input string: "x"`},
		{"map<string,int>", `{"x":"7","y":8}`, `{"x":7,"y":8}`, ""},
		{"map<string,string>", `{"x":"","y":"z"}`, `{"y":"z"}`, ""},
		{"map<string,string>", `{"x":""}`, "", ""},
		{"map<string,int>", `[1]`, "", "expected a map object, got [1]"},
		{"map<string,int>", `{"x":"q"}`, "", `For input string: "q"`},
	})
}

// normalizeCase is a value of a type and what Normalize makes of it.
type normalizeCase struct {
	typ, in string
	want    string // the stored value, "" for no value
	err     string // the error's text, "" for none
}

func checkNormalize(t *testing.T, cases []normalizeCase) {
	t.Helper()
	for _, c := range cases {
		ft, err := ParseFieldType(c.typ)
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		got, ok, err := ft.Normalize([]byte(c.in))
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if string(got) != c.want || ok != (c.want != "") || gotErr != c.err {
			t.Errorf("%s %s: %s, %v, %q; want %s, %v, %q", c.typ, c.in, got, ok, gotErr, c.want, c.want != "", c.err)
		}
	}
}
