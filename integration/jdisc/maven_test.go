package jdisc

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeTools puts a java and an mvn on PATH that do nothing but fail (mvn
// records its arguments), and empties the build cache, so that Build runs
// mvn offline, fails, and has to decide about going online.
func fakeTools(t *testing.T) (argsLog string) {
	t.Helper()
	bin := t.TempDir()
	argsLog = filepath.Join(bin, "mvn.args")
	for name, body := range map[string]string{
		"java": "#!/bin/sh\nexit 1\n",
		"mvn":  "#!/bin/sh\necho \"$@\" >> " + argsLog + "\necho '[ERROR] offline: artifact not in the local repository'\nexit 1\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o700); err != nil { //nolint:gosec // a test's own fake tool
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	t.Setenv("JAVA_HOME", "")
	t.Setenv("GOVESPA_JDISC_CACHE", t.TempDir())
	old := probeTimeout
	probeTimeout = 300 * time.Millisecond
	t.Cleanup(func() { probeTimeout = old })
	return argsLog
}

// Where the jars are not in ~/.m2 and Maven's repository does not answer
// (black-holed: it accepts and never answers; or refused), Build says the
// harness is unavailable — callers skip — without running mvn online and
// waiting for its connect timeouts.
func TestBuild_UnreachableRepositoryIsUnavailable(t *testing.T) {
	blackHole, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer blackHole.Close()
	held := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := blackHole.Accept()
			if err != nil {
				close(held)
				return
			}
			held <- c
		}
	}()
	defer func() {
		blackHole.Close()
		for c := range held {
			c.Close()
		}
	}()
	refused, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedURL := "http://" + refused.Addr().String() + "/maven2/"
	refused.Close()
	for name, repo := range map[string]string{
		"black-holed": "http://" + blackHole.Addr().String() + "/maven2/",
		"refused":     refusedURL,
	} {
		t.Run(name, func(t *testing.T) {
			argsLog := fakeTools(t)
			t.Setenv(envMavenRepository, repo)
			_, err := Build(t.Context(), nil)
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("Build: %v, want ErrUnavailable", err)
			}
			if !strings.Contains(err.Error(), repo) {
				t.Errorf("Build: %v, want the repository named", err)
			}
			calls, _ := os.ReadFile(argsLog) //nolint:gosec // the fake mvn's own log
			if got := strings.TrimSpace(string(calls)); got != "-o -B -q package" {
				t.Errorf("mvn ran with %q, want only the offline build", got)
			}
		})
	}
}

// A repository that answers lets mvn go online; a build whose output says
// a download failed on the network is unavailable too, not a failure.
func TestBuild_OnlineDownloadFailureIsUnavailable(t *testing.T) {
	answering := httptest.NewServer(http.NotFoundHandler())
	defer answering.Close()
	argsLog := fakeTools(t)
	t.Setenv(envMavenRepository, answering.URL+"/")
	bin := filepath.Dir(argsLog)
	mvn := "#!/bin/sh\necho \"$@\" >> " + argsLog + "\necho '[ERROR] Could not transfer artifact com.yahoo.vespa:application:pom:8 from/to central: Connect timed out'\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "mvn"), []byte(mvn), 0o700); err != nil { //nolint:gosec // a test's own fake tool
		t.Fatal(err)
	}
	_, err := Build(t.Context(), nil)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "Could not transfer") {
		t.Fatalf("Build: %v, want ErrUnavailable with mvn's reason", err)
	}
	calls, _ := os.ReadFile(argsLog) //nolint:gosec // the fake mvn's own log
	if got := strings.Count(string(calls), "package"); got != 2 {
		t.Errorf("mvn ran %d times, want offline then online:\n%s", got, calls)
	}
}
