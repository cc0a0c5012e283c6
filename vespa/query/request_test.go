package query

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// vespaReadsPost reads a POST body as Vespa's Json2SingleLevelMap
// (container-search com/yahoo/search/handler) does: scalars by their text
// (a string without its quotes, a number as written), arrays as their JSON
// text, objects under input.* and at select.where / select.grouping as their
// JSON text, and every other object flattened into dotted names.
func vespaReadsPost(t *testing.T, body []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(prefix string, raw json.RawMessage)
	walk = func(prefix string, raw json.RawMessage) {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
		for k, v := range obj {
			name := prefix + k
			v = bytes.TrimSpace(v)
			switch v[0] {
			case '{':
				if strings.HasPrefix(name, "input.") || name == "select.where" || name == "select.grouping" {
					out[name] = string(v)
				} else {
					walk(name+".", v)
				}
			case '[':
				out[name] = string(v)
			case '"':
				var s string
				_ = json.Unmarshal(v, &s)
				out[name] = s
			default:
				out[name] = string(v)
			}
		}
	}
	walk("", body)
	return out
}

func TestRequest_GetAndPostMeanTheSameParameters(t *testing.T) {
	cases := []struct {
		name string
		req  Request
		want map[string]string // a subset of what Vespa must read
	}{
		{"nested objects flatten", Request{Params: map[string]any{
			"ranking": map[string]any{"matching": map[string]any{"numThreadsPerSearch": 2}, "softtimeout": map[string]any{"enable": false}},
			"model":   map[string]any{"restrict": "music", "defaultIndex": "title"},
		}}, map[string]string{"ranking.matching.numThreadsPerSearch": "2", "ranking.softtimeout.enable": "false",
			"model.restrict": "music", "model.defaultIndex": "title"}},
		{"ranking.features objects are tensors, not names", Request{Params: map[string]any{
			"ranking.features.query(w)": map[string]any{"a": 1, "b": 2.5},
			"ranking.features.query(s)": 0.5,
		}}, map[string]string{"ranking.features.query(w)": `{"a":1,"b":2.5}`, "ranking.features.query(s)": "0.5"}},
		{"nested ranking.features", Request{Params: map[string]any{
			"ranking": map[string]any{"features": map[string]any{"query(w)": map[string]float64{"x": 1}, "query(s)": 3}},
		}}, map[string]string{"ranking.features.query(w)": `{"x":1}`, "ranking.features.query(s)": "3"}},
		{"rankfeature objects are tensors", Request{Params: map[string]any{
			"rankfeature.query(w)": json.RawMessage(`{"a": 1}`),
			"rankfeature":          map[string]any{"query(n)": 7},
		}}, map[string]string{"rankfeature.query(w)": `{"a":1}`, "rankfeature.query(n)": "7"}},
		{"input objects stay JSON", Request{Params: map[string]any{
			"input": map[string]any{"query(m)": map[string]any{"cells": []any{map[string]any{"address": map[string]any{"x": "a"}, "value": 1}}}},
		}, Inputs: map[string]any{"q": []float32{1, 2.5}, "w": map[string]float64{"a": 1}, "t": "[1,2]", "r": json.RawMessage(`[3, 4]`)}},
			map[string]string{"input.query(m)": `{"cells":[{"address":{"x":"a"},"value":1}]}`, "input.query(q)": "[1,2.5]",
				"input.query(w)": `{"a":1}`, "input.query(t)": "[1,2]", "input.query(r)": "[3,4]"}},
		{"select.where and select.grouping stay JSON", Request{Params: map[string]any{
			"select": map[string]any{"where": map[string]any{"contains": []any{"title", "a"}}, "grouping": map[string]any{"all": 1}},
		}}, map[string]string{"select.where": `{"contains":["title","a"]}`, "select.grouping": `{"all":1}`}},
		{"other select objects flatten", Request{Params: map[string]any{
			"select": map[string]any{"groupingSessionCache": false},
		}}, map[string]string{"select.groupingSessionCache": "false"}},
		{"structs encode as objects", Request{Params: map[string]any{
			"presentation": struct {
				Bolding bool   `json:"bolding"`
				Format  string `json:"format"`
			}{true, "json"},
		}}, map[string]string{"presentation.bolding": "true", "presentation.format": "json"}},
		{"scalars as written", Request{Params: map[string]any{
			"a": 1e6, "b": int64(1) << 53, "c": json.Number("1.50"), "d": true, "e": json.RawMessage(`"text"`),
			"f": float32(0.1), "g": uint8(7), "h": []string{"x", "y"},
		}}, map[string]string{"a": "1000000", "b": "9007199254740992", "c": "1.50", "d": "true", "e": "text",
			"f": "0.1", "g": "7", "h": `["x","y"]`}},
		{"typed fields win over params", Request{Ranking: "typed", Hits: 3, Params: map[string]any{
			"ranking": map[string]any{"profile": "param"}, "hits": 9,
		}}, map[string]string{"ranking.profile": "typed", "hits": "3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, err := tc.req.body()
			if err != nil {
				t.Fatal(err)
			}
			post := vespaReadsPost(t, body)
			vals, err := tc.req.values()
			if err != nil {
				t.Fatal(err)
			}
			get := map[string]string{}
			for k, v := range vals {
				get[k] = v[0]
			}
			if !maps.Equal(post, get) {
				t.Errorf("POST and GET differ\nPOST %v\n GET %v\nbody %s", post, get, body)
			}
			for k, v := range tc.want {
				if post[k] != v {
					t.Errorf("Vespa reads %s=%q from the POST, want %q (body %s)", k, post[k], v, body)
				}
			}
		})
	}
}

func TestRequest_EncodingErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  Request
		want string
	}{
		{"a name flat and nested", Request{Params: map[string]any{"ranking.profile": "a", "ranking": map[string]any{"profile": "b"}}}, `"ranking.profile" is given twice`},
		{"nil leaf", Request{Params: map[string]any{"model": map[string]any{"restrict": nil}}}, `"model.restrict" is nil`},
		{"empty key", Request{Params: map[string]any{"model": map[string]any{"": 1}}}, "empty key"},
		{"bad raw JSON", Request{Params: map[string]any{"x": json.RawMessage(`{"a":`)}}, `parameter "x"`},
		{"nil input", Request{Inputs: map[string]any{"q": nil}}, `input "q" is nil`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, get := range []bool{false, true} {
				var err error
				if get {
					_, err = tc.req.values()
				} else {
					_, err = tc.req.body()
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("GET %v: error %v, want one containing %s", get, err, tc.want)
				}
			}
		})
	}
}
