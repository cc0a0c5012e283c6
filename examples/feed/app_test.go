package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/govespa/govespa/internal/feedrig"
)

// appDir writes an application package whose one schema is sd.
func appDir(t *testing.T, sd string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schemas", "music.sd"), []byte(sd), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const musicSD = `schema music {
    document music {
        field title type string { indexing: summary | index }
        field year type int { indexing: summary | attribute }
        field tags type array<string> { indexing: summary | attribute }
    }
}
`

// countingVespa serves /document/v1 on loopback (HTTP/1.1 and h2c),
// answering every request with 200, and returns its URL and the paths it
// received so far.
func countingVespa(t *testing.T) (url string, paths func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"pathId":%q,"id":"id:ns:music::x"}`, r.URL.Path)
	})
	url, stop, err := feedrig.Serve(t.Context(), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// misspeltFeed has a misspelt field on line 3.
const misspeltFeed = `{"put":"id:ns:music::a","fields":{"title":"A","year":1990}}
{"update":"id:ns:music::b","fields":{"tags":{"add":["x"]}}}
{"put":"id:ns:music::c","fields":{"title":"C","yeer":1991}}
{"put":"id:ns:music::d","fields":{"title":"D","tags":["y"]}}
`

// TestRun_AppRefusesAMisspeltFieldOnItsLine checks issue 31's done
// criterion: fed with -app, a feed file whose line 3 has a misspelt field
// fails that operation before any request for it, naming line 3, the
// document ID and the field, in the summary; every other line is fed, and
// the exit status is 1 as for any failure.
func TestRun_AppRefusesAMisspeltFieldOnItsLine(t *testing.T) {
	url, paths := countingVespa(t)
	file := writeFile(t, misspeltFeed)
	var stdout, stderr bytes.Buffer
	args := []string{"-endpoint", url, "-connections", "1", "-app", appDir(t, musicSD), file}
	if got := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); got != 1 {
		t.Fatalf("status %d, want 1; stderr %s", got, stderr.String())
	}
	var sum struct {
		OK       int64     `json:"feeder.ok.count"`
		Errors   int64     `json:"feeder.error.count"`
		Requests int64     `json:"http.request.count"`
		Failures []failure `json:"failures"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("summary %q: %v", stdout.String(), err)
	}
	if sum.OK != 3 || sum.Errors != 1 || sum.Requests != 3 || len(sum.Failures) != 1 {
		t.Fatalf("summary %s; want 3 fed, line 3 failed, 3 requests", stdout.String())
	}
	f := sum.Failures[0]
	t.Logf("summary failure: %+v", f)
	if f.Line != 3 || f.ID != "id:ns:music::c" || f.Status != 0 {
		t.Errorf("failure %+v; want line 3, id:ns:music::c, no status", f)
	}
	for _, w := range []string{"line 3", "id:ns:music::c", `field "yeer"`, "want a field of music"} {
		if !strings.Contains(f.Message, w) {
			t.Errorf("message %q does not say %q", f.Message, w)
		}
	}
	got := strings.Join(paths(), " ")
	for _, doc := range []string{"a", "b", "d"} {
		if !strings.Contains(got, "/document/v1/ns/music/docid/"+doc) {
			t.Errorf("no request for %s: %s", doc, got)
		}
	}
	if strings.Contains(got, "/docid/c") {
		t.Errorf("a request was sent for the refused line: %s", got)
	}
}

// TestRun_AppStopOnBadLine: with -stop-on-bad-line, the first operation
// that does not fit the schemas stops the feed as a malformed line does:
// exit 1, stderr names its line and field, and nothing after it is fed.
func TestRun_AppStopOnBadLine(t *testing.T) {
	url, paths := countingVespa(t)
	file := writeFile(t, misspeltFeed)
	var stdout, stderr bytes.Buffer
	args := []string{"-endpoint", url, "-connections", "1", "-app", appDir(t, musicSD), "-stop-on-bad-line", file}
	if got := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); got != 1 {
		t.Fatalf("status %d, want 1; stderr %s", got, stderr.String())
	}
	if e := stderr.String(); !strings.Contains(e, "line 3") || !strings.Contains(e, `field "yeer"`) {
		t.Errorf("stderr %q does not name line 3 and the field", e)
	}
	if got := paths(); len(got) != 2 || strings.Contains(strings.Join(got, " "), "/docid/d") {
		t.Errorf("requests %q; want lines 1 and 2 only", got)
	}
}

// TestRun_AppBadPackageIsBadUsage: an application package that does not
// parse, or has no schemas, is bad usage (exit 2) named by file and line,
// and nothing is fed.
func TestRun_AppBadPackageIsBadUsage(t *testing.T) {
	url, paths := countingVespa(t)
	file := writeFile(t, misspeltFeed)
	broken := appDir(t, "schema music {\n    document music {\n        field year type intt { indexing: summary }\n    }\n}\n")
	for _, tc := range []struct{ dir, says string }{
		{broken, "music.sd:3"},
		{t.TempDir(), "no schemas/*.sd"},
	} {
		var stdout, stderr bytes.Buffer
		args := []string{"-endpoint", url, "-app", tc.dir, file}
		if got := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); got != 2 {
			t.Errorf("-app %s: status %d, want 2; stderr %s", tc.dir, got, stderr.String())
		}
		if e := stderr.String(); !strings.Contains(e, "-app") || !strings.Contains(e, tc.says) {
			t.Errorf("stderr %q does not say -app and %q", e, tc.says)
		}
	}
	if got := paths(); len(got) != 0 {
		t.Errorf("requests %q after bad usage", got)
	}
}
