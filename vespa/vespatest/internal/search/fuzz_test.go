package search

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

var yqlSeeds = []string{
	`select * from sources * where true`,
	`select title, year from music where title contains "a" and year > 2000 or !(year < 10) order by year desc limit 10 offset 2 timeout 100`,
	`select * from music where {targetHits: 10}nearestNeighbor(emb, q)`,
	`select * from music where m contains sameElement(key contains "k", value > 3)`,
	`select * from music where title contains phrase("a", "b") and range(year, -Infinity, 5)`,
	`select * from music where {grammar:"all", defaultIndex:"title"}userInput(@q) and userQuery()`,
	`select * from music where {targetHits:3}weakAnd(a contains 'x\'', b contains "y\u00e6")`,
	`select * from music where year in (1, 2) and rank(a contains "x", b = true)`,
	`select * from music where true | all(group(a) each(output(count())))`,
	`select * from music where true | all(group(genre) max(2) order(-count()) each(output(count(), sum(year) as(s)) max(1) each(output(summary())) as(top)))`,
	`select * from music where true | all(group(predefined(year, bucket(0, 2000), bucket(2000, 3000))) each(output(avg(year), min(year), max(relevance()))))`,
	`select * from music where true | all(group(genre) each(output(count()) all(group(live) max(inf) each(output(count()))))) | each(output(summary()))`,
	`select * from music where true | all(group(")") each(output(count() as("a"b"))))`,
	`select * from music where {a:[1,{b:"c"}]}(x contains "y")`,
}

// FuzzParseYQL checks that no input makes the parser panic, and that what parses is accepted
// by the evaluator without panicking either.
func FuzzParseYQL(f *testing.F) {
	for _, s := range yqlSeeds {
		f.Add(s)
	}
	c := musicCorpus()
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseYQL(s)
		if err != nil {
			if st != nil {
				t.Fatal("a statement with an error")
			}
			return
		}
		if st.where == nil {
			t.Fatal("a statement without a where clause")
		}
		q := url.Values{"yql": {s}, "input.query(q)": {"[1,2]"}, "query": {"a"}, "q": {"b"}}
		w := httptest.NewRecorder()
		NewHandler(c).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/search/?"+q.Encode(), nil))
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("invalid JSON for %q: %s", s, w.Body)
		}
	})
}

// FuzzHandlerPOST checks that no POST body makes the handler panic or write invalid JSON.
func FuzzHandlerPOST(f *testing.F) {
	f.Add(`{"yql":"select * from music where userQuery()","query":"dreams -band","ranking":{"profile":"p"},"hits":"3"}`)
	f.Add(`{"yql":"select * from music where {targetHits:2}nearestNeighbor(emb,q)","input":{"query(q)":{"values":[1,2]}}}`)
	f.Add(`{"query":"+a \"b c\" year:[1;2] x:>3","type":"all","timeout":"5s"}`)
	f.Add(`[1,2]`)
	c := musicCorpus()
	f.Fuzz(func(t *testing.T, body string) {
		w := httptest.NewRecorder()
		NewHandler(c).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/search/", strings.NewReader(body)))
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("invalid JSON for %q: %s", body, w.Body)
		}
	})
}

// FuzzDocView checks the field splitter against encoding/json: for every valid JSON object it
// finds the same keys in the same order with the same values, and it never panics.
func FuzzDocView(f *testing.F) {
	f.Add(`{"a":1,"b":"x\"}","c":[1,{"d":"]"}],"e":null,"f":true}`)
	f.Add(` { "k" : -1.5e3 } `)
	f.Add(`{}`)
	f.Add(`[1]`)
	f.Fuzz(func(t *testing.T, s string) {
		v := newDocView(Document{Fields: json.RawMessage(s)}).ensure()
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &obj) != nil || obj == nil {
			return
		}
		if len(v.names) == 0 && len(obj) > 0 {
			t.Fatalf("no fields found in %q", s)
		}
		for i, n := range v.names {
			var a, b any
			_ = json.Unmarshal(obj[n], &a) // obj came from json.Unmarshal: its values are valid
			if err := json.Unmarshal(v.raws[i], &b); err != nil {
				t.Fatalf("field %q of %q: raw %q: %v", n, s, v.raws[i], err)
			}
			if fmt.Sprint(a) != fmt.Sprint(b) && len(v.names) == len(obj) {
				t.Fatalf("field %q of %q: %v != %v", n, s, b, a)
			}
		}
	})
}

// FuzzGrouping checks that no grouping text makes the grouping parser or evaluator panic, and
// that every answer is valid JSON.
func FuzzGrouping(f *testing.F) {
	for _, s := range []string{
		"all(group(genre) each(output(count())))",
		"all(group(genre) max(2) order(-count(), sum(year)) each(output(avg(year) as(a)) max(1) each(output(summary())) as(t)))",
		"all(group(predefined(year, bucket(0, 2000), bucket[2000, 3000>)) each(output(min(year), max(relevance()))))",
		"each(output(summary())) as(hits)",
		`all(group("x\u0029") each(output(count() as('a\'b'))))`,
		"all(group(live) max(inf) precision(10) each(output(count()) all(group(genre) each(output(count())))))",
	} {
		f.Add(s)
	}
	c := musicCorpus()
	f.Fuzz(func(t *testing.T, g string) {
		if op, err := parseGrouping(g); err == nil && op == nil {
			t.Fatal("no operation and no error")
		}
		q := url.Values{"yql": {"select * from music where true | " + g}}
		w := httptest.NewRecorder()
		NewHandler(c).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/search/?"+q.Encode(), nil))
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("invalid JSON for %q: %s", g, w.Body)
		}
	})
}
