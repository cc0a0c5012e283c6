package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJDisc_vespaCLI runs Vespa's own CLI against the JDisc harness, that is
// against Vespa's own handlers: vespa feed, document get, visit (which first
// checks that a DocumentV1ApiHandler is bound) and query. It skips without
// the CLI (GOVESPA_VESPA_CLI or vespa on PATH) or the harness.
func TestJDisc_vespaCLI(t *testing.T) {
	bin := cliFindBinary(t)
	h := jdiscHarness(t)
	if err := h.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Reset(t.Context()) })
	r := cliNewRunner(t, bin, h.URL)
	const n = 20
	var feed strings.Builder
	for i := range n {
		fmt.Fprintf(&feed, `{"put":"id:cli:music::s%d","fields":{"title":"alpha song%d","year":%d,"popularity":%d,"tags":["rock"]}}`+"\n", i, i, 2000+i, i)
	}
	path := filepath.Join(r.dir, "feed.jsonl")
	if err := os.WriteFile(path, []byte(feed.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out := r.mustRun(t, "feed", path).stdout
	var stats map[string]any
	if err := json.Unmarshal([]byte(out), &stats); err != nil || stats["feeder.ok.count"] != float64(n) {
		t.Errorf("vespa feed: %v, %s; want %d ok", err, out, n)
	}
	got := r.mustRun(t, "document", "get", "id:cli:music::s7").stdout
	var doc struct {
		ID     string         `json:"id"`
		Fields map[string]any `json:"fields"`
	}
	if err := json.Unmarshal([]byte(got), &doc); err != nil || doc.ID != "id:cli:music::s7" || doc.Fields["title"] != "alpha song7" {
		t.Errorf("vespa document get: %v, %s", err, got)
	}
	lines := strings.Split(strings.TrimSpace(r.mustRun(t, "visit", "--content-cluster", h.Cluster, "--selection", "music.year>=2010").stdout), "\n")
	if len(lines) != 10 {
		t.Errorf("vespa visit with a selection: %d documents, want 10:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	q := r.mustRun(t, "query", "yql=select title from music where title contains \"alpha\"", "hits=5").stdout
	var res struct {
		Root struct {
			Fields   struct{ TotalCount int }
			Children []struct{ Fields map[string]any }
		}
	}
	if err := json.Unmarshal([]byte(q), &res); err != nil || res.Root.Fields.TotalCount != n || len(res.Root.Children) != 5 {
		t.Errorf("vespa query: %v, totalCount %d, %d hits; want %d and 5:\n%s", err, res.Root.Fields.TotalCount, len(res.Root.Children), n, q)
	}
	if bad := r.run(t, "query", "yql=select title from music where bogus("); bad.code == 0 || !strings.Contains(bad.stdout+bad.stderr, "Could not create query from YQL") {
		t.Errorf("vespa query with a YQL error: exit %d, %s %s", bad.code, bad.stdout, bad.stderr)
	}
}
