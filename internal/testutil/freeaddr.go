package testutil

import (
	"net"
	"testing"
)

// FreeLoopbackAddr returns a loopback host:port that nothing listens on: the
// address of a listener it opens and closes again. A dial to it is refused,
// so it stands for a node that is down; a test may also listen there itself.
// It fails the test on error.
func FreeLoopbackAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := (&net.ListenConfig{}).Listen(tb.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		tb.Fatal(err)
	}
	return addr
}
