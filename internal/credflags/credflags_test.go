package credflags

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

func TestOptions_FlagsWinOverEnvironment(t *testing.T) {
	t.Setenv("VESPA_TOKEN", "env-token-secret")
	t.Setenv("VESPA_CERT_FILE", "")
	t.Setenv("VESPA_KEY_FILE", "")
	t.Setenv("VESPA_CERT", "")
	t.Setenv("VESPA_KEY", "")
	t.Setenv("VESPA_CA_FILE", "")
	t.Setenv("VESPA_CA", "")
	var c Credentials
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c.Register(fs)
	if err := fs.Parse([]string{"-token", "flag-token"}); err != nil {
		t.Fatal(err)
	}
	opts, err := c.Options()
	if err != nil {
		t.Fatal(err)
	}
	if len(opts) != 1 || c.token != "flag-token" {
		t.Fatalf("options = %d, token from %q; want 1 option from the flag", len(opts), c.token)
	}
}

func TestOptions_EnvironmentFillsEmptyFlags(t *testing.T) {
	t.Setenv("VESPA_TOKEN", "")
	t.Setenv("VESPA_CLI_DATA_PLANE_TOKEN", "cli-token")
	t.Setenv("VESPA_CERT_FILE", "")
	t.Setenv("VESPA_CERT", "c.pem")
	t.Setenv("VESPA_KEY_FILE", "k.pem")
	t.Setenv("VESPA_CA_FILE", "ca.pem")
	var c Credentials
	opts, err := c.Options()
	if err != nil {
		t.Fatal(err)
	}
	if c.token != "cli-token" || c.cert != "c.pem" || c.key != "k.pem" || c.ca != "ca.pem" || len(opts) != 3 {
		t.Fatalf("got %+v with %d options", c, len(opts))
	}
}

func TestOptions_CertWithoutKeyIsAnError(t *testing.T) {
	for _, v := range []string{"VESPA_TOKEN", "VESPA_CLI_DATA_PLANE_TOKEN", "VESPA_KEY_FILE", "VESPA_KEY", "VESPA_CERT_FILE", "VESPA_CERT"} {
		t.Setenv(v, "")
	}
	var c Credentials
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c.Register(fs)
	if err := fs.Parse([]string{"-cert", "c.pem"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Options(); err == nil || !strings.Contains(err.Error(), "-cert and -key") {
		t.Fatalf("Options() error = %v, want one saying -cert and -key go together", err)
	}
}

func TestUsageAndString_NeverShowASecret(t *testing.T) {
	const secret = "usage-secret-token"
	t.Setenv("VESPA_TOKEN", secret)
	t.Setenv("VESPA_CLI_DATA_PLANE_TOKEN", secret)
	var c Credentials
	var out bytes.Buffer
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(&out)
	c.Register(fs)
	fs.PrintDefaults()
	if _, err := c.Options(); err != nil {
		t.Fatal(err)
	}
	out.WriteString(c.String())
	if strings.Contains(out.String(), secret) {
		t.Fatalf("usage or String shows the token: %s", out.String())
	}
	if !strings.Contains(c.String(), "token") {
		t.Fatalf("String() = %q, want it to say a token is set", c.String())
	}
}
