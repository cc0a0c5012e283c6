package vespatest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegisterServeFlag checks the predicate init uses: the flag exists only
// in a test binary, and only when it is on the command line in the -name=value
// form, as -httptest.serve.
func TestRegisterServeFlag(t *testing.T) {
	cases := []struct {
		name       string
		testBinary bool
		args       []string
		want       bool
	}{
		{"test binary with flag", true, []string{"pkg.test", "-test.run=^TestX$", "-vespatest.serve=127.0.0.1:8080"}, true},
		{"test binary with double dash", true, []string{"pkg.test", "--vespatest.serve=127.0.0.1:8080"}, true},
		{"test binary with empty value", true, []string{"pkg.test", "-vespatest.serve="}, true},
		{"test binary without flag", true, []string{"pkg.test", "-test.v"}, false},
		{"test binary, value in next argument", true, []string{"pkg.test", "-vespatest.serve", "127.0.0.1:8080"}, false},
		{"test binary, longer flag name", true, []string{"pkg.test", "-vespatest.server=x"}, false},
		{"program with flag", false, []string{"quickstart", "-vespatest.serve=127.0.0.1:8080"}, false},
		{"program without flag", false, []string{"quickstart"}, false},
		{"no arguments", true, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := registerServeFlag(c.testBinary, c.args); got != c.want {
				t.Errorf("registerServeFlag(%v, %q) = %v, want %v", c.testBinary, c.args, got, c.want)
			}
		})
	}
}

// TestServeFlagNotRegisteredByDefault checks this very process: a test binary
// run without -vespatest.serve has no such flag, and servers do not block.
func TestServeFlagNotRegisteredByDefault(t *testing.T) {
	if registerServeFlag(true, os.Args) {
		t.Skip("run with -vespatest.serve")
	}
	if f := flag.Lookup(serveFlagName); f != nil {
		t.Fatalf("flag.Lookup(%q) = %v, want nil without the flag on the command line", serveFlagName, f)
	}
	if serveAddr != "" {
		t.Fatalf("serveAddr = %q, want empty", serveAddr)
	}
}

func TestWriteServeHint(t *testing.T) {
	s, err := Start(WithContentCluster("music-content"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var b strings.Builder
	writeServeHint(&b, s, nil)
	out := b.String()
	for _, want := range []string{
		"vespatest: serving on " + s.URL(),
		"vespa config set target " + s.URL() + "\n",
		"curl " + s.URL() + "/state/v1/health\n",
		"curl '" + s.URL() + "/document/v1/?cluster=music-content'",
		"curl '" + s.URL() + "/search/?yql=select%20*%20from%20sources%20*%20where%20true'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("hint lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "config server") {
		t.Errorf("hint names a config server that was never started:\n%s", out)
	}
	cfgURL := s.ConfigServerURL()
	b.Reset()
	writeServeHint(&b, s, nil)
	if !strings.Contains(b.String(), "config server (deploy) on "+cfgURL) {
		t.Errorf("hint lacks the config server %s:\n%s", cfgURL, b.String())
	}
}

// TestWriteServeHintTLS checks that the commands name the written credential
// files, which hold what the server trusts, and that a token is never
// printed.
func TestWriteServeHintTLS(t *testing.T) {
	const token = "s3cret-token-value"
	s, err := Start(WithClientCertificates(), WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	files, err := writePEMFiles(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(files.ca)) })
	ca, err := os.ReadFile(files.ca)
	if err != nil {
		t.Fatal(err)
	}
	if string(ca) != string(s.CACertificatePEM()) {
		t.Error("ca.pem differs from CACertificatePEM")
	}
	wantCert, wantKey := s.ClientCertificatePEM()
	for path, want := range map[string][]byte{files.cert: wantCert, files.key: wantKey} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from ClientCertificatePEM", path)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
		}
	}
	var b strings.Builder
	writeServeHint(&b, s, files)
	out := b.String()
	if strings.Contains(out, token) {
		t.Fatalf("hint prints the token:\n%s", out)
	}
	for _, want := range []string{
		"export VESPA_CLI_DATA_PLANE_CA_CERT_FILE=" + files.ca,
		"export VESPA_CLI_DATA_PLANE_CERT_FILE=" + files.cert,
		"export VESPA_CLI_DATA_PLANE_KEY_FILE=" + files.key,
		"curl --cacert " + files.ca + " --cert " + files.cert + " --key " + files.key + ` -H "Authorization: Bearer $TOKEN" ` + s.URL() + "/state/v1/health",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("hint lacks %q:\n%s", want, out)
		}
	}
}
