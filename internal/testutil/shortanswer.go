package testutil

import (
	"io"
	"net"
	"strconv"
	"testing"
)

// ShortAnswerServer is a RawServer that reads each request and answers 200
// with a JSON Content-Length of claimed bytes, of which it sends only body
// before it closes the connection: an answer that lies about its length, or
// one cut short. It returns the server's http:// URL.
func ShortAnswerServer(tb testing.TB, claimed int, body string) string {
	tb.Helper()
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(claimed) + "\r\n\r\n"
	return RawServer(tb, func(conn net.Conn) {
		defer func() { _ = conn.Close() }()
		if _, err := ReadRequest(conn); err != nil {
			return
		}
		_, _ = io.WriteString(conn, head+body)
	})
}
