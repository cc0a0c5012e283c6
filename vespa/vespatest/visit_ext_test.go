package vespatest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

func get(t *testing.T, s *vespatest.Server, path string, header ...string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// newMusicServer starts a server, closed when the test ends, whose one
// schema is music with the fields named and typed by nameTypes (name, type,
// name, type, ...).
func newMusicServer(t *testing.T, nameTypes ...string) *vespatest.Server {
	t.Helper()
	sch := vespatest.Schema{Name: "music"}
	for i := 0; i+1 < len(nameTypes); i += 2 {
		sch.Fields = append(sch.Fields, vespatest.Field{Name: nameTypes[i], Type: nameTypes[i+1]})
	}
	return vespatest.NewTestServer(t, vespatest.WithSchema(sch))
}

// visitIDs follows the visit at path (a /document/v1 path and its query)
// from page to page, at most maxPages, and returns the IDs of the documents
// in the order they came. It fails the test on a status other than 200 or
// when the visit does not end.
func visitIDs(t *testing.T, s *vespatest.Server, path string, maxPages int) []string {
	t.Helper()
	var ids []string
	continuation := ""
	for range maxPages {
		q := path
		if continuation != "" {
			q += "&continuation=" + url.QueryEscape(continuation)
		}
		status, body, _ := get(t, s, q)
		if status != http.StatusOK {
			t.Fatalf("visit %s: status %d: %s", q, status, body)
		}
		var page struct {
			Documents []struct {
				ID string `json:"id"`
			} `json:"documents"`
			Continuation string `json:"continuation"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Documents {
			ids = append(ids, d.ID)
		}
		if continuation = page.Continuation; continuation == "" {
			return ids
		}
	}
	t.Fatalf("visit %s did not end in %d pages", path, maxPages)
	return nil
}

func TestVisit_everyDocumentExactlyOnceWhileFeeding(t *testing.T) {
	s := vespatest.NewTestServer(t)
	const seeded, slices = 1500, 3
	for i := range seeded {
		if err := s.PutDocument(fmt.Sprintf("id:ns:music::seed-%d", i), json.RawMessage(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // feed and remove other documents while visiting
		defer wg.Done()
		for i := 0; i < 100_000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			id := fmt.Sprintf("id:ns:music::churn-%d", i%300)
			if i%3 == 2 {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, s.URL()+"/document/v1/ns/music/docid/churn-"+fmt.Sprint(i%300), nil)
				if resp, err := s.Client().Do(req); err == nil {
					resp.Body.Close()
				}
				continue
			}
			_ = s.PutDocument(id, json.RawMessage(`{"n":2}`))
		}
	}()
	// A t.Fatal while visiting still stops the churn and waits for it.
	stopChurn := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopChurn()
	seen := map[string]int{}
	for slice := range slices {
		q := fmt.Sprintf("/document/v1/ns/music/docid?wantedDocumentCount=40&slices=%d&sliceId=%d", slices, slice)
		for _, id := range visitIDs(t, s, q, 10_000) {
			seen[id]++
		}
	}
	stopChurn()
	for i := range seeded {
		if n := seen[fmt.Sprintf("id:ns:music::seed-%d", i)]; n != 1 {
			t.Errorf("seed-%d seen %d times, want 1", i, n)
		}
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("%s seen %d times", id, n)
		}
	}
}

func TestVisit_streamJSONLEndsWithFinishedContinuation(t *testing.T) {
	s := vespatest.NewTestServer(t)
	for i := range 20 {
		if err := s.PutDocument(fmt.Sprintf("id:ns:music::d%d", i), json.RawMessage(`{"a":"x"}`)); err != nil {
			t.Fatal(err)
		}
	}
	status, body, hdr := get(t, s, "/document/v1/ns/music/docid?stream=true", "Accept", "application/jsonl")
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/jsonl") {
		t.Fatalf("status %d, content type %q", status, hdr.Get("Content-Type"))
	}
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	puts := 0
	for _, l := range lines {
		if strings.HasPrefix(l, `{"put":`) {
			puts++
		}
	}
	if puts != 20 {
		t.Errorf("%d put lines, want 20", puts)
	}
	if last := lines[len(lines)-1]; last != `{"continuation":{"percentFinished":100.0}}` {
		t.Errorf("last line %s", last)
	}
}

func TestVisit_selectionAndFieldSet(t *testing.T) {
	s := newMusicServer(t, "artist", "string", "year", "int")
	for i, y := range []int{1990, 2000, 2010, 2020} {
		_ = s.PutDocument(fmt.Sprintf("id:ns:music::%d", i), json.RawMessage(fmt.Sprintf(`{"artist":"a%d","year":%d}`, i, y)))
	}
	q := "/document/v1/ns/music/docid?stream=true&fieldSet=music:year&selection=" + url.QueryEscape(`music.year >= 2000 and music.artist != "a3"`)
	_, body, _ := get(t, s, q)
	var res struct {
		Documents []struct {
			Fields map[string]any `json:"fields"`
		} `json:"documents"`
		DocumentCount int `json:"documentCount"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	if res.DocumentCount != 2 {
		t.Fatalf("documentCount %d, want 2: %s", res.DocumentCount, body)
	}
	for _, d := range res.Documents {
		if _, ok := d.Fields["artist"]; ok || d.Fields["year"] == nil {
			t.Errorf("fieldSet not applied: %v", d.Fields)
		}
	}
	status, body, _ := get(t, s, "/document/v1/ns/music/docid?selection="+url.QueryEscape("music.year >"))
	if status != 400 || !strings.Contains(string(body), "message") {
		t.Errorf("bad selection: %d %s", status, body)
	}
}

func TestMassDelete_removesMatches(t *testing.T) {
	s := vespatest.NewTestServer(t)
	for i := range 50 {
		_ = s.PutDocument(fmt.Sprintf("id:ns:music::%d", i), json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)))
	}
	total := 0
	token := ""
	for range 100 {
		u := s.URL() + "/document/v1/ns/music/docid?cluster=content&selection=" + url.QueryEscape("music.i < 20")
		if token != "" {
			u += "&continuation=" + url.QueryEscape(token)
		}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, u, nil)
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			DocumentCount int
			Continuation  string
		}
		_ = json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		total += res.DocumentCount
		if token = res.Continuation; token == "" {
			break
		}
	}
	if total != 20 || s.DocumentCount() != 30 {
		t.Errorf("deleted %d, %d left; want 20 and 30", total, s.DocumentCount())
	}
}
