package query

import (
	"encoding/json"
	"errors"
	"testing"
)

func FuzzDecodeResult(f *testing.F) {
	f.Add([]byte(`{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":1},"children":[{"id":"a","relevance":"NaN","fields":{"x":1}}]}}`))
	f.Add([]byte(`{"root":{"errors":[{"code":0,"summary":"No backends in service. Try later"}]}}`))
	f.Add([]byte(`{"trace":{"children":[]},"root":{"children":[{"id":"group:root:0","children":[{"id":"grouplist:a","label":"a","children":[{"id":"group:long:1","value":1,"limits":{"from":1,"to":"2"}}]}]}]}}`))
	f.Add([]byte(`{"root":{"children":[{"id":"g","children":[{"id":"h","children":[]}]}]}}`))
	f.Add([]byte(`<html>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := DecodeResult(body)
		if err != nil {
			if !errors.Is(err, ErrMalformedResponse) {
				t.Fatalf("error %v is not ErrMalformedResponse", err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("invalid JSON decoded: %q", body)
		}
		for i := range r.Hits {
			var m map[string]any
			_ = r.Hits[i].Decode(&m)
			_, _ = r.Hits[i].Aggregate("count()")
		}
		for i := range r.Groups {
			_ = r.Groups[i].List("a")
		}
		_ = r.Err()
		_ = r.Coverage.IsDegraded()
	})
}
