package testutil

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
)

// RawServer accepts connections on a loopback port and hands each to serve,
// one after the other, until tb ends; it returns the server's http:// URL.
// serve writes whatever bytes the test needs, such as an answer that lies
// about its length, and closes the connection when it is done.
func RawServer(tb testing.TB, serve func(net.Conn)) string {
	tb.Helper()
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			serve(conn)
		}
	}()
	tb.Cleanup(func() { _ = ln.Close(); <-done })
	return "http://" + ln.Addr().String()
}

// ReadRequest reads one HTTP/1 request, head and body, from conn.
func ReadRequest(conn net.Conn) (*http.Request, error) {
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, req.Body)
	return req, nil
}
