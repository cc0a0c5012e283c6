package main

import (
	"errors"
	"flag"
	"os"

	"github.com/govespa/govespa/vespa"
)

// credentials are the authentication flags, named as in examples/feed:
// -token, -cert, -key and -ca-cert. A flag left empty falls back to the
// environment, as in examples/quickstart: VESPA_TOKEN (else Vespa CLI's
// VESPA_CLI_DATA_PLANE_TOKEN), VESPA_CERT_FILE, VESPA_KEY_FILE and
// VESPA_CA_FILE (else VESPA_CERT, VESPA_KEY and VESPA_CA). The environment
// is read after parsing, not used as the flags' defaults, so that -h never
// prints a secret.
type credentials struct {
	token, cert, key, ca string
}

// register defines the flags on fs.
func (c *credentials) register(fs *flag.FlagSet) {
	fs.StringVar(&c.token, "token", "", "data-plane `token` for Vespa Cloud (default $VESPA_TOKEN, else $VESPA_CLI_DATA_PLANE_TOKEN)")
	fs.StringVar(&c.cert, "cert", "", "client certificate `file` (PEM) for mutual TLS (default $VESPA_CERT_FILE)")
	fs.StringVar(&c.key, "key", "", "client private key `file` (PEM) for mutual TLS (default $VESPA_KEY_FILE)")
	fs.StringVar(&c.ca, "ca-cert", "", "CA certificate `file` (PEM) to verify the server (default $VESPA_CA_FILE)")
}

// options fills what the flags left empty from the environment and returns
// the client options; a certificate without its key, or the reverse, is an
// error.
func (c *credentials) options() ([]vespa.Option, error) {
	fill := func(v *string, names ...string) {
		for _, n := range names {
			if *v != "" {
				return
			}
			*v = os.Getenv(n)
		}
	}
	fill(&c.token, "VESPA_TOKEN", "VESPA_CLI_DATA_PLANE_TOKEN")
	fill(&c.cert, "VESPA_CERT_FILE", "VESPA_CERT")
	fill(&c.key, "VESPA_KEY_FILE", "VESPA_KEY")
	fill(&c.ca, "VESPA_CA_FILE", "VESPA_CA")
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
