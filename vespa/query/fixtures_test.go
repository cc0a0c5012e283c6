package query

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
)

// fixtureCase is one case of ../shared/vespa-fixtures (see its README).
type fixtureCase struct{ testutil.FixtureCase }

// loadFixtures reads one fixture file, skipping the test when the shared
// fixtures are absent.
func loadFixtures(t testing.TB, file string) []fixtureCase {
	t.Helper()
	var cases []fixtureCase
	for _, c := range testutil.LoadFixtureCases(t, file) {
		cases = append(cases, fixtureCase{c})
	}
	return cases
}

var codeRE = regexp.MustCompile(`"code":(\d+)`)

// body returns the case's response body bytes. A case that only lists
// strings the body contains gets an error-only body built from them.
func (c fixtureCase) body() []byte {
	if c.ResponseBodyRaw != nil {
		return []byte(*c.ResponseBodyRaw)
	}
	if len(c.ResponseBody) > 0 && string(c.ResponseBody) != "null" {
		var buf bytes.Buffer
		if err := json.Compact(&buf, c.ResponseBody); err != nil {
			panic(err)
		}
		return buf.Bytes()
	}
	code := 0
	var msgs []string
	for _, s := range c.ResponseContains {
		if m := codeRE.FindStringSubmatch(s); m != nil {
			code, _ = strconv.Atoi(m[1])
			continue
		}
		msgs = append(msgs, s)
	}
	if c.Status != nil && code == 0 {
		// Only the status was asserted: use the code Vespa gives it.
		code = map[int]int{400: 3, 500: 5, 503: 0, 504: 12}[*c.Status]
	}
	e := map[string]any{"code": code, "summary": ErrorCode(code).String(), "message": strings.Join(msgs, " ")}
	b, _ := json.Marshal(map[string]any{"root": map[string]any{
		"id": "toplevel", "relevance": 1.0, "fields": map[string]any{"totalCount": 0}, "errors": []any{e},
	}})
	return b
}

// searchCases returns the /search/ cases of query.json and errors.json.
func searchCases(t testing.TB) []fixtureCase {
	var out []fixtureCase
	for _, f := range []string{"query.json", "errors.json"} {
		for _, c := range loadFixtures(t, f) {
			if c.Request.Path == "/search/" {
				out = append(out, c)
			}
		}
	}
	return out
}

// countLeaves counts the document hits of a rendered root the way the
// renderer nests them, independently of the package's decoder.
func countLeaves(children []any) int {
	n := 0
	for _, c := range children {
		m := c.(map[string]any)
		id, _ := m["id"].(string)
		if strings.HasPrefix(id, "group:") {
			continue
		}
		if kids, ok := m["children"].([]any); ok && len(kids) > 0 {
			n += countLeaves(kids)
			continue
		}
		n++
	}
	return n
}

func TestDecodeResult_EveryFixture(t *testing.T) {
	for _, c := range searchCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			body := c.body()
			r, err := DecodeResult(body)
			if err != nil {
				t.Fatalf("DecodeResult: %v\n%s", err, body)
			}
			var generic struct {
				Root struct {
					Fields   map[string]json.Number `json:"fields"`
					Children []any                  `json:"children"`
					Errors   []any                  `json:"errors"`
					Coverage map[string]any         `json:"coverage"`
				} `json:"root"`
				Trace json.RawMessage `json:"trace"`
			}
			d := json.NewDecoder(bytes.NewReader(body))
			d.UseNumber()
			if err := d.Decode(&generic); err != nil {
				t.Fatal(err)
			}
			if want := countLeaves(generic.Root.Children); len(r.Hits) != want {
				t.Errorf("%d hits, want %d", len(r.Hits), want)
			}
			if want, _ := generic.Root.Fields["totalCount"].Int64(); r.TotalCount != want {
				t.Errorf("TotalCount %d, want %d", r.TotalCount, want)
			}
			if len(r.Errors) != len(generic.Root.Errors) {
				t.Errorf("%d errors, want %d", len(r.Errors), len(generic.Root.Errors))
			}
			if (r.Coverage != nil) != (generic.Root.Coverage != nil) {
				t.Errorf("coverage %v, want presence %v", r.Coverage, generic.Root.Coverage != nil)
			}
			if (len(r.Trace) > 0) != (len(generic.Trace) > 0) {
				t.Errorf("trace %s, want %s", r.Trace, generic.Trace)
			}
			if c.Status != nil {
				// A "subset" excerpt may have left its hits out.
				hasHits := len(r.Hits) > 0 || c.BodyMatch == "subset" && r.TotalCount > 0
				if got := statusFor(r.Errors, hasHits); got != *c.Status {
					t.Errorf("statusFor = %d, want the fixture's %d", got, *c.Status)
				}
			}
		})
	}
}
