package retries

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
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
// than an answer from the server: a dial, read or write [*net.OpError],
// ECONNRESET, ECONNREFUSED, EPIPE, an unexpected or premature EOF, or an
// HTTP/2 GOAWAY or stream reset. It classifies by type, never by message text.
// TLS certificate errors are not connection errors: retrying cannot fix them.
func IsConnectionError(err error) bool {
	if err == nil || isCertificateError(err) {
		return false
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		switch opErr.Op {
		case "dial", "read", "write":
			return true
		}
	}
	return isHTTP2ConnectionError(err)
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

// http2ErrorTypes are the types of HTTP/2 GOAWAY and stream-reset errors, both
// those of golang.org/x/net/http2 and those bundled into net/http, whose types
// are unexported and can only be named through reflection.
var http2ErrorTypes = []string{
	"http2.GoAwayError", "http2.StreamError", "http2.ConnectionError",
	"http.http2GoAwayError", "http.http2StreamError", "http.http2ConnectionError",
	"http.http2errClientConnGotGoAway",
}

// isHTTP2ConnectionError walks err's chain looking for an HTTP/2 GOAWAY,
// connection or stream error, by the name of its type.
func isHTTP2ConnectionError(err error) bool {
	for _, e := range chain(err) {
		t := reflect.TypeOf(e)
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t != nil && slices.Contains(http2ErrorTypes, t.String()) {
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
		switch u := e.(type) {
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
