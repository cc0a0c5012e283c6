package query

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
)

// fixtureResult decodes the named search fixture.
func fixtureResult(t *testing.T, name string) *Result {
	t.Helper()
	for _, c := range searchCases(t) {
		if c.Name == name {
			r, err := DecodeResult(c.body())
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("no fixture %q", name)
	return nil
}

func TestDecodeResult_HitsGroupsCoverageError(t *testing.T) {
	r := fixtureResult(t, "render-hits-groups-coverage-error")
	if len(r.Hits) != 3 {
		t.Fatalf("hits %+v", r.Hits)
	}
	if r.Hits[0].ID != "http://localhost/1" || r.Hits[0].Relevance != 0.9 || r.Hits[0].Types[0] != "summary" {
		t.Errorf("hit 0 from the nested hit group: %+v", r.Hits[0])
	}
	if r.Hits[1].Types[0] != "grouphit" || r.Hits[2].ID != "http://localhost/" {
		t.Errorf("hits 1 and 2: %+v", r.Hits[1:])
	}
	var f struct{ B string }
	if err := r.Hits[2].Decode(&f); err != nil || f.B != "foo" {
		t.Errorf("decode: %v %+v", err, f)
	}
	if len(r.Errors) != 1 || r.Errors[0].Code != CodeInternalServerError || r.Errors[0].Message != "boom" {
		t.Errorf("errors %+v", r.Errors)
	}
	if r.Coverage == nil || r.Coverage.Documents != 500 || !r.Coverage.Full || r.Coverage.IsDegraded() {
		t.Errorf("coverage %+v", r.Coverage)
	}
	err := r.Err()
	if err == nil {
		t.Fatal("Err() = nil for a result with errors")
	}
}

func TestDecodeResult_DegradedCoverage(t *testing.T) {
	for name, want := range map[string]Degraded{
		"render-coverage-degraded-matchphase-adaptive": {MatchPhase: true, AdaptiveTimeout: true},
		"render-coverage-degraded-anntimeout":          {MatchPhase: true, AdaptiveTimeout: true, AnnTimeout: true},
		"doc-graceful-degradation-timeout-coverage":    {Timeout: true},
	} {
		r := fixtureResult(t, name)
		if !r.Coverage.IsDegraded() || r.Coverage.Degraded == nil || *r.Coverage.Degraded != want || r.Coverage.Full {
			t.Errorf("%s: coverage %+v degraded %+v, want %+v", name, r.Coverage, r.Coverage.Degraded, want)
		}
	}
	r := fixtureResult(t, "render-coverage-degraded-matchphase-adaptive")
	if r.Coverage.Percent != 83 || r.Coverage.ResultsFull != 0 || r.Coverage.Nodes != 1 {
		t.Errorf("coverage %+v", r.Coverage)
	}
	if r := fixtureResult(t, "doc-graceful-degradation-timeout-coverage"); r.TotalCount != 16469732 || r.Coverage.Documents != 167006201 {
		t.Errorf("%+v", r)
	}
}

func TestDecodeResult_Grouping(t *testing.T) {
	r := fixtureResult(t, "doc-query-grouping-with-trace")
	if len(r.Hits) != 0 || len(r.Groups) != 1 || len(r.Trace) == 0 || r.TotalCount != 20 {
		t.Fatalf("hits %d groups %d trace %s", len(r.Hits), len(r.Groups), r.Trace)
	}
	g := r.Groups[0]
	if !g.IsGroup() || g.Continuation["this"] != "" {
		t.Errorf("root group %+v", g)
	}
	list := g.List("customer")
	if list == nil || !list.IsGroupList() || len(list.Children) != 3 {
		t.Fatalf("list %+v", list)
	}
	jones := list.Children[0]
	if jones.Value != "Jones" || jones.Relevance != 9870 {
		t.Errorf("jones %+v", jones)
	}
	if v, ok := jones.Aggregate("sum(price)"); !ok || v != 39816 {
		t.Errorf("sum(price) = %v, %v", v, ok)
	}
	if _, ok := jones.Aggregate("count()"); ok {
		t.Error("absent aggregate reported present")
	}
	if g.List("nope") != nil {
		t.Error("unknown list found")
	}

	r = fixtureResult(t, "render-grouping-continuations")
	l := r.Groups[0].List("customer")
	if r.Groups[0].Continuation["this"] != "AAAA" || l.Continuation["next"] != "CCCC" || l.Continuation["prev"] != "BBBB" {
		t.Errorf("continuations %+v %+v", r.Groups[0].Continuation, l.Continuation)
	}
	if n, _ := l.Children[0].Aggregate("count()"); n != 7 {
		t.Errorf("count() = %v", n)
	}

	r = fixtureResult(t, "render-grouping-bucket-limits")
	b := r.Groups[0].List("customer").Children[0]
	if b.Limits == nil || b.Limits.From != "1.0" || b.Limits.To != "2.0" || b.Value != "" {
		t.Errorf("bucket %+v", b)
	}
}

func TestDecodeResult_BigNumbersAndTypes(t *testing.T) {
	r := fixtureResult(t, "render-big-numbers")
	var m map[string]any
	if err := r.Hits[0].Decode(&m); err != nil {
		t.Fatal(err)
	}
	if n, ok := m["bigInteger"].(json.Number); !ok || n.String() != "340282366920938463463374607431768211455" {
		t.Errorf("bigInteger into any: %#v", m["bigInteger"])
	}
	var s struct {
		BigInteger *big.Int `json:"bigInteger"`
		BigDecimal float64  `json:"bigDecimal"`
		Byte       int8     `json:"byte"`
	}
	if err := r.Hits[0].Decode(&s); err != nil {
		t.Fatal(err)
	}
	want, _ := new(big.Int).SetString("340282366920938463463374607431768211455", 10)
	if s.BigInteger.Cmp(want) != 0 || s.Byte != 8 || s.BigDecimal != 3.402823669209385e+38 {
		t.Errorf("%+v", s)
	}
	var tooSmall struct {
		BigInteger uint64 `json:"bigInteger"`
	}
	if err := r.Hits[0].Decode(&tooSmall); err == nil {
		t.Errorf("a 128-bit integer decoded into uint64 without error: %d", tooSmall.BigInteger)
	}

	r = fixtureResult(t, "render-data-types")
	type types struct {
		Double    float64         `json:"double"`
		Long      int64           `json:"long"`
		Bool      bool            `json:"bool"`
		Predicate string          `json:"predicate"`
		Tensor1   json.RawMessage `json:"tensor1"`
		Data      string          `json:"data"`
	}
	hits, err := DecodeHits[types](r)
	if err != nil || len(hits) != 1 {
		t.Fatal(err)
	}
	if h := hits[0]; h.Double != 0.00390625 || h.Long != 4398046511104 || !h.Bool || h.Predicate != "a in [b]" || h.Data != `Data \xc3\xa6 \xc3\xa5` {
		t.Errorf("%+v", h)
	}

	r = fixtureResult(t, "render-tensors-short")
	var tensors struct {
		Indexed struct {
			Type   string      `json:"type"`
			Values [][]float64 `json:"values"`
		} `json:"tensor_indexed"`
		Mapped struct {
			Cells map[string]float64 `json:"cells"`
		} `json:"tensor_single_mapped"`
	}
	if err := r.Hits[0].Decode(&tensors); err != nil {
		t.Fatal(err)
	}
	if tensors.Indexed.Values[1][2] != 6 || tensors.Mapped.Cells["b"] != 2 {
		t.Errorf("%+v", tensors)
	}
}

func TestDecodeResult_DocumentHit(t *testing.T) {
	r := fixtureResult(t, "doc-query-result-with-hit")
	h := r.Hits[0]
	if h.ID != "id:mynamespace:music::a-head-full-of-dreams" || h.Source != "music" || math.Abs(float64(h.Relevance)-0.16343879032006284) > 1e-18 {
		t.Errorf("%+v", h)
	}
	type music struct {
		Artist string `json:"artist"`
		Year   int    `json:"year"`
	}
	ms, err := DecodeHits[music](r)
	if err != nil || ms[0].Artist != "Coldplay" || ms[0].Year != 2015 {
		t.Errorf("%v %+v", err, ms)
	}
	if _, err := DecodeHits[struct{ Year string }](r); err == nil {
		t.Error("a number decoded into a string field without error")
	}
	r = fixtureResult(t, "render-hit-id-from-documentid")
	if r.Hits[0].ID != "id:unittest:smoke::whee" {
		t.Errorf("%+v", r.Hits[0])
	}
	r = fixtureResult(t, "doc-query-empty-result")
	if len(r.Hits) != 0 || r.TotalCount != 0 || r.Coverage != nil || r.Err() != nil {
		t.Errorf("%+v", r)
	}
	if hits, err := DecodeHits[music](r); err != nil || len(hits) != 0 {
		t.Errorf("%v %v", hits, err)
	}
}

func TestDecodeResult_TimingRelevanceAndMalformed(t *testing.T) {
	body := `{"timing":{"querytime":0.003,"summaryfetchtime":0.001,"searchtime":0.005},"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":3},` +
		`"children":[{"id":"a","relevance":"NaN"},{"id":"b","relevance":"-Infinity"},{"id":"c","relevance":"Infinity","fields":{}}]}}`
	r, err := DecodeResult([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if r.Timing == nil || r.Timing.SearchTime != 0.005 || r.Timing.QueryTime != 0.003 {
		t.Errorf("timing %+v", r.Timing)
	}
	if !math.IsNaN(float64(r.Hits[0].Relevance)) || !math.IsInf(float64(r.Hits[1].Relevance), -1) || !math.IsInf(float64(r.Hits[2].Relevance), 1) {
		t.Errorf("relevances %v %v %v", r.Hits[0].Relevance, r.Hits[1].Relevance, r.Hits[2].Relevance)
	}
	for _, rel := range []Relevance{Relevance(math.NaN()), Relevance(math.Inf(-1)), 0.5} {
		b, _ := json.Marshal(rel)
		var back Relevance
		if err := json.Unmarshal(b, &back); err != nil || (back != rel && !math.IsNaN(float64(rel))) {
			t.Errorf("round trip %v -> %s -> %v %v", rel, b, back, err)
		}
	}
	for _, bad := range []string{`<html>`, `{"root":{"relevance":"high"}}`, `{"root":{"fields":{"totalCount":"x"}}}`, ``} {
		if _, err := DecodeResult([]byte(bad)); err == nil {
			t.Errorf("DecodeResult(%q) succeeded", bad)
		}
	}
}

func TestStatusFor(t *testing.T) {
	em := func(codes ...int) []ErrorMessage {
		var out []ErrorMessage
		for _, c := range codes {
			out = append(out, ErrorMessage{Code: ErrorCode(c)})
		}
		return out
	}
	cases := []struct {
		codes   []int
		hasHits bool
		want    int
	}{
		{nil, false, 200}, {nil, true, 200},
		{[]int{0}, false, 503}, {[]int{10}, false, 503}, {[]int{12}, false, 504},
		{[]int{3}, false, 400}, {[]int{4}, false, 400},
		{[]int{1}, false, 500}, {[]int{5}, false, 500}, {[]int{8}, false, 500}, {[]int{13}, false, 500},
		{[]int{14}, false, 401}, {[]int{15}, false, 403}, {[]int{16}, false, 404}, {[]int{17}, false, 400},
		{[]int{18}, false, 500}, {[]int{19}, false, 507}, {[]int{406}, false, 406}, {[]int{429}, false, 429},
		{[]int{8}, true, 200}, {[]int{12}, true, 200}, {[]int{8, 19}, true, 507}, {[]int{406}, true, 406},
		{[]int{8, 12}, false, 504}, {[]int{12, 3}, false, 504}, {[]int{5, 8}, false, 500}, {[]int{999}, false, 500},
	}
	for _, tc := range cases {
		if got := statusFor(em(tc.codes...), tc.hasHits); got != tc.want {
			t.Errorf("statusFor(%v, hits=%v) = %d, want %d", tc.codes, tc.hasHits, got, tc.want)
		}
	}
}

func TestErrorCode_String(t *testing.T) {
	for c, want := range map[ErrorCode]string{
		CodeNoBackendsInService: "no backends in service", CodeIllegalQuery: "illegal query",
		CodeInvalidQueryParameter: "invalid query parameter", CodeResultHasErrors: "result has errors",
		CodeTimeout: "timeout", CodeBackendCommunicationError: "backend communication error",
		CodeInsufficientStorage: "insufficient storage", 406: "http 406 Not Acceptable", 77: "code 77", -1: "code -1",
	} {
		if got := c.String(); got != want {
			t.Errorf("%d: %q, want %q", int(c), got, want)
		}
	}
}
