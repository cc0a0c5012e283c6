package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/credflags"
	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

func newCorpus(t *testing.T, n int) (*vespatest.Server, map[string]bool) {
	t.Helper()
	srv := vespatest.NewTestServer(t)
	ids := map[string]bool{}
	for i := range n {
		id := fmt.Sprintf("id:ns:music::%d", i)
		if err := srv.PutDocument(id, json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	return srv, ids
}

// readOps parses stdout: one feed put per line.
func readOps(t *testing.T, out string, got map[string]int) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var op struct {
			Put    string          `json:"put"`
			Fields json.RawMessage `json:"fields"`
		}
		if err := json.Unmarshal(sc.Bytes(), &op); err != nil || op.Put == "" || len(op.Fields) == 0 {
			t.Fatalf("line %q is not a put: %v", sc.Text(), err)
		}
		got[op.Put]++
	}
}

var tokenLine = regexp.MustCompile(`resume token: (\S+)`)

func TestRun_WholeCorpus(t *testing.T) {
	srv, ids := newCorpus(t, 120)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-slices", "3"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got := map[string]int{}
	readOps(t, stdout.String(), got)
	if len(got) != len(ids) {
		t.Errorf("%d documents, want %d", len(got), len(ids))
	}
	for id, n := range got {
		if !ids[id] || n != 1 {
			t.Errorf("%s: %d times", id, n)
		}
	}
	if !strings.Contains(stderr.String(), "120 documents") || !tokenLine.MatchString(stderr.String()) {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// cancelAfter cancels a context once n lines were written through it.
type cancelAfter struct {
	bytes.Buffer
	n      int
	cancel context.CancelFunc
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	if w.n -= bytes.Count(p, []byte("\n")); w.n <= 0 {
		w.cancel()
	}
	return w.Buffer.Write(p)
}

// failThenResume runs the program with args under ctx into first, wants it
// to fail (exit 1) saying why (stderr has why) with a resume token, then
// resumes from that token and returns what the resumed run wrote.
func failThenResume(t *testing.T, ctx context.Context, args []string, first io.Writer, why string) string {
	t.Helper()
	var stderr bytes.Buffer
	if code := run(ctx, args, first, &stderr); code != 1 {
		t.Fatalf("first run: exit %d, want 1: %s", code, stderr.String())
	}
	m := tokenLine.FindStringSubmatch(stderr.String())
	if m == nil || !strings.Contains(stderr.String(), why) {
		t.Fatalf("first run's stderr does not say %q with a resume token: %s", why, stderr.String())
	}
	var second bytes.Buffer
	stderr.Reset()
	if code := run(t.Context(), append(args, "-resume", m[1]), &second, &stderr); code != 0 { //nolint:contextcheck // the resumed run must not inherit the first run's cancelled context
		t.Fatalf("resumed run: exit %d: %s", code, stderr.String())
	}
	return second.String()
}

func TestRun_InterruptAndResume(t *testing.T) {
	srv, ids := newCorpus(t, 3000) // more than one 64 KiB output buffer
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := &cancelAfter{n: 1, cancel: cancel}
	args := []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-slices", "2", "-slice-ids", "0,1", "-wanted", "50"}
	second := failThenResume(t, ctx, args, first, "interrupted")
	got := map[string]int{}
	readOps(t, first.String(), got)
	n1 := len(got)
	readOps(t, second, got)
	if n1 == 0 || n1 == len(ids) {
		t.Errorf("the first run wrote %d documents: not an interruption", n1)
	}
	for id := range ids {
		if got[id] != 1 {
			t.Errorf("%s written %d times", id, got[id])
		}
	}
}

func TestRun_UsageAndFailures(t *testing.T) {
	srv, _ := newCorpus(t, 3)
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"help", []string{"-h"}, 0},
		{"no type", []string{"-endpoint", srv.URL(), "-namespace", "ns"}, 2},
		{"bad slice ids", []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-slice-ids", "a"}, 2},
		{"bad resume token", []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-resume", "nope"}, 2},
		{"unbalanced selection", []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-selection", "((("}, 2},
		{"selection Vespa rejects", []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-selection", "music.title == == 1"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(t.Context(), tc.args, &stdout, &stderr); code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, stderr.String())
			}
			if tc.code == 0 && !strings.Contains(stderr.String(), "usage: visit") {
				t.Errorf("no usage: %s", stderr.String())
			}
		})
	}
}

// failingWriter accepts its first writes whole, then writes the first
// partial bytes of the next one and fails it, and every write after.
type failingWriter struct {
	bytes.Buffer
	writes  int
	partial int
}

var errDiskFull = errors.New("no space left on device")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.writes > 0 {
		w.writes--
		return w.Buffer.Write(p)
	}
	n, _ := w.Buffer.Write(p[:min(w.partial, len(p))])
	w.partial = 0
	return n, errDiskFull
}

// completeLines returns out without a trailing partial line.
func completeLines(out string) string {
	return out[:strings.LastIndexByte(out, '\n')+1]
}

func TestRun_WriteErrorLosesNothing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		writes   int  // writes the first run can make
		partial  int  // bytes of the next write it makes before failing
		twiceOK  bool // a batch written in part may come again
		wantSome bool // the first run wrote documents
	}{
		{"nothing written", 0, 0, false, false},
		{"after the first batch", 1, 0, false, true},
		{"in the middle of a batch", 1, batchBytes / 2, true, true},
		{"in the middle of the first batch", 0, batchBytes / 2, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, ids := newCorpus(t, 4000) // about three batches
			args := []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-slices", "2", "-wanted", "100"}
			first := &failingWriter{writes: tc.writes, partial: tc.partial}
			second := failThenResume(t, t.Context(), args, first, errDiskFull.Error())
			got := map[string]int{}
			readOps(t, completeLines(first.String()), got)
			if n := len(got); (n > 0) != tc.wantSome {
				t.Errorf("the first run wrote %d documents", n)
			}
			readOps(t, second, got)
			for id := range ids {
				if got[id] == 0 || got[id] > 1 && !tc.twiceOK {
					t.Errorf("%s written %d times", id, got[id])
				}
			}
			if len(got) != len(ids) {
				t.Errorf("%d documents, want %d", len(got), len(ids))
			}
		})
	}
}

func TestRun_Credentials(t *testing.T) {
	const secret = "s3cret-data-plane-token"
	srv := vespatest.NewTestServer(t, vespatest.WithToken(secret))
	if err := srv.PutDocument("id:ns:music::1", json.RawMessage(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	args := []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music"}
	testutil.CheckCredentials(t, run, args, credflags.EnvNames(), secret, []testutil.CredentialCase{
		{Name: "no token", Code: 1},
		{Name: "-token", Args: []string{"-token", secret}, Code: 0},
		{Name: "VESPA_TOKEN", Env: map[string]string{"VESPA_TOKEN": secret}, Code: 0},
		{Name: "VESPA_CLI_DATA_PLANE_TOKEN", Env: map[string]string{"VESPA_CLI_DATA_PLANE_TOKEN": secret}, Code: 0},
		{Name: "-token wins over the environment", Env: map[string]string{"VESPA_TOKEN": "wrong"}, Args: []string{"-token", secret}, Code: 0},
		{Name: "-cert without -key", Args: []string{"-token", secret, "-cert", "c.pem"}, Code: 2},
		{Name: "VESPA_KEY_FILE without a certificate", Env: map[string]string{"VESPA_KEY_FILE": "k.pem"}, Args: []string{"-token", secret}, Code: 2},
	})
}

func TestRun_MutualTLS(t *testing.T) {
	srv := vespatest.NewTestServer(t, vespatest.WithClientCertificates())
	if err := srv.PutDocument("id:ns:music::1", json.RawMessage(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPEM, keyPEM := srv.ClientCertificatePEM()
	files := map[string][]byte{"ca.pem": srv.CACertificatePEM(), "cert.pem": certPEM, "key.pem": keyPEM}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music"}
	t.Run("flags", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), append(args, "-cert", filepath.Join(dir, "cert.pem"), "-key", filepath.Join(dir, "key.pem"),
			"-ca-cert", filepath.Join(dir, "ca.pem")), &stdout, &stderr)
		if code != 0 || !strings.Contains(stdout.String(), "id:ns:music::1") {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv("VESPA_CERT_FILE", filepath.Join(dir, "cert.pem"))
		t.Setenv("VESPA_KEY_FILE", filepath.Join(dir, "key.pem"))
		t.Setenv("VESPA_CA_FILE", filepath.Join(dir, "ca.pem"))
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), args, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "id:ns:music::1") {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	})
	t.Run("no client certificate", func(t *testing.T) {
		t.Setenv("VESPA_CA_FILE", filepath.Join(dir, "ca.pem"))
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), args, &stdout, &stderr); code != 1 {
			t.Errorf("exit %d, want 1: %s", code, stderr.String())
		}
	})
}

func TestRun_IncrementalExportWritesRemoves(t *testing.T) {
	srv, _ := newCorpus(t, 50)
	time.Sleep(2 * time.Millisecond)
	from := time.Now()
	time.Sleep(2 * time.Millisecond)
	c, err := vespa.NewClient(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Remove(t.Context(), vespa.MustParseDocumentID("id:ns:music::7"), vespa.OperationOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := srv.PutDocument("id:ns:music::new", json.RawMessage(`{"n":-1}`)); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-from", from.Format(time.RFC3339Nano), "-include-removes"}
	if code := run(t.Context(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	slices.Sort(lines)
	want := []string{`{"put":"id:ns:music::new","fields":{"n":-1}}`, `{"remove":"id:ns:music::7"}`}
	if !slices.Equal(lines, want) {
		t.Errorf("wrote %q, want %q", lines, want)
	}
}
