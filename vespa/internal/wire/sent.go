package wire

import (
	"errors"
	"net"
)

// NotSent reports whether err proves that a request never reached the
// server, so that even a non-idempotent one may be sent again: a failed
// DNS lookup or a connection that could not be made (refused, unreachable,
// timed out while dialling). net/http itself re-sends, on a new connection,
// a request that it knows it had not written, so the errors that reach a
// caller otherwise (a reset, an EOF, a body cut short, "server closed idle
// connection") may have come after the server got the request.
func NotSent(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
