package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/vespatest"
)

// appDir writes an application package with a client certificate.
func appDir(t *testing.T) string {
	t.Helper()
	dir := testutil.AppDir(t, map[string]string{"services.xml": "<services version='1.0'/>"})
	kp, err := cloud.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	if err := deploy.WriteClientCertificate(dir, kp.CertificatePEM); err != nil {
		t.Fatal(err)
	}
	return dir
}

func keyFile(t *testing.T) ([]byte, string) {
	t.Helper()
	key, err := cloud.GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "t.api-key.pem")
	if err := os.WriteFile(f, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return key, f
}

func TestRun_Cloud(t *testing.T) {
	for _, c := range []struct {
		status string
		code   int
		want   string
	}{
		{"success", 0, "ended with status success"},
		{"deploymentFailed", 1, "ended with status deploymentFailed"},
	} {
		t.Run(c.status, func(t *testing.T) {
			key, kf := keyFile(t)
			srv := cloudtest.NewTestServer(t, cloudtest.WithAPIKey(key), cloudtest.WithLogInterval(time.Millisecond),
				cloudtest.WithRunStatus(c.status))
			var out, errOut bytes.Buffer
			code := run(t.Context(), []string{"-tenant", "t", "-application", "a", "-zone", "dev.aws-us-east-1c", "-api-key-file", kf,
				"-endpoint", srv.URL(), "-poll", "5ms", appDir(t)}, &out, &errOut)
			if code != c.code || !strings.Contains(out.String()+errOut.String(), c.want) {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, &out, &errOut)
			}
			if !strings.Contains(out.String(), "Deploying platform version") {
				t.Errorf("the run log was not streamed:\n%s", &out)
			}
		})
	}
}

func TestRun_SelfHosted(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"-config-server", srv.ConfigServerURL(), "-container-url", srv.URL(), "-poll", "5ms",
		"../../integration/testdata/app"}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "converged and the containers are up") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &out, &errOut)
	}

	// A URL that is no container: its 404 ends the wait at once, with exit
	// status 1 and the failed call in the message.
	errOut.Reset()
	code = run(t.Context(), []string{"-config-server", srv.ConfigServerURL(), "-container-url", srv.ConfigServerURL() + "/nothing-here",
		"-poll", "5ms", "../../integration/testdata/app"}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "health: 404") {
		t.Errorf("unreachable container: exit %d, %s", code, &errOut)
	}
}

func TestRun_Usage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"-h"}, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "-config-server") {
		t.Errorf("-h: exit %d, %s", code, &errOut)
	}
	errOut.Reset()
	if code := run(t.Context(), []string{"dir"}, &out, &errOut); code != 2 {
		t.Errorf("no target: exit %d", code)
	}
	if code := run(t.Context(), []string{"-config-server", "http://x", t.TempDir()}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "services.xml") {
		t.Errorf("missing services.xml: exit %d, %s", code, &errOut)
	}
}
