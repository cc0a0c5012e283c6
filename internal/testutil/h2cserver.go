package testutil

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// H2CServer starts a loopback server for h that speaks HTTP/1.1 and
// prior-knowledge h2c (HTTP/2 without TLS), as a Vespa container does, and
// closes it when tb ends.
func H2CServer(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	s := httptest.NewUnstartedServer(h)
	s.Config.Protocols = new(http.Protocols)
	s.Config.Protocols.SetHTTP1(true)
	s.Config.Protocols.SetUnencryptedHTTP2(true)
	s.Start()
	tb.Cleanup(s.Close)
	return s
}
