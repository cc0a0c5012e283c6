package credflags

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

// setEnv sets the variables of env and empties every other one that
// Options reads.
func setEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, n := range EnvNames() {
		t.Setenv(n, env[n])
	}
}

func TestOptions_FlagsWinOverEnvironment(t *testing.T) {
	setEnv(t, map[string]string{"VESPA_TOKEN": "env-token-secret"})
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
	setEnv(t, map[string]string{"VESPA_CLI_DATA_PLANE_TOKEN": "cli-token", "VESPA_CERT": "c.pem", "VESPA_KEY_FILE": "k.pem", "VESPA_CA_FILE": "ca.pem"})
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
	setEnv(t, nil)
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
	setEnv(t, map[string]string{"VESPA_TOKEN": secret, "VESPA_CLI_DATA_PLANE_TOKEN": secret})
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
