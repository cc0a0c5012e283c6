package testutil

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// CredentialCase is one way of handing an example program its data-plane
// credentials, for [CheckCredentials].
type CredentialCase struct {
	// Name names the subtest.
	Name string
	// Env sets credential variables; the others of CheckCredentials's
	// envNames are set empty.
	Env map[string]string
	// Args are flags after the program's own.
	Args []string
	// Code is the exit status wanted.
	Code int
}

// CheckCredentials runs an example program's run function once per case,
// with args and the case's flags and environment (every variable of
// envNames, credflags.EnvNames(), set as the case says or empty; testutil
// imports no SDK package, as vespatest's tests use it), against a server that
// wants secret, and fails a case whose exit status is not its Code or whose
// stderr shows the secret. Then it runs "-h" with $VESPA_TOKEN set to the
// secret and fails unless that exits 0 with a usage that names -ca-cert
// and not the secret.
func CheckCredentials(t *testing.T, run func(ctx context.Context, args []string, stdout, stderr io.Writer) int,
	args, envNames []string, secret string, cases []CredentialCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			for _, n := range envNames {
				t.Setenv(n, tc.Env[n])
			}
			var stdout, stderr bytes.Buffer
			if code := run(t.Context(), append(append([]string{}, args...), tc.Args...), &stdout, &stderr); code != tc.Code {
				t.Errorf("exit %d, want %d: %s", code, tc.Code, stderr.String())
			}
			if strings.Contains(stderr.String(), secret) {
				t.Errorf("the token is on stderr: %s", stderr.String())
			}
		})
	}
	t.Run("-h does not print the token", func(t *testing.T) {
		t.Setenv("VESPA_TOKEN", secret)
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), []string{"-h"}, &stdout, &stderr); code != 0 || strings.Contains(stderr.String(), secret) ||
			!strings.Contains(stderr.String(), "-ca-cert") {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	})
}
