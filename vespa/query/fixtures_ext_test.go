package query_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/query"
)

type searchFixture struct {
	name   string
	status int
	body   []byte
}

// searchFixtures returns the /search/ cases of the shared fixtures that have
// a full body (skipping the test when the fixtures are absent).
func searchFixtures(t *testing.T) []searchFixture {
	t.Helper()
	var out []searchFixture
	for _, f := range []string{"query.json", "errors.json"} {
		b := testutil.ReadFixture(t, f)
		var cases []struct {
			Name    string `json:"name"`
			Request struct {
				Path string `json:"path"`
			} `json:"request"`
			Status *int            `json:"status"`
			Body   json.RawMessage `json:"response_body"`
		}
		if err := json.Unmarshal(b, &cases); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if c.Request.Path != "/search/" || string(c.Body) == "null" {
				continue
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, c.Body); err != nil {
				t.Fatalf("%s: %v", c.Request.Path, err)
			}
			s := 0
			if c.Status != nil {
				s = *c.Status
			}
			out = append(out, searchFixture{c.Name, s, buf.Bytes()})
		}
	}
	return out
}

func newServerWithHeader(t *testing.T, status int, body, key, value string) (*query.Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(key, value)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return newClient(t, srv.URL), srv
}

func TestSearch_EveryFixtureThroughTheClient(t *testing.T) {
	for _, c := range searchFixtures(t) {
		t.Run(c.name, func(t *testing.T) {
			status := c.status
			if status == 0 {
				status = 200
			}
			qc, _ := newServer(t, status, string(c.body))
			r, err := qc.Search(t.Context(), &query.Request{YQL: "select * from sources * where true"})
			if status == 200 && err != nil {
				t.Fatalf("Search: %v", err)
			}
			if r == nil {
				t.Fatalf("no result (err %v)", err)
			}
			if r.Status != status {
				t.Errorf("status %d", r.Status)
			}
			if (r.Err() != nil) != (len(r.Errors) > 0) {
				t.Errorf("Err() %v with %d errors", r.Err(), len(r.Errors))
			}
		})
	}
}
