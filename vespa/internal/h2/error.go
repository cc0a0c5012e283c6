package h2

import (
	"errors"
	"fmt"
	"io"

	"golang.org/x/net/http2"
)

// ErrNotProcessed marks a [*ConnError] for a request that the server did not
// process: it came above the last stream of the server's GOAWAY, was refused
// (REFUSED_STREAM), or its headers were never written before the connection
// was lost. Sending it again is safe; [Transport.RoundTrip] does so on a
// fresh connection a few times before giving up with this error.
var ErrNotProcessed = errors.New("h2: the server did not process the request")

// ErrPingTimeout is the Cause of the [*ConnError] of the streams of a
// connection closed because the server did not answer a PING in time.
var ErrPingTimeout = errors.New("h2: the server did not answer a PING in time")

// ErrClosed is returned by requests made after [Transport.Close].
var ErrClosed = errors.New("h2: transport closed")

// ConnError reports an HTTP/2 connection that ended before a stream's
// response was complete. It matches [io.ErrUnexpectedEOF] and its Cause
// (a *net.OpError, [io.EOF], an [http2.ConnectionError] for a protocol error
// ...) through errors.Is and errors.As, and [ErrNotProcessed] when the server
// did not process the request.
type ConnError struct {
	// Addr is the server's host:port.
	Addr string
	// Cause is why the connection ended; nil after a graceful GOAWAY.
	Cause error
	// GoAway is set when the server sent GOAWAY before the connection ended.
	GoAway *GoAway
	// NotProcessed reports that the server did not process the request.
	NotProcessed bool
}

// GoAway is the content of a GOAWAY frame the server sent.
type GoAway struct {
	LastStreamID uint32
	Code         http2.ErrCode
	Debug        string
}

// Error describes the failure.
func (e *ConnError) Error() string {
	msg := "h2: connection to " + e.Addr + " lost"
	if e.NotProcessed {
		msg = "h2: request not processed by " + e.Addr
	}
	if e.GoAway != nil {
		msg += fmt.Sprintf(" (GOAWAY last stream %d, %v", e.GoAway.LastStreamID, e.GoAway.Code)
		if e.GoAway.Debug != "" {
			msg += fmt.Sprintf(", %q", e.GoAway.Debug)
		}
		msg += ")"
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns [io.ErrUnexpectedEOF], the cause if any, and
// [ErrNotProcessed] when the request was not processed.
func (e *ConnError) Unwrap() []error {
	errs := make([]error, 0, 3)
	errs = append(errs, io.ErrUnexpectedEOF)
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	if e.NotProcessed {
		errs = append(errs, ErrNotProcessed)
	}
	return errs
}

// errFromPeer is the Cause of the [http2.StreamError] of a stream the server
// reset.
var errFromPeer = errors.New("reset by the server")
