package testutil

import (
	"encoding/json"
	"testing"
)

// FixtureCase is one case of the conformance fixtures with every field the
// query and search tests compare (the fixtures' README describes them);
// [Fixture] is the smaller shape the control-plane tests replay.
type FixtureCase struct {
	Name    string `json:"name"`
	Request struct {
		Method   string          `json:"method"`
		Path     string          `json:"path"`
		Query    json.RawMessage `json:"query"`
		RawQuery string          `json:"raw_query"`
		Body     json.RawMessage `json:"body"`
	} `json:"request"`
	Status           *int            `json:"status"` // nil where the case asserts none
	ResponseBody     json.RawMessage `json:"response_body"`
	ResponseBodyRaw  *string         `json:"response_body_raw"`
	ResponseContains []string        `json:"response_body_contains"`
	BodyMatch        string          `json:"body_match"`
}

// LoadFixtureCases reads the cases of one fixture file (query.json,
// errors.json, ...) in their order, skipping tb when the fixtures are
// absent.
func LoadFixtureCases(tb testing.TB, file string) []FixtureCase {
	tb.Helper()
	var cases []FixtureCase
	if err := json.Unmarshal(ReadFixture(tb, file), &cases); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return cases
}

// FixtureCaseNamed returns the case called name in file; it fails tb when
// the file has none.
func FixtureCaseNamed(tb testing.TB, file, name string) FixtureCase {
	tb.Helper()
	for _, c := range LoadFixtureCases(tb, file) {
		if c.Name == name {
			return c
		}
	}
	tb.Fatalf("%s: no case %q", file, name)
	return FixtureCase{}
}
