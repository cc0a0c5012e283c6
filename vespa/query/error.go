package query

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/wire"
)

// Sentinels of this package, matched through errors.Is. The outcomes that
// other packages share are matched with the core sentinels: a query *Error
// with status 400 matches [vespa.ErrBadRequest], 404 [vespa.ErrNotFound], 429
// [vespa.ErrTooManyRequests], 503 [vespa.ErrUnavailable], 504
// [vespa.ErrTimeout] and 507 [vespa.ErrInsufficientStorage].
var (
	// ErrPartialResult matches the errors of a 200 result that carries
	// errors next to its hits ([Result.Err]).
	ErrPartialResult = errors.New("query: partial result")
	// ErrMalformedResponse matches a response whose body is not a Vespa
	// result (a proxy's error page, truncated JSON, null, {}): the same
	// sentinel as [vespa.ErrMalformedResponse].
	ErrMalformedResponse = vespa.ErrMalformedResponse
	// ErrUnauthorized matches a 401: the client is not authenticated. The
	// same sentinel as [vespa.ErrUnauthorized].
	ErrUnauthorized = vespa.ErrUnauthorized
	// ErrForbidden matches a 403: the client may not query. The same
	// sentinel as [vespa.ErrForbidden].
	ErrForbidden = vespa.ErrForbidden
	// ErrServerError matches any 5xx status, and any error code whose status
	// is 5xx (see [ErrorCode.HTTPStatus]).
	ErrServerError = errors.New("query: server error")
)

// Error is the error of a query that Vespa answered with errors: a status
// other than 2xx, or a 200 result with errors next to its hits. It carries
// the status, the result's error entries and, when the body decoded, the
// result itself.
//
// errors.Is matches it against the sentinel of its status and of each of
// its error codes' statuses: an error with code 12 matches [vespa.ErrTimeout]
// even inside a 200 result. errors.As finds the *[vespa.Error] it unwraps to.
// Use [Error.Has] or [CodeOf] to test for a code.
type Error struct {
	// Status is the HTTP status (200 for a partial result).
	Status int
	// Errors are the result's error entries; empty when the body was not a
	// Vespa result.
	Errors []ErrorMessage
	// Result is the decoded result, or nil when the body was not one.
	Result *Result
	// Body is a short excerpt of a body that was not a Vespa result.
	Body string

	base  *vespa.Error // the core error: status, first message, Retry-After
	cause error
}

// newError builds the error of a result with status (its Retry-After
// unknown). cause is a decoding failure, if any.
func newError(status int, r *Result, body string, cause error) *Error {
	return newResponseError(&wire.Response{Status: status}, r, body, cause)
}

// newResponseError builds the error of a response. cause is a decoding
// failure, if any.
func newResponseError(resp *wire.Response, r *Result, body string, cause error) *Error {
	e := &Error{Status: resp.Status, Result: r, Body: body, cause: cause}
	if r != nil {
		e.Errors = r.Errors
	}
	e.base, _ = wire.StatusError("query", "", "/search/", resp, e.firstMessage()).(*vespa.Error) //nolint:errorlint // package vespa made it, unwrapped
	return e
}

// Error returns "query: <status> <text>: <first error> (and n more)".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("query: ")
	b.WriteString(strconv.Itoa(e.Status))
	if t := http.StatusText(e.Status); t != "" {
		b.WriteByte(' ')
		b.WriteString(t)
	}
	switch {
	case len(e.Errors) > 0:
		b.WriteString(": ")
		b.WriteString(e.Errors[0].String())
		if n := len(e.Errors) - 1; n > 0 {
			fmt.Fprintf(&b, " (and %d more)", n)
		}
	case e.cause != nil:
		b.WriteString(": ")
		b.WriteString(e.cause.Error())
	case e.Body != "":
		b.WriteString(": ")
		b.WriteString(e.Body)
	}
	return b.String()
}

// StatusCode returns the HTTP status.
func (e *Error) StatusCode() int { return e.Status }

// RetryAfter returns the server's Retry-After hint of a 429 or 503, if any
// (at most 60 s).
func (e *Error) RetryAfter() (time.Duration, bool) {
	if e.base == nil {
		return 0, false
	}
	return e.base.RetryAfter()
}

// Has reports whether one of the error entries has the code c.
func (e *Error) Has(c ErrorCode) bool {
	for _, m := range e.Errors {
		if m.Code == c {
			return true
		}
	}
	return false
}

// Unwrap returns the causes: the *[vespa.Error] of the answer (so that code
// written for the core client's errors works, errors.As included), and the
// decoding failure of a malformed body, if any.
func (e *Error) Unwrap() []error {
	base := e.base
	if base == nil { // an Error built by hand
		base = &vespa.Error{Status: e.Status, Op: "query", Path: "/search/", Message: e.firstMessage()}
	}
	if e.cause != nil {
		return []error{base, e.cause}
	}
	return []error{base}
}

func (e *Error) firstMessage() string {
	if len(e.Errors) > 0 {
		return e.Errors[0].String()
	}
	return e.Body
}

// Is matches the sentinels of the status and of every error code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrPartialResult:
		return e.Status == http.StatusOK && len(e.Errors) > 0
	case ErrMalformedResponse:
		return e.cause != nil && errors.Is(e.cause, ErrMalformedResponse)
	}
	if statusIs(e.Status, target) {
		return true
	}
	for _, m := range e.Errors {
		if statusIs(m.Code.HTTPStatus(), target) {
			return true
		}
	}
	return false
}

// statusIs matches a status against this package's and the core's
// sentinels.
func statusIs(status int, target error) bool {
	// Identity on purpose: target is the sentinel handed to an Is method,
	// never a wrapper.
	//nolint:errorlint // Is methods compare the target by identity
	switch target {
	case ErrUnauthorized:
		return status == http.StatusUnauthorized
	case ErrForbidden:
		return status == http.StatusForbidden
	case ErrServerError:
		return status >= 500 && status <= 599
	}
	if status < 400 {
		return false
	}
	return (&vespa.Error{Status: status}).Is(target)
}

// CodeOf returns the code of the first error entry of err's *Error, and
// whether there is one.
func CodeOf(err error) (ErrorCode, bool) {
	var e *Error
	if errors.As(err, &e) && len(e.Errors) > 0 {
		return e.Errors[0].Code, true
	}
	return 0, false
}
