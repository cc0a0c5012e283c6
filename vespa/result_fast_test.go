package vespa

import (
	"encoding/json"
	"testing"
)

func TestDecodeStringsFast(t *testing.T) {
	cases := []struct {
		body string
		ok   bool
		want responseBody
	}{
		{`{"pathId":"/document/v1/ns/music/docid/1","id":"id:ns:music::1"}`, true,
			responseBody{PathID: "/document/v1/ns/music/docid/1", ID: "id:ns:music::1"}},
		{" {\n \"pathId\" : \"/p\" ,\"message\":\"Rejecting execution due to overload\" }\n", true,
			responseBody{PathID: "/p", Message: "Rejecting execution due to overload"}},
		{`{}`, true, responseBody{}},
		{`{"id":"id:ns:t::é"}`, true, responseBody{ID: "id:ns:t::é"}},
		{`{"id":"a\"b"}`, false, responseBody{}},                     // an escape
		{`{"PathId":"/p"}`, false, responseBody{}},                   // encoding/json matches keys case-insensitively
		{`{"pathId":"/p","fields":{"a":1}}`, false, responseBody{}},  // a member that is no string
		{`{"pathId":"/p","documentCount":3}`, false, responseBody{}}, // an unknown key
		{`{"pathId":"/p"} x`, false, responseBody{}},                 // trailing data
		{`{"pathId":"/p",}`, false, responseBody{}},                  // a trailing comma
		{"{\"id\":\"\xff\"}", false, responseBody{}},                 // not UTF-8
		{`<html>502</html>`, false, responseBody{}},                  // not JSON
		{`{"pathId":"/p"`, false, responseBody{}},                    // truncated
		{"{\"message\":\"line\nbreak\"}", false, responseBody{}},     // a raw control character
		{`{"id":"a","id":"b"}`, true, responseBody{ID: "b"}},         // the last duplicate wins, as in encoding/json
		{`{"pathId":"/p","message":"x","id":"id:a:b::c"}`, true, responseBody{PathID: "/p", Message: "x", ID: "id:a:b::c"}},
	}
	for _, tc := range cases {
		var rb responseBody
		ok := decodeStringsFast([]byte(tc.body), &rb)
		if ok != tc.ok {
			t.Errorf("decodeStringsFast(%q) ok = %v, want %v", tc.body, ok, tc.ok)
			continue
		}
		if ok && (rb.PathID != tc.want.PathID || rb.ID != tc.want.ID || rb.Message != tc.want.Message) {
			t.Errorf("decodeStringsFast(%q) = %+v, want %+v", tc.body, rb, tc.want)
		}
	}
}

// FuzzDecodeStringsFast checks the fast path against encoding/json: where
// it accepts a body, json.Unmarshal accepts it too and gives the same values.
func FuzzDecodeStringsFast(f *testing.F) {
	for _, s := range []string{
		`{"pathId":"/document/v1/ns/music/docid/1","id":"id:ns:music::1"}`,
		`{"pathId":"/p","message":"x"}`, `{}`, ` { "id" : "é" } `, `{"id":"a\u0041"}`, `{"ID":"x"}`,
		`{"pathId":"/p","fields":{}}`, `[]`, `"x"`, `{"id":"a","id":"b"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var fast responseBody
		if !decodeStringsFast(body, &fast) {
			return
		}
		var slow responseBody
		if err := json.Unmarshal(body, &slow); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json rejects it: %v", body, err)
		}
		if fast.PathID != slow.PathID || fast.ID != slow.ID || fast.Message != slow.Message || slow.Trace != nil || slow.Fields != nil {
			t.Fatalf("fast path gave %+v for %q, encoding/json %+v", fast, body, slow)
		}
	})
}
