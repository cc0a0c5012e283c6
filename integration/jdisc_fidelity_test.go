package integration

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
)

// jdiscDo sends one request to the harness and returns its status and body.
// Every request is bounded (20 s), so a hang fails the test instead of
// stalling it.
func jdiscDo(t *testing.T, base, method, path, body string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second}
	req, err := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return resp.StatusCode, string(b)
}

// TestJDisc_rankProfileChecked: a rank profile the schema lacks is refused
// as Vespa's backend refuses it before dispatch (container-search
// com/yahoo/prelude/fastsearch/VespaBackend.java, search: 400, code 4
// INVALID_QUERY_PARAMETER, "schema 'music' does not contain requested rank
// profile 'x'"); the schema's own profiles and the implicit default and
// unranked are accepted. Before the harness checked (it accepted any
// profile), the first case answered 200.
func TestJDisc_rankProfileChecked(t *testing.T) {
	h := jdiscHarness(t)
	if err := h.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	yql := url.QueryEscape(`select * from music where true`)
	st, body := jdiscDo(t, h.URL, http.MethodGet, "/search/?yql="+yql+"&ranking.profile=nosuch", "")
	if st != http.StatusBadRequest {
		t.Fatalf("ranking.profile=nosuch: status %d %s, want 400", st, body)
	}
	var res struct {
		Root struct {
			Errors []struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"errors"`
		} `json:"root"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatalf("ranking.profile=nosuch: %v in %s", err, body)
	}
	const want = "schema 'music' does not contain requested rank profile 'nosuch'"
	if len(res.Root.Errors) != 1 || res.Root.Errors[0].Code != 4 || res.Root.Errors[0].Message != want {
		t.Errorf("ranking.profile=nosuch: errors %+v, want one of code 4 with %q", res.Root.Errors, want)
	}
	for _, profile := range []string{"", "default", "unranked", "bm25", "closeness"} {
		q := "/search/?yql=" + yql
		if profile != "" {
			q += "&ranking.profile=" + profile
		}
		if st, body := jdiscDo(t, h.URL, http.MethodGet, q, ""); st != http.StatusOK {
			t.Errorf("ranking.profile=%q: status %d %s, want 200", profile, st, body)
		}
	}
}

// TestJDisc_conditionParsedFirst: a test-and-set condition that does not
// parse fails the operation with 500 also when the document is missing,
// since the content node parses the condition before it reads the document
// (storage/src/vespa/storage/persistence/testandsethelper.cpp: the
// TestAndSetHelper constructor parses, fetch_and_match_selection reads);
// a condition that parses but does not hold on a missing document is 412.
// Before the fix the harness answered 412 to the first case.
func TestJDisc_conditionParsedFirst(t *testing.T) {
	h := jdiscHarness(t)
	if err := h.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	bad := url.QueryEscape(`music.year ==`)
	good := url.QueryEscape(`music.year == 1999`)
	const fields = `{"fields":{"title":"x"}}`
	const assign = `{"fields":{"title":{"assign":"x"}}}`
	for _, tc := range []struct {
		name, method, path, body string
		want                     int
		wantText                 string
	}{
		{"update missing, bad condition", http.MethodPut, "/document/v1/f/music/docid/missing?condition=" + bad, assign, 500, "Failed to parse test and set condition"},
		{"remove missing, bad condition", http.MethodDelete, "/document/v1/f/music/docid/missing?condition=" + bad, "", 500, "Failed to parse test and set condition"},
		{"put missing, bad condition", http.MethodPost, "/document/v1/f/music/docid/missing?condition=" + bad, fields, 500, "Failed to parse test and set condition"},
		{"create missing, bad condition", http.MethodPut, "/document/v1/f/music/docid/missing?create=true&condition=" + bad, assign, 500, "Failed to parse test and set condition"},
		{"update missing, condition", http.MethodPut, "/document/v1/f/music/docid/missing?condition=" + good, assign, 412, ""},
	} {
		st, body := jdiscDo(t, h.URL, tc.method, tc.path, tc.body)
		if st != tc.want || !strings.Contains(body, tc.wantText) {
			t.Errorf("%s: %s answered %d %s, want %d with %q", tc.name, tc.method, st, body, tc.want, tc.wantText)
		}
	}
}

// TestJDisc_visitLocation: visits by number and by group (document/v1's
// /number/N/ and /group/G/ paths, and the id.user and id.group selections
// they become) are served: MessageBusVisitorSession visits the location's
// explicit 32-bit bucket, which the fake distributor used to refuse with
// WrongDistribution forever (documentapi VisitorIterator.ExplicitBucketSource
// keeps its buckets when the distribution bits change), so these visits hung
// until their timeout. Streamed, too.
func TestJDisc_visitLocation(t *testing.T) {
	h := jdiscHarness(t)
	if err := h.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Reset(t.Context()) })
	for _, id := range []string{"number/1234/a", "number/1234/b", "number/99/c", "group/foo/d", "group/foo/e", "group/bar/f", "docid/g"} {
		if st, body := jdiscDo(t, h.URL, http.MethodPost, "/document/v1/f/music/"+id, `{"fields":{"title":"`+id+`"}}`); st != http.StatusOK {
			t.Fatalf("put %s: %d %s", id, st, body)
		}
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/document/v1/f/music/number/1234/", []string{"id:f:music:n=1234:a", "id:f:music:n=1234:b"}},
		{"/document/v1/f/music/group/foo/", []string{"id:f:music:g=foo:d", "id:f:music:g=foo:e"}},
		{"/document/v1/f/music/number/5/", nil},
		{"/document/v1/f/music/docid/?selection=" + url.QueryEscape("id.user==99"), []string{"id:f:music:n=99:c"}},
		{"/document/v1/f/music/docid/?selection=" + url.QueryEscape(`id.group=="bar"`), []string{"id:f:music:g=bar:f"}},
		{"/document/v1/?cluster=music&selection=" + url.QueryEscape("id.user==1234"), []string{"id:f:music:n=1234:a", "id:f:music:n=1234:b"}},
		{"/document/v1/f/music/number/1234/?stream=true", []string{"id:f:music:n=1234:a", "id:f:music:n=1234:b"}},
		{"/document/v1/f/music/group/foo/?stream=true&wantedDocumentCount=1", []string{"id:f:music:g=foo:d", "id:f:music:g=foo:e"}},
	} {
		start := time.Now()
		st, body := jdiscDo(t, h.URL, http.MethodGet, tc.path+sep(tc.path)+"timeout=15s", "")
		took := time.Since(start)
		if st != http.StatusOK {
			t.Errorf("GET %s: %d %s", tc.path, st, body)
			continue
		}
		var page struct {
			Documents []struct {
				ID string `json:"id"`
			} `json:"documents"`
		}
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Errorf("GET %s: %v in %s", tc.path, err, body)
			continue
		}
		var got []string
		for _, d := range page.Documents {
			got = append(got, d.ID)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("GET %s: documents %v, want %v", tc.path, got, tc.want)
		}
		// The visit's timeout is 15 s; an answer that took most of it means
		// the visit ran out its time instead of finishing.
		if took > 10*time.Second {
			t.Errorf("GET %s took %v: the visit did not finish by itself", tc.path, took)
		}
	}
}

func sep(path string) string {
	if strings.Contains(path, "?") {
		return "&"
	}
	return "?"
}

// TestJDisc_degradedCoverage: with harness.degraded the harness's searcher
// answers with half coverage and the given reasons, as a content node's
// soft-timeout reply does (container-search ProtobufSerialization
// .convertToCoverage), and Vespa's own JsonRenderer writes
// root.coverage.degraded, which query.DecodeResult reads: 200, the hits
// found, no error, Coverage.IsDegraded.
func TestJDisc_degradedCoverage(t *testing.T) {
	h := jdiscHarness(t)
	if err := h.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Reset(t.Context()) })
	for _, id := range []string{"a", "b"} {
		if st, body := jdiscDo(t, h.URL, http.MethodPost, "/document/v1/d/music/docid/"+id, `{"fields":{"title":"`+id+`"}}`); st != http.StatusOK {
			t.Fatalf("put %s: %d %s", id, st, body)
		}
	}
	yql := url.QueryEscape(`select * from music where true`)
	for _, tc := range []struct {
		reasons string
		want    query.Degraded
	}{
		{"timeout", query.Degraded{Timeout: true}},
		{"non-ideal-state", query.Degraded{NonIdealState: true}},
		{"match-phase,adaptive-timeout", query.Degraded{MatchPhase: true, AdaptiveTimeout: true}},
		{"anntimeout", query.Degraded{AnnTimeout: true}},
	} {
		st, body := jdiscDo(t, h.URL, http.MethodGet, "/search/?yql="+yql+"&harness.degraded="+tc.reasons, "")
		if st != http.StatusOK {
			t.Errorf("%s: status %d %s", tc.reasons, st, body)
			continue
		}
		r, err := query.DecodeResult([]byte(body))
		if err != nil {
			t.Errorf("%s: %v", tc.reasons, err)
			continue
		}
		if c := r.Coverage; c == nil || c.Degraded == nil || *c.Degraded != tc.want || !c.IsDegraded() || c.Full || r.Err() != nil || len(r.Hits) != 2 {
			t.Errorf("%s: coverage %+v, err %v, %d hits; want degraded %+v, 2 hits, no error (%s)", tc.reasons, c, r.Err(), len(r.Hits), tc.want, body)
		}
	}
	// Without it, coverage is full and Vespa writes no degraded object.
	_, body := jdiscDo(t, h.URL, http.MethodGet, "/search/?yql="+yql, "")
	r, err := query.DecodeResult([]byte(body))
	if err != nil {
		t.Fatalf("plain query: %v", err)
	}
	if r.Coverage == nil || r.Coverage.IsDegraded() || r.Coverage.Degraded != nil {
		t.Errorf("plain query: coverage %+v; want full coverage without degraded", r.Coverage)
	}
}

// TestJDisc_streamedVisitBadSelection: against Vespa's own handler, a
// streamed visit whose selection does not parse ends with its 400 at once.
// The handler commits 200 to a streamed page before it parses the selection
// and then never ends the answer (the raw request below shows it: no answer
// within 3 s), so the SDK asks for each chain's first page unstreamed.
func TestJDisc_streamedVisitBadSelection(t *testing.T) {
	h := jdiscHarness(t)
	if err := h.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Reset(t.Context()) })
	if st, body := jdiscDo(t, h.URL, http.MethodPost, "/document/v1/d/music/docid/a", `{"fields":{"title":"a"}}`); st != http.StatusOK {
		t.Fatalf("put: %d %s", st, body)
	}
	const bad = "music.year =="
	// What the guard is for: the raw streamed request hangs after its 200.
	raw := &http.Client{Timeout: 3 * time.Second}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, h.URL+"/document/v1/d/music/docid?stream=true&selection="+url.QueryEscape(bad), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := raw.Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			t.Logf("the streamed request with a bad selection ended with %d: Vespa's handler no longer hangs", resp.StatusCode)
		}
	}
	c := newTargetClient(t, &jdiscTarget{h: h})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var last error
	for _, err := range c.Visit(ctx, vespa.VisitRequest{Namespace: "d", DocType: "music", Selection: bad, Stream: true, Timeout: 10 * time.Second}) {
		if err != nil {
			last = err
		}
	}
	var ve *vespa.Error
	if !errors.As(last, &ve) || ve.Status != http.StatusBadRequest {
		t.Fatalf("streamed visit with selection %q ended with %v, want Vespa's 400", bad, last)
	}
}
