package testutil

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Fixture is one recorded exchange of the conformance fixtures: the request
// the client should send and the answer Vespa gave.
type Fixture struct {
	Name    string `json:"name"`
	Request struct {
		Method   string `json:"method"`
		Path     string `json:"path"`
		RawQuery string `json:"raw_query"`
	} `json:"request"`
	Status       int             `json:"status"`
	ResponseBody json.RawMessage `json:"response_body"`
	ResponseRaw  string          `json:"response_body_raw"`
}

// Body is the answer's exact bytes where they were recorded, else its JSON.
func (f Fixture) Body() []byte {
	if f.ResponseRaw != "" {
		return []byte(f.ResponseRaw)
	}
	return f.ResponseBody
}

// LoadFixtures reads one fixture file by case name, skipping tb when the
// fixtures are absent.
func LoadFixtures(tb testing.TB, file string) map[string]Fixture {
	tb.Helper()
	var list []Fixture
	if err := json.Unmarshal(ReadFixture(tb, file), &list); err != nil {
		tb.Fatal(err)
	}
	m := map[string]Fixture{}
	for _, f := range list {
		m[f.Name] = f
	}
	return m
}

// Replay serves f's answer to any request, recording the request in got,
// until tb ends.
func Replay(tb testing.TB, f Fixture, got *http.Request) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = *r.Clone(r.Context())
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		_, _ = w.Write(f.Body())
	}))
	tb.Cleanup(srv.Close)
	return srv
}
