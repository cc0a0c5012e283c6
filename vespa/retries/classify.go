package retries

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"reflect"
	"slices"
	"syscall"
)

// RetryIfStatus returns a predicate that retries outcomes carrying one of the
// given HTTP statuses (see [Outcome.StatusCode]).
func RetryIfStatus(codes ...int) RetryIf {
	codes = slices.Clone(codes)
	return func(o Outcome) bool {
		return slices.Contains(codes, o.StatusCode())
	}
}

// RetryIfError retries every outcome with a non-nil error.
func RetryIfError(o Outcome) bool { return o.Err != nil }

// RetryIfConnectionError retries outcomes whose error is a connection error
// ([IsConnectionError]).
func RetryIfConnectionError(o Outcome) bool { return IsConnectionError(o.Err) }

// IsFinal4xx reports whether status is a 4xx that retrying cannot fix: any of
// 400–499 other than 408 (request timeout) and 429 (too many requests).
func IsFinal4xx(status int) bool {
	return status >= 400 && status <= 499 && status != 408 && status != 429
}

// IsConnectionError reports whether err is a failure of the connection rather
// than an answer from the server, so that sending again (on a new connection)
// may succeed. It is true for:
//   - a dial, read or write [*net.OpError] (a refused port, an unreachable or
//     unresolvable host, a connection reset while reading or writing);
//   - ECONNRESET, ECONNREFUSED, ECONNABORTED, EPIPE and [net.ErrClosed]
//     however they are wrapped;
//   - [io.ErrUnexpectedEOF] (a response cut short), and [io.EOF] inside a
//     [*url.Error] (net/http's report of a server that closed the connection
//     before answering);
//   - net/http's "server closed idle connection" (see below);
//   - an HTTP/2 GOAWAY, stream reset (RST_STREAM) or connection error, from
//     net/http's bundled HTTP/2 or from golang.org/x/net/http2.
//
// It classifies by type, never by message text, with one exception: net/http
// reports a keep-alive connection that the server closed while the client was
// sending on it as an unexported sentinel made with errors.New, which has no
// type of its own; that one error is recognised by its exact text, only as
// the direct cause of a [*url.Error]. TLS certificate errors are not
// connection errors (retrying cannot fix them), nor are a context's
// cancellation or deadline. A nil err is not a connection error.
func IsConnectionError(err error) bool {
	if err == nil || isFinalTransportError(err) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		switch opErr.Op {
		case "dial", "read", "write":
			return true
		}
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		// net/http unwraps its transportReadFromServerError and returns the
		// bare io.EOF of a connection the server closed without answering.
		if errors.Is(uerr.Err, io.EOF) {
			return true
		}
		if isServerClosedIdle(uerr.Err) || isLostPing(uerr.Err) {
			return true
		}
	}
	return isHTTP2ConnectionError(err)
}

// serverClosedIdle is the text of net/http's unexported errServerClosedIdle
// (transport.go, unchanged since Go 1.9, still so in Go 1.26). It reaches
// callers of requests that net/http does not replay itself (a POST or PUT
// without an Idempotency-Key) when the server closes an idle keep-alive
// connection just as the client reuses it.
const serverClosedIdle = "http: server closed idle connection"

// isServerClosedIdle reports whether err is net/http's errServerClosedIdle: an
// error built by errors.New (whose dynamic type is the unexported
// *errors.errorString) with exactly that text. It has no type to match.
func isServerClosedIdle(err error) bool {
	if err == nil || reflect.TypeOf(err) != errorStringType {
		return false
	}
	return err.Error() == serverClosedIdle
}

// lostPing is the text of the error that net/http's HTTP/2 fails the streams
// of a connection with when the server left a PING of its health check
// unanswered (http2ClientConn.closeForLostPing in h2_bundle.go, Go 1.26): a
// connection error, made by errors.New at the call.
const lostPing = "http2: client connection lost"

// isLostPing reports whether err is that error, by its type and exact text.
func isLostPing(err error) bool {
	return err != nil && reflect.TypeOf(err) == errorStringType && err.Error() == lostPing
}

// errorStringType is the dynamic type of the errors made by errors.New.
var errorStringType = reflect.TypeOf(errors.New(""))

// ErrHTTP2NotNegotiated matches a TLS server that did not offer HTTP/2 in
// ALPN to a transport that speaks only HTTP/2 (a feeder's, or
// WithHTTPVersion(HTTP2)). Sending again gets the same answer, so no policy
// retries it: use an endpoint that speaks HTTP/2, or HTTP/1.1.
var ErrHTTP2NotNegotiated = errors.New("the server did not negotiate HTTP/2 through ALPN")

// ErrProtocolViolation matches an HTTP/2 response that the batching
// transport (vespa.HTTP2Batching) refused because it breaks the protocol
// (RFC 9113; a malformed response in its words, not Vespa's JSON): a
// 1xx with END_STREAM, DATA that does not match content-length, a frame
// larger than the SETTINGS_MAX_FRAME_SIZE the client announced, invalid
// header fields, an overrun flow-control window. Such a server is not
// answering as Vespa does, and sending again gets the same, so neither
// [Feed] nor [SyncRequest] retries it ([IsConnectionError] is false), as
// they retry no other malformed answer. When the
// violation is of the connection (a frame too large), every request in
// flight on it fails with it.
var ErrProtocolViolation = errors.New("the server broke HTTP/2")

// ErrUnreachable matches the dial error of a client that has never reached
// its endpoint once every dial for its connect patience (vespa's
// WithConnectPatience, 5 s by default) was refused or its host did not
// resolve: a wrong endpoint, most likely. Neither [Feed] nor [SyncRequest]
// retries it ([IsConnectionError] is false), and a feeder stops at the
// first one; a client that connected once retries refused connections as
// any connection error.
var ErrUnreachable = errors.New("endpoint unreachable")

// isFinalTransportError reports whether err is a transport failure that
// sending again cannot mend: a certificate refused, HTTP/2 not offered, a
// response that breaks HTTP/2, or an endpoint never reached.
func isFinalTransportError(err error) bool {
	return isCertificateError(err) || errors.Is(err, ErrHTTP2NotNegotiated) || errors.Is(err, ErrProtocolViolation) ||
		errors.Is(err, ErrUnreachable)
}

// isCertificateError reports whether err comes from verifying a certificate.
func isCertificateError(err error) bool {
	var (
		verr *tls.CertificateVerificationError
		uerr x509.UnknownAuthorityError
		herr x509.HostnameError
		cerr x509.CertificateInvalidError
		aerr tls.AlertError
	)
	return errors.As(err, &verr) || errors.As(err, &uerr) || errors.As(err, &herr) ||
		errors.As(err, &cerr) || errors.As(err, &aerr)
}

// http2ErrorType names a type by its package path and name.
type http2ErrorType struct{ pkgPath, name string }

// http2ErrorTypes are the types of HTTP/2 GOAWAY, stream-reset and connection
// errors. net/http bundles its own copy of golang.org/x/net/http2 into
// h2_bundle.go with every identifier prefixed "http2" and unexported, so its
// types can only be recognised through reflection: checked against Go 1.26's
// h2_bundle.go, where the transport returns http2GoAwayError when the server
// sent GOAWAY and closed the connection, http2StreamError when it reset the
// stream (RST_STREAM) and http2ConnectionError on a connection-level protocol
// error. (Its errClientConnGotGoAway is a sentinel the transport retries on
// its own, with a rewindable body, as every govespa body is.)
var http2ErrorTypes = []http2ErrorType{
	{"net/http", "http2GoAwayError"},
	{"net/http", "http2StreamError"},
	{"net/http", "http2ConnectionError"},
	{"golang.org/x/net/http2", "GoAwayError"},
	{"golang.org/x/net/http2", "StreamError"},
	{"golang.org/x/net/http2", "ConnectionError"},
}

// isHTTP2ConnectionError walks err's chain looking for an HTTP/2 GOAWAY,
// connection or stream error, by its type's package path and name.
func isHTTP2ConnectionError(err error) bool {
	for _, e := range chain(err) {
		t := reflect.TypeOf(e)
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t != nil && slices.Contains(http2ErrorTypes, http2ErrorType{t.PkgPath(), t.Name()}) {
			return true
		}
	}
	return false
}

// chain flattens err's wrap tree, depth first.
func chain(err error) []error {
	var out []error
	var walk func(error)
	walk = func(e error) {
		if e == nil || len(out) > 64 {
			return
		}
		out = append(out, e)
		// A type switch on purpose: walk visits each link of the tree itself,
		// so it must see e's own Unwrap methods, not those of a wrapped error.
		switch u := e.(type) { //nolint:errorlint // walking the wrap tree one link at a time
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// isNilValue reports whether v is nil or a typed nil pointer, map, slice,
// func, chan or interface, so that a nil *Response result is not asked for
// its status.
func isNilValue(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
