package wire

import (
	"errors"
	"net"

	"github.com/govespa/govespa/vespa/internal/h2"
)

// NotSent reports whether err proves that a request never reached the
// server, or that the server did not process it, so that even a
// non-idempotent one may be sent again: a failed DNS lookup, a connection
// that could not be made (refused, unreachable, timed out while dialling),
// or an HTTP/2 stream the server refused (REFUSED_STREAM) or that came above
// the last stream of its GOAWAY (RFC 9113 8.7), once the batching
// transport's own quick resends of it ran out ([h2.ErrNotProcessed]). net/http itself re-sends, on a new connection,
// a request that it knows it had not written, so the errors that reach a
// caller otherwise (a reset, an EOF, a body cut short, "server closed idle
// connection") may have come after the server got the request.
func NotSent(err error) bool {
	if errors.Is(err, h2.ErrNotProcessed) {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
