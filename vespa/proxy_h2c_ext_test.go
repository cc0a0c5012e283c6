package vespa_test

import (
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
)

// TestNewClient_HTTP2BehindProxyRefused checks issue 27's item 12: HTTP2 with
// an http:// endpoint that the environment sends through a proxy is refused
// at NewClient with an error that says why and what to do, instead of
// sending the h2c preface to an HTTP/1.1 proxy. Before, NewClient accepted it.
// The proxy address is never dialled.
func TestNewClient_HTTP2BehindProxyRefused(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	_, err := vespa.NewClient("http://vespa.example:8080", vespa.WithHTTPVersion(vespa.HTTP2))
	if err == nil {
		t.Fatal("NewClient accepted HTTP2 over http:// behind a proxy")
	}
	for _, want := range []string{"vespa.example:8080", "proxy", "NO_PROXY"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// The default, and https, are fine behind the same proxy.
	for _, tc := range []struct {
		url  string
		opts []vespa.Option
	}{{"http://vespa.example:8080", nil}, {"https://vespa.example:8443", []vespa.Option{vespa.WithHTTPVersion(vespa.HTTP2)}}} {
		c, err := vespa.NewClient(tc.url, tc.opts...)
		if err != nil {
			t.Errorf("NewClient(%s): %v", tc.url, err)
			continue
		}
		c.Close()
	}
}
