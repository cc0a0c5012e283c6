package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

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

func TestRun_InterruptAndResume(t *testing.T) {
	srv, ids := newCorpus(t, 3000) // more than one 64 KiB output buffer
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := &cancelAfter{n: 1, cancel: cancel}
	var stderr bytes.Buffer
	args := []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-slices", "2", "-slice-ids", "0,1", "-wanted", "50"}
	if code := run(ctx, args, first, &stderr); code != 1 {
		t.Fatalf("interrupted run: exit %d, want 1: %s", code, stderr.String())
	}
	m := tokenLine.FindStringSubmatch(stderr.String())
	if m == nil || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("stderr: %s", stderr.String())
	}
	var second bytes.Buffer
	stderr.Reset()
	if code := run(t.Context(), append(args, "-resume", m[1]), &second, &stderr); code != 0 {
		t.Fatalf("resumed run: exit %d: %s", code, stderr.String())
	}
	got := map[string]int{}
	readOps(t, first.String(), got)
	n1 := len(got)
	readOps(t, second.String(), got)
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
		{"bad selection", []string{"-endpoint", srv.URL(), "-namespace", "ns", "-type", "music", "-selection", "((("}, 1},
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
