package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzCheckPut: any bytes given as a put's or an update's fields give nil
// or a *CheckError, never a panic nor an endless scan.
func FuzzCheckPut(f *testing.F) {
	s, err := Parse("f.sd", []byte(`schema m { document m {
        field s type string { indexing: summary }
        field i type int { indexing: attribute }
        field a type array<int> { indexing: attribute }
        field w type weightedset<string> { indexing: attribute }
        field mp type map<string, array<int>> { indexing: summary }
        field t type tensor<int8>(x[2], cat{}) { indexing: attribute }
        field d type tensor<float>(x[3]) { indexing: attribute }
        field st type pair { indexing: summary }
        field p type position { indexing: attribute }
        field r type raw { indexing: summary }
        field b type bool { indexing: attribute }
        struct pair { field k type string {} field v type long {} } } }`))
	if err != nil {
		f.Fatal(err)
	}
	a, err := NewApplication(s)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"s":"x","i":1,"a":[1,2],"w":{"a":1},"mp":{"k":[1]}}`,
		`{"t":{"cells":[{"address":{"x":"1","cat":"a"},"value":3}]}}`,
		`{"d":[1,2,3]}`, `{"d":{"values":[[1],[2,3]]}}`, `{"st":{"k":"a","v":"9"}}`,
		`{"i":{"increment":1}}`, `{"a":[1,`, `{"s":"\u00e9\"x"}`, `[]`, `{"d":"0011aabb"}`,
		`{"p":{"lat":1,"lng":"2d"},"r":"aGVs bG8=","b":"TRUE"}`, `{"d":{"values":"3f800000"},"t":{"cells":2}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, fields []byte) {
		for _, check := range []func(string, []byte) error{a.CheckPut, a.CheckUpdate} {
			err := check("m", fields)
			var ce *CheckError
			if err != nil && !errors.As(err, &ce) {
				t.Fatalf("%q: %v is not a *CheckError", fields, err)
			}
		}
	})
}

// FuzzFlatNumbers: the count of a flat array of numbers (the dense
// tensor's hot path) agrees with encoding/json on every flat array of
// numbers that is JSON, and takes nothing else that is JSON for one; what
// it takes that is not JSON ("[1,,2]") is Vespa's to refuse.
func FuzzFlatNumbers(f *testing.F) {
	for _, seed := range []string{
		`[1,2,3]`, ` [ -0.5 , 1e3,2E-7 ] `, `[]`, `[ ]`, `[01]`, `[1.]`, `[1,]`, `[-]`, `[1e]`, `[0.12345678901234,-98765432109876]`,
		"[1,\n2]", `[1 2]`, `[1]x`, `["1"]`, `[[1]]`, `[1,2`, `[12345678,123456789e+12345678]`, `[true]`, `[null]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		n, ok := flatNumbers(v)
		var elems []json.RawMessage
		want := json.Unmarshal(v, &elems) == nil && elems != nil
		for _, e := range elems {
			want = want && isJSONNumber(bytes.TrimSpace(e))
		}
		switch {
		case want && (!ok || n != len(elems)):
			t.Fatalf("flatNumbers(%q) = %d, %v; want %d numbers", v, n, ok, len(elems))
		case ok && !want && json.Valid(v):
			t.Fatalf("flatNumbers(%q) = %d, true for JSON that is no flat array of numbers", v, n)
		}
	})
}
