package testutil

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

func TestFreeLoopbackAddr(t *testing.T) {
	addr := FreeLoopbackAddr(t)
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" || port == "0" {
		t.Fatalf("FreeLoopbackAddr = %q (%v), want 127.0.0.1 and a port", addr, err)
	}
	conn, err := (&net.Dialer{}).DialContext(t.Context(), "tcp", addr)
	if err == nil {
		conn.Close()
		t.Fatalf("a dial to %s was answered, want it refused", addr)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial %s: %v, want a refused connection", addr, err)
	}
}
