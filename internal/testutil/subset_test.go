package testutil

import (
	"encoding/json"
	"testing"
)

func TestSubset(t *testing.T) {
	var have any
	if err := json.Unmarshal([]byte(`{"a":1,"b":[{"c":"x","d":true}],"e":null}`), &have); err != nil {
		t.Fatal(err)
	}
	for want, ok := range map[string]bool{
		`{}`: true, `{"a":1}`: true, `{"b":[{"c":"x"}]}`: true, `{"e":null}`: true,
		`{"a":2}`: false, `{"b":[]}`: false, `{"z":1}`: false, `{"b":[{"c":"y"}]}`: false, `[1]`: false,
	} {
		var w any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		if Subset(w, have) != ok {
			t.Errorf("Subset(%s) = %v, want %v", want, !ok, ok)
		}
	}
}
