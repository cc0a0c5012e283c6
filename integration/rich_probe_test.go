package integration

import (
	"testing"
)

func TestRichProbe(t *testing.T) {
	bad := []string{
		`{"f_struct": {"nope": 1}}`,
		`{"f_struct": {"age": "x"}}`,
		`{"f_array_struct": [{"nope": 1}]}`,
		`{"f_map_struct": {"a": {"age": "x"}}}`,
		`{"f_predicate": "a in"}`,
		`{"f_raw": "!!notbase64"}`,
		`{"f_ref": "id:rich:rich::x"}`,
		`{"f_ref": "not an id"}`,
		`{"f_position": {"lat": "x"}}`,
		`{"f_position": "N37.4;W121.9"}`,
		`{"f_position": {"x": 1, "y": 2}}`,
		`{"t_float": [1, 2]}`,
		`{"t_mapped": {"cells": [{"address": {"nope": "a"}, "value": 1}]}}`,
		`{"f_wset_string": {"a": "x"}}`,
		`{"f_array_int": ["x"]}`,
		`{"f_map": {"k": 1}}`,
		`{"f_byte": 300}`,
		`{"f_int": 3000000000}`,
		`{"f_bool": "yes"}`,
		`{"f_uri": 5}`,
		`{"f_wset_string": ["a", "b"]}`,
		`{"f_map": [{"key": "k", "value": "v"}]}`,
	}
	forEachAppTarget(t, richAppDir, func(t *testing.T, tg Target) {
		r := newRawAPI(t, tg)
		for _, b := range bad {
			a, _ := r.do(t.Context(), "POST", docPath("rich", "rich", "bad"), `{"fields":`+b+`}`)
			t.Logf("PUT %s => %d %s", b, a.Status, a.Body)
			if a.Status == 200 {
				g, _ := r.do(t.Context(), "GET", docPath("rich", "rich", "bad"), "")
				t.Logf("   GET => %s", g.Body)
			}
		}
	})
}
