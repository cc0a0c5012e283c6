// Package credflags gives govespa's example programs one way to take
// data-plane credentials: the flags -token, -cert, -key and -ca-cert, each
// falling back to the environment when left empty.
//
// The environment variables are VESPA_TOKEN (else Vespa CLI's
// VESPA_CLI_DATA_PLANE_TOKEN), VESPA_CERT_FILE, VESPA_KEY_FILE and
// VESPA_CA_FILE (else VESPA_CERT, VESPA_KEY and VESPA_CA), the names the
// integration suite reads. They are read after parsing and never used as the
// flags' defaults, so that -h never prints a secret.
package credflags

import (
	"errors"
	"flag"
	"os"
	"slices"

	"github.com/govespa/govespa/vespa"
)

// The environment variables of each flag, in the order they are read: a
// flag left empty takes the first of them that is set.
var (
	TokenEnv = []string{"VESPA_TOKEN", "VESPA_CLI_DATA_PLANE_TOKEN"}
	CertEnv  = []string{"VESPA_CERT_FILE", "VESPA_CERT"}
	KeyEnv   = []string{"VESPA_KEY_FILE", "VESPA_KEY"}
	CAEnv    = []string{"VESPA_CA_FILE", "VESPA_CA"}
)

// EnvNames returns every environment variable that [Credentials.Options]
// reads.
func EnvNames() []string { return slices.Concat(TokenEnv, CertEnv, KeyEnv, CAEnv) }

// Credentials holds what the flags and the environment say. Its zero value
// takes everything from the environment.
type Credentials struct {
	token, cert, key, ca string
}

// String describes which credentials are set, never their values.
func (c *Credentials) String() string {
	s := "credentials:"
	for _, p := range []struct {
		name string
		set  bool
	}{{"token", c.token != ""}, {"cert", c.cert != ""}, {"key", c.key != ""}, {"ca-cert", c.ca != ""}} {
		if p.set {
			s += " " + p.name
		}
	}
	return s
}

// Register defines -token, -cert, -key and -ca-cert on fs.
func (c *Credentials) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.token, "token", "", "data-plane `token` (default $VESPA_TOKEN, else $VESPA_CLI_DATA_PLANE_TOKEN)")
	fs.StringVar(&c.cert, "cert", "", "client certificate `file` (PEM) for mutual TLS (default $VESPA_CERT_FILE)")
	fs.StringVar(&c.key, "key", "", "client private key `file` (PEM) for mutual TLS (default $VESPA_KEY_FILE)")
	fs.StringVar(&c.ca, "ca-cert", "", "CA certificate `file` (PEM) to verify the server (default $VESPA_CA_FILE)")
}

// Options fills what the flags left empty from the environment and returns
// the client options for them. A certificate without its key, or a key
// without its certificate, is an error.
func (c *Credentials) Options() ([]vespa.Option, error) {
	fill := func(v *string, names ...string) {
		for _, n := range names {
			if *v != "" {
				return
			}
			*v = os.Getenv(n)
		}
	}
	fill(&c.token, TokenEnv...)
	fill(&c.cert, CertEnv...)
	fill(&c.key, KeyEnv...)
	fill(&c.ca, CAEnv...)
	if (c.cert == "") != (c.key == "") {
		return nil, errors.New("-cert and -key go together (or VESPA_CERT_FILE and VESPA_KEY_FILE)")
	}
	var opts []vespa.Option
	if c.token != "" {
		opts = append(opts, vespa.WithToken(c.token))
	}
	if c.cert != "" {
		opts = append(opts, vespa.WithCertificateFiles(c.cert, c.key))
	}
	if c.ca != "" {
		opts = append(opts, vespa.WithCAFile(c.ca))
	}
	return opts, nil
}
