package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/cloud/cloudtest"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestRun_TimeoutReachesTheConfigServer puts a recording proxy in front of
// the emulator's config server: -timeout must arrive as the plain seconds
// that the config server parses (Double.parseDouble), bounding its prepare.
func TestRun_TimeoutReachesTheConfigServer(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	target, err := url.Parse(srv.ConfigServerURL())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var timeouts []string
	proxy := httputil.NewSingleHostReverseProxy(target)
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/prepareandactivate") {
			mu.Lock()
			timeouts = append(timeouts, r.URL.Query().Get("timeout"))
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	defer rec.Close()
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"-config-server", rec.URL, "-container-url", srv.URL(), "-poll", "5ms", "-timeout", "90s",
		"../../integration/testdata/app"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, &out, &errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(timeouts) != 1 {
		t.Fatalf("%d deploys: %q", len(timeouts), timeouts)
	}
	secs, err := strconv.ParseFloat(timeouts[0], 64) // Double.parseDouble takes no unit
	if err != nil || secs > 90 || secs < 80 {
		t.Errorf("timeout=%q sent; want about 90 (seconds, a plain number)", timeouts[0])
	}
}

// TestRun_LostReplyUploadsOnce is the recording server that drops
// the connection after reading the upload: the package is sent once and
// the command says the outcome is unknown.
func TestRun_LostReplyUploadsOnce(t *testing.T) {
	var mu sync.Mutex
	uploads := 0
	drop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		uploads++
		mu.Unlock()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		conn.Close()
	}))
	defer drop.Close()
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"-config-server", drop.URL, "-poll", "5ms", "-timeout", "1m", "../../integration/testdata/app"}, &out, &errOut)
	mu.Lock()
	defer mu.Unlock()
	if code != 1 || uploads != 1 {
		t.Errorf("exit %d after %d uploads; want 1 and 1", code, uploads)
	}
	if !strings.Contains(errOut.String(), "no reply") || !strings.Contains(errOut.String(), "not sent again") {
		t.Errorf("stderr does not say the outcome is unknown:\n%s", &errOut)
	}
}

func TestRun_OutsideLinkRefused(t *testing.T) {
	var requests atomic.Int32
	cs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests.Add(1) }))
	defer cs.Close()
	dir := appDir(t)
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "key.pem")); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"-config-server", cs.URL, dir}, &out, &errOut)
	if code != 1 || requests.Load() != 0 || !strings.Contains(errOut.String(), "key.pem") {
		t.Errorf("exit %d, %d requests, stderr %s; want 1, none, and the link named", code, requests.Load(), &errOut)
	}
}

// TestRun_CloudKeyFromTheCLIsPlaces deploys with no -api-key-file: the key
// comes from VESPA_CLI_API_KEY_FILE, or from VESPA_CLI_HOME.
func TestRun_CloudKeyFromTheCLIsPlaces(t *testing.T) {
	for _, where := range []string{"VESPA_CLI_API_KEY_FILE", "VESPA_CLI_HOME"} {
		t.Run(where, func(t *testing.T) {
			key, kf := keyFile(t)
			t.Setenv("HOME", t.TempDir())
			for _, v := range []string{"VESPA_CLI_API_KEY", "VESPA_CLI_API_KEY_FILE"} {
				t.Setenv(v, "") // restored after the test
				if err := os.Unsetenv(v); err != nil {
					t.Fatal(err)
				}
			}
			home := t.TempDir()
			t.Setenv("VESPA_CLI_HOME", home)
			if where == "VESPA_CLI_API_KEY_FILE" {
				t.Setenv("VESPA_CLI_API_KEY_FILE", kf)
			} else if err := os.WriteFile(filepath.Join(home, "t.api-key.pem"), key, 0o600); err != nil {
				t.Fatal(err)
			}
			srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key), cloudtest.WithLogInterval(time.Millisecond))
			var out, errOut bytes.Buffer
			code := run(t.Context(), []string{"-tenant", "t", "-application", "a", "-endpoint", srv.URL(), "-poll", "5ms", appDir(t)}, &out, &errOut)
			if code != 0 || !strings.Contains(out.String(), "ended with status success") {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &out, &errOut)
			}
		})
	}
}
