package main

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
)

// The emulator serves until its context ends, then stops and exits 0.
func TestRun_ServesUntilContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var stdout, stderr testutil.SyncBuffer
	var code int
	ended := make(chan struct{})
	go func() { defer close(ended); code = run(ctx, []string{"-addr", "127.0.0.1:0"}, &stdout, &stderr) }()
	defer func() { cancel(); <-ended }() // also when a check fails: the emulator stops before the test ends
	url := regexp.MustCompile(`container: +(http://\S+)`)
	var m []string
	for deadline := time.Now().Add(30 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no container URL printed; stdout %q, stderr %q", stdout.String(), stderr.String())
		}
		m = url.FindStringSubmatch(stdout.String())
	}
	health := func() (int, error) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, m[1]+"/state/v1/health", nil)
		if err != nil {
			return 0, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	if status, err := health(); err != nil || status != http.StatusOK {
		t.Errorf("health: %d, %v; want 200", status, err)
	}
	cancel()
	<-ended
	if code != 0 {
		t.Errorf("exit %d after the context ended, want 0; stderr %q", code, stderr.String())
	}
	http.DefaultClient.CloseIdleConnections()
	if _, err := health(); err == nil {
		t.Error("the emulator still serves after run returned")
	}
}

func TestRun_BadFlagsAndApp(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"-h"}, 0},
		{[]string{"-no-such-flag"}, 2},
		{[]string{"-addr", "127.0.0.1:0", "-app", t.TempDir() + "/missing"}, 1},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), c.args, &stdout, &stderr); code != c.code {
			t.Errorf("%q: exit %d, want %d; stderr %q", c.args, code, c.code, stderr.String())
		}
	}
}
