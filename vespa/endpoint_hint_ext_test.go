package vespa_test

import (
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
)

// TestNewClient_EndpointHints checks issue 30's error hints: an endpoint
// without a scheme says which URL was probably meant, and one that ends in
// Vespa's API path (/search/, /document/v1/) is refused at NewClient with the
// container's root, instead of being taken as a path prefix so that every
// call 404s later. Before, the first gave only url.Parse's "first path
// segment in URL cannot contain colon" and the second was accepted.
func TestNewClient_EndpointHints(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		want     []string
	}{
		{"127.0.0.1:18480", []string{`did you mean "http://127.0.0.1:18480"`}},
		{"localhost:8080", []string{`did you mean "http://localhost:8080"`}},
		{"http://localhost:8080/search/", []string{"/search/", `"http://localhost:8080"`}},
		{"https://vespa.example/document/v1", []string{"/document/v1/", `"https://vespa.example"`}},
	} {
		_, err := vespa.NewClient(tc.endpoint)
		if err == nil {
			t.Errorf("NewClient(%q) accepted it", tc.endpoint)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("NewClient(%q): %q does not say %s", tc.endpoint, err, w)
			}
		}
	}
	// A path prefix that is not Vespa's API (a proxy's) is kept.
	c, err := vespa.NewClient("http://localhost:8080/vespa-proxy")
	if err != nil {
		t.Fatalf("a proxy prefix: %v", err)
	}
	c.Close()
}
