package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "feed.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun_ExitStatusesAndSummary(t *testing.T) {
	srv := vespatest.NewTestServer(t, vespatest.WithSchema(vespatest.Schema{Name: "music", Fields: []vespatest.Field{{Name: "n", Type: "int"}}}))
	good := writeFile(t, `{"put":"id:ns:music::a","fields":{"n":1}}
{"remove":"id:ns:music::b"}
`)
	bad := writeFile(t, `{"put":"id:ns:music::a","fields":{"n":"x"}}
{"put":"id:ns:music::c","fields":{"n":3}}
not json
`)
	tests := []struct {
		name   string
		args   []string
		stdin  string
		status int
		ok     int64
		errs   int64
	}{
		{"every operation succeeds", []string{good}, "", 0, 2, 0},
		{"stdin is read", []string{"-"}, `{"remove":"id:ns:music::z"}`, 0, 1, 0},
		{"failures exit 1", []string{bad}, "", 1, 1, 2},
		{"no file is bad usage", nil, "", 2, -1, -1},
		{"a missing file is bad usage", []string{filepath.Join(t.TempDir(), "nope")}, "", 2, -1, -1},
		{"a bad flag is bad usage", []string{"-compression", "zstd", good}, "", 2, -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"-endpoint", srv.URL(), "-connections", "2"}, tt.args...)
			if got := run(t.Context(), args, strings.NewReader(tt.stdin), &stdout, &stderr); got != tt.status {
				t.Fatalf("status %d, want %d; stderr %s", got, tt.status, stderr.String())
			}
			if tt.ok < 0 {
				return
			}
			var sum map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
				t.Fatalf("summary %q: %v", stdout.String(), err)
			}
			for _, k := range []string{"feeder.operation.count", "feeder.ok.count", "feeder.error.count", "feeder.seconds",
				"feeder.ok.rate", "http.response.code.counts", "failures"} {
				if _, ok := sum[k]; !ok {
					t.Errorf("summary lacks %q", k)
				}
			}
			if sum["feeder.ok.count"] != float64(tt.ok) || sum["feeder.error.count"] != float64(tt.errs) ||
				sum["feeder.operation.count"] != float64(tt.ok+tt.errs) {
				t.Errorf("summary %s", stdout.String())
			}
			if fl := sum["failures"].([]any); int64(len(fl)) != tt.errs {
				t.Errorf("failures %v", fl)
			} else if tt.errs > 0 {
				first := fl[0].(map[string]any)
				if first["line"] != float64(1) || first["status"] != float64(400) || first["id"] != "id:ns:music::a" || first["message"] == "" {
					t.Errorf("first failure %v", first)
				}
			}
		})
	}
}

// TestRun_HelpNeverPrintsAToken guards against a token taken from the
// environment being shown as a flag's default in the usage text.
func TestRun_HelpNeverPrintsAToken(t *testing.T) {
	const secret = "feed-help-secret-token"
	t.Setenv("VESPA_TOKEN", secret)
	t.Setenv("VESPA_CLI_DATA_PLANE_TOKEN", secret)
	var stdout, stderr bytes.Buffer
	if got := run(t.Context(), []string{"-h"}, strings.NewReader(""), &stdout, &stderr); got != 0 {
		t.Fatalf("-h exited %d, want 0", got)
	}
	if out := stdout.String() + stderr.String(); strings.Contains(out, secret) || !strings.Contains(out, "-token") {
		t.Fatalf("usage shows the token or lacks -token:\n%s", out)
	}
}

func TestRun_TwoStdinFeedsThroughOneJournalBothArrive(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	journal := filepath.Join(t.TempDir(), "journal")
	feedStdin := func(input string, extra ...string) (int, string, map[string]any) {
		var stdout, stderr bytes.Buffer
		args := append([]string{"-endpoint", srv.URL(), "-connections", "2", "-journal", journal}, extra...)
		code := run(t.Context(), append(args, "-"), strings.NewReader(input), &stdout, &stderr)
		var sum map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
			t.Fatalf("summary %q: %v", stdout.String(), err)
		}
		return code, stderr.String(), sum
	}
	first := `{"put":"id:ns:music::a","fields":{"n":1}}` + "\n"
	second := `{"put":"id:ns:music::b","fields":{"n":2}}` + "\n"

	// Unnamed stdin is not journalled, and says so.
	code, stderr, _ := feedStdin(first)
	if code != 0 || !strings.Contains(stderr, "-stdin-name") {
		t.Fatalf("first: status %d, stderr %q", code, stderr)
	}
	if code, _, sum := feedStdin(second); code != 0 || sum["feeder.ok.count"] != float64(1) || sum["feeder.skipped.count"] != float64(0) {
		t.Fatalf("second: status %d, summary %v", code, sum)
	}
	// Named alike, different content: fed, and the mismatch reported.
	if code, _, _ := feedStdin(first, "-stdin-name", "events"); code != 0 {
		t.Fatalf("named first: status %d", code)
	}
	code, stderr, sum := feedStdin(`{"put":"id:ns:music::c","fields":{"n":3}}`+"\n", "-stdin-name", "events")
	if code != 0 || sum["feeder.ok.count"] != float64(1) || sum["feeder.journal.mismatch.count"] != float64(1) || !strings.Contains(stderr, "fed again") {
		t.Fatalf("named second: status %d, summary %v, stderr %q", code, sum, stderr)
	}
	for _, id := range []string{"a", "b", "c"} {
		if _, ok := srv.Document("id:ns:music::" + id); !ok {
			t.Errorf("document %s missing", id)
		}
	}
	// The same named stream again is skipped.
	if code, _, sum := feedStdin(`{"put":"id:ns:music::c","fields":{"n":3}}`+"\n", "-stdin-name", "events"); code != 0 || sum["feeder.skipped.count"] != float64(1) {
		t.Fatalf("named rerun: status %d, summary %v", code, sum)
	}
}
