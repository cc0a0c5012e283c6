package search

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// memCorpus is a fake Corpus over a fixed slice of documents.
type memCorpus struct {
	schemas []Schema
	docs    []Document
	profile map[string]string // the default query profile's fields
}

func (m *memCorpus) Schemas() []Schema { return m.schemas }

func (m *memCorpus) DefaultQueryProfile() map[string]string { return m.profile }

func (m *memCorpus) Each(fn func(Document) bool) {
	for _, d := range m.docs {
		if !fn(d) {
			return
		}
	}
}

func doc(id, fields string) Document {
	parts := strings.Split(id, ":")
	return Document{ID: id, Type: parts[2], Fields: json.RawMessage(fields)}
}

var musicSchema = Schema{Name: "music", Fields: []Field{
	{Name: "artist", Type: "string", Indexed: true},
	{Name: "title", Type: "string", Indexed: true},
	{Name: "genre", Type: "string"},
	{Name: "year", Type: "int"},
	{Name: "tags", Type: "array<string>", Indexed: true},
	{Name: "labels", Type: "weightedset<string>"},
	{Name: "meta", Type: "map<string,int>"},
	{Name: "live", Type: "bool"},
	{Name: "emb", Type: "tensor<float>(x[2])", DistanceMetric: "euclidean"},
	{Name: "ang", Type: "tensor<float>(x[2])", DistanceMetric: "angular"},
	{Name: "dot", Type: "tensor<float>(x[2])", DistanceMetric: "dotproduct"},
}}

func musicCorpus() *memCorpus {
	return &memCorpus{
		schemas: []Schema{musicSchema, {Name: "book", Fields: []Field{{Name: "title", Type: "string", Indexed: true}}}},
		docs: []Document{
			doc("id:ns:music::a", `{"title":"A Head Full of Dreams","artist":"Coldplay","genre":"Pop","year":2015,"tags":["rock","live"],"labels":{"warner":1},"meta":{"plays":10},"live":true,"emb":[1,0],"ang":[1,0],"dot":{"values":[1,2]}}`),
			doc("id:ns:music::b", `{"artist":"Dreams Band","title":"Dreams dreams","genre":"pop rock","year":2001,"tags":["pop"],"meta":{"plays":3,"skips":12},"live":false,"emb":[0,1],"ang":[0,1],"dot":[3,0]}`),
			doc("id:ns:music::c", `{"artist":"Someone","title":"Head over heels","genre":"Jazz","year":1985,"emb":[3,4],"ang":[1,1],"dot":[0,0]}`),
			doc("id:ns:book::x", `{"title":"Dreams of a book"}`),
		},
	}
}

// response is a decoded /search/ answer.
type response struct {
	status int
	body   string
	Root   struct {
		Fields struct {
			TotalCount int `json:"totalCount"`
		} `json:"fields"`
		Coverage *struct {
			Documents int `json:"documents"`
		} `json:"coverage"`
		Errors []struct {
			Code    int    `json:"code"`
			Summary string `json:"summary"`
			Message string `json:"message"`
		} `json:"errors"`
		Children []struct {
			ID        string         `json:"id"`
			Relevance float64        `json:"relevance"`
			Source    string         `json:"source"`
			Fields    map[string]any `json:"fields"`
		} `json:"children"`
	} `json:"root"`
}

func (r *response) ids() []string {
	var out []string
	for _, c := range r.Root.Children {
		out = append(out, c.ID)
	}
	return out
}

// wantError checks that r is one error with this status and code whose
// message contains msg; kv names the request.
func (r *response) wantError(t *testing.T, kv []string, status, code int, msg string) {
	t.Helper()
	if r.status != status || len(r.Root.Errors) != 1 || r.Root.Errors[0].Code != code ||
		!strings.Contains(r.Root.Errors[0].Message, msg) {
		t.Errorf("%q: %d %s, want %d code %d containing %q", kv, r.status, r.body, status, code, msg)
	}
}

func get(t *testing.T, c Corpus, kv ...string) *response {
	t.Helper()
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return do(t, c, httptest.NewRequest(http.MethodGet, "/search/?"+q.Encode(), nil))
}

func post(t *testing.T, c Corpus, rawQuery, body string) *response {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/search/?"+rawQuery, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return do(t, c, r)
}

func do(t *testing.T, c Corpus, r *http.Request) *response {
	t.Helper()
	w := httptest.NewRecorder()
	NewHandler(c).ServeHTTP(w, r)
	body, _ := io.ReadAll(w.Body)
	res := &response{status: w.Code, body: string(body)}
	if err := json.Unmarshal(body, res); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, body)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	return res
}
