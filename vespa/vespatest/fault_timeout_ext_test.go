package vespatest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/vespatest"
)

// TestFaultLatency_searchHonoursTheQueryTimeout: an injected latency on
// /search/ ends when the query's time runs out, as a slow backend does on
// Vespa: 504 with error code 12 (ErrorMessage.createTimeout; the fixture
// query-timeout-504-code-12 of vespa-fixtures/errors.json). The timeout is
// the timeout parameter, the YQL timeout annotation, or the default 500 ms.
func TestFaultLatency_searchHonoursTheQueryTimeout(t *testing.T) {
	s := vespatest.NewTestServer(t)
	yql := "select * from sources * where true"
	for _, c := range []struct {
		name, query string
		latency     time.Duration
		status      int
		message     string
	}{
		{"the timeout parameter", "yql=" + url.QueryEscape(yql) + "&timeout=20ms", time.Hour, 504, "No time left after waiting for 20ms to execute query"},
		{"the YQL timeout", "yql=" + url.QueryEscape(yql+" timeout 30"), time.Hour, 504, "No time left after waiting for 30ms to execute query"},
		{"Vespa's default 500 ms", "yql=" + url.QueryEscape(yql), time.Hour, 504, "No time left after waiting for 500ms to execute query"},
		{"a latency within the timeout", "yql=" + url.QueryEscape(yql) + "&timeout=5s", 10 * time.Millisecond, 200, `"totalCount":0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.ScriptFaults(vespatest.OpSearch, vespatest.FaultLatency(c.latency))
			start := time.Now()
			st, body := do(t, s.Client(), http.MethodGet, s.URL()+"/search/?"+c.query, "")
			if st != c.status || !strings.Contains(body, c.message) {
				t.Fatalf("%d %s, want %d with %q", st, body, c.status, c.message)
			}
			if c.status == 504 && !strings.Contains(body, `"code":12`) {
				t.Errorf("a timeout without code 12: %s", body)
			}
			if took := time.Since(start); took > time.Minute {
				t.Errorf("answered after %v: the latency ignored the timeout", took)
			}
		})
	}
}

// TestTimeout_readAsVespaReadsIt: /document/v1 reads timeout=0.01e1s as
// 10 ms, since Vespa's ParameterParser.asMilliSeconds takes the leading
// digits and dots as the number and an unknown unit ("e1s") as seconds; a
// reader of floating-point syntax would wait 100 ms.
func TestTimeout_readAsVespaReadsIt(t *testing.T) {
	s := vespatest.NewTestServer(t)
	s.ScriptFaults(vespatest.OpGet, vespatest.FaultLatency(time.Hour))
	st, body := do(t, s.Client(), http.MethodGet, s.URL()+"/document/v1/ns/music/docid/1?timeout=0.01e1s", "")
	if st != 504 || !strings.Contains(body, "Timeout after 10ms") {
		t.Errorf("%d %s, want 504 Timeout after 10ms", st, body)
	}
	st, body = do(t, s.Client(), http.MethodGet, s.URL()+"/document/v1/ns/music/docid/1?timeout=soon", "")
	if st != 400 || !strings.Contains(body, "Error parsing 'soon': Invalid number 'soon'") {
		t.Errorf("%d %s, want 400 with Vespa's parse error", st, body)
	}
}
