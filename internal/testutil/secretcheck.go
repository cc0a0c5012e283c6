package testutil

import (
	"strings"
	"testing"
)

// RefusedWithoutSecret checks that check refuses each of inputs with an
// error whose text does not show secret: for the parsers of URLs that may
// carry a password in their user information.
func RefusedWithoutSecret(tb testing.TB, secret string, check func(string) error, inputs ...string) {
	tb.Helper()
	for _, s := range inputs {
		err := check(s)
		switch {
		case err == nil:
			tb.Errorf("%q accepted", s)
		case strings.Contains(err.Error(), secret):
			tb.Errorf("%q: the error shows the secret: %v", s, err)
		}
	}
}
