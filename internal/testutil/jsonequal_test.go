package testutil

import "testing"

func TestJSONEqual(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[true,null]}`, `{ "b" : [true, null], "a" : 1.0 }`, true},
		{`"é"`, `"\u00e9"`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{`{"a":1}`, `{"a":1} x`, false},
		{``, ``, false},
		{`nul`, `nul`, false},
	} {
		if got := JSONEqual([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("JSONEqual(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := JSONEqual([]byte(c.b), []byte(c.a)); got != c.want {
			t.Errorf("JSONEqual(%s, %s) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}
