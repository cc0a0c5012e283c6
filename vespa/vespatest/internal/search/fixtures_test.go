package search

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
)

// keyOrder returns every object's key sequence, by JSON path, in document order.
func keyOrder(t *testing.T, body []byte) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	var walk func(path string, v json.RawMessage)
	walk = func(path string, v json.RawMessage) {
		v = bytes.TrimSpace(v)
		if len(v) == 0 {
			return
		}
		switch v[0] {
		case '{':
			dec := json.NewDecoder(bytes.NewReader(v))
			_, _ = dec.Token()
			for dec.More() {
				k, _ := dec.Token()
				var sub json.RawMessage
				if err := dec.Decode(&sub); err != nil {
					t.Fatal(err)
				}
				key := k.(string)
				out[path] = append(out[path], key)
				walk(path+"."+key, sub)
			}
		case '[':
			var arr []json.RawMessage
			_ = json.Unmarshal(v, &arr)
			for _, e := range arr {
				walk(path+"[]", e)
			}
		}
	}
	walk("", body)
	return out
}

// TestFixtures_QueryErrors runs the /search/ cases of errors.json that do not need a custom
// searcher against the handler and compares status and body as each case's body_match says.
func TestFixtures_QueryErrors(t *testing.T) {
	skipped := map[string]string{
		"query-web-service-error-code-406": "needs a custom searcher that adds a 406 error",
		"query-no-backends-503":            "needs a content cluster without nodes",
	}
	ran := 0
	for _, c := range testutil.LoadFixtureCases(t, "errors.json") {
		if !strings.HasPrefix(c.Request.Path, "/search/") {
			continue
		}
		if why, ok := skipped[c.Name]; ok {
			t.Logf("skip %s: %s", c.Name, why)
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			ran++
			var body string
			if len(c.Request.Body) > 0 {
				if err := json.Unmarshal(c.Request.Body, &body); err != nil {
					body = string(c.Request.Body) // a JSON object body
				}
			}
			r := httptest.NewRequest(c.Request.Method, "/search/?"+strings.ReplaceAll(c.Request.RawQuery, " ", "%20"), strings.NewReader(body))
			w := httptest.NewRecorder()
			NewHandler(musicCorpus()).ServeHTTP(w, r)
			if c.Status != nil && w.Code != *c.Status {
				t.Errorf("status %d, want %d: %s", w.Code, *c.Status, w.Body)
			}
			got := w.Body.String()
			switch c.BodyMatch {
			case "contains":
				for _, s := range c.ResponseContains {
					if !strings.Contains(got, s) {
						t.Errorf("body %s does not contain %q", got, s)
					}
				}
			case "subset":
				var want, have any
				_ = json.Unmarshal(c.ResponseBody, &want)
				_ = json.Unmarshal([]byte(got), &have)
				if !testutil.Subset(want, have) {
					t.Errorf("body %s is not a superset of %s", got, c.ResponseBody)
				}
				wantOrder, haveOrder := keyOrder(t, c.ResponseBody), keyOrder(t, []byte(got))
				for path, keys := range wantOrder {
					if !strings.Contains(strings.Join(haveOrder[path], ","), strings.Join(keys, ",")) {
						t.Errorf("keys at %q: %v, want %v in this order", path, haveOrder[path], keys)
					}
				}
			}
		})
	}
	if ran == 0 {
		t.Fatal("no /search/ case ran")
	}
}

// TestFixtures_ResultShape seeds the documented hit of query.json and compares the rendered
// result with it: same key order everywhere, same values except relevance and the tensor field
// (the emulator's relevance is its own; the fixture shows an old long-form tensor).
func TestFixtures_ResultShape(t *testing.T) {
	fx := testutil.FixtureCaseNamed(t, "query.json", "doc-query-result-with-hit")
	corpus := &memCorpus{docs: []Document{doc("id:mynamespace:music::a-head-full-of-dreams",
		`{"artist":"Coldplay","album":"A Head Full of Dreams","year":2015,"category_scores":{"cells":[{"address":{"cat":"pop"},"value":1.0},{"address":{"cat":"rock"},"value":0.20000000298023224},{"address":{"cat":"jazz"},"value":0.0}]}}`)}}
	// The fixture's coverage says 3 documents; seed two more of another type so the count agrees.
	corpus.docs = append(corpus.docs, doc("id:n:other::1", `{}`), doc("id:n:other::2", `{}`))
	r := get(t, corpus, "yql", "select * from music where true")
	if r.status != *fx.Status {
		t.Fatalf("status %d", r.status)
	}
	wantOrder, haveOrder := keyOrder(t, fx.ResponseBody), keyOrder(t, []byte(r.body))
	for path, keys := range wantOrder {
		if strings.Join(haveOrder[path], ",") != strings.Join(keys, ",") {
			t.Errorf("keys at %q: %v, want %v", path, haveOrder[path], keys)
		}
	}
	var want, have map[string]any
	_ = json.Unmarshal(fx.ResponseBody, &want)
	_ = json.Unmarshal([]byte(r.body), &have)
	for _, m := range []map[string]any{want, have} {
		hit := m["root"].(map[string]any)["children"].([]any)[0].(map[string]any)
		delete(hit, "relevance")
	}
	if !testutil.Subset(want, have) || !testutil.Subset(have, want) {
		t.Errorf("result\n got %s\nwant %s", r.body, fx.ResponseBody)
	}
}

// TestFixtures_ErrorShape checks that an error result is written as the fixtures show error-only
// results: id, relevance, fields.totalCount 0 and errors with code, summary, message.
func TestFixtures_ErrorShape(t *testing.T) {
	fx := testutil.FixtureCaseNamed(t, "errors.json", "query-timeout-504-code-12")
	var compact bytes.Buffer
	_ = json.Compact(&compact, fx.ResponseBody)
	res := errorResult(*timeoutError(1e6))
	if got := string(res.render()); got != compact.String() {
		t.Errorf("\n got %s\nwant %s", got, compact.String())
	}
}
