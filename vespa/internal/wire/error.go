package wire

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The sentinels of the SDK, one per outcome. Package vespa exports them
// under the same names; every package's errors match them through
// errors.Is, whichever package made the request.
var (
	ErrBadRequest          = errors.New("vespa: bad request")
	ErrUnauthorized        = errors.New("vespa: unauthorized")
	ErrForbidden           = errors.New("vespa: forbidden")
	ErrNotFound            = errors.New("vespa: not found")
	ErrConflict            = errors.New("vespa: conflict")
	ErrConditionNotMet     = errors.New("vespa: condition not met")
	ErrTooLarge            = errors.New("vespa: request too large")
	ErrTooManyRequests     = errors.New("vespa: too many requests")
	ErrUnavailable         = errors.New("vespa: service unavailable")
	ErrTimeout             = errors.New("vespa: timeout")
	ErrInsufficientStorage = errors.New("vespa: insufficient storage")
	ErrRedirect            = errors.New("vespa: redirect not followed")
	ErrMalformedResponse   = errors.New("vespa: malformed response")
	ErrResponseTooLarge    = errors.New("vespa: response too large")
)

// sentinelStatus is the one status→sentinel table. ErrRedirect (any 3xx),
// ErrMalformedResponse and ErrResponseTooLarge are matched apart.
var sentinelStatus = map[error]int{
	ErrBadRequest:          http.StatusBadRequest,
	ErrUnauthorized:        http.StatusUnauthorized,
	ErrForbidden:           http.StatusForbidden,
	ErrNotFound:            http.StatusNotFound,
	ErrConflict:            http.StatusConflict,
	ErrConditionNotMet:     http.StatusPreconditionFailed,
	ErrTooLarge:            http.StatusRequestEntityTooLarge,
	ErrTooManyRequests:     http.StatusTooManyRequests,
	ErrUnavailable:         http.StatusServiceUnavailable,
	ErrTimeout:             http.StatusGatewayTimeout,
	ErrInsufficientStorage: http.StatusInsufficientStorage,
}

// StatusIs reports whether target is the sentinel of status: the table
// above, and ErrRedirect for any 3xx.
func StatusIs(status int, target error) bool {
	if target == ErrRedirect { //nolint:errorlint // Is methods compare the target by identity
		return status >= 300 && status <= 399
	}
	s, ok := sentinelStatus[target]
	return ok && s == status
}

// Error is the error of a failed request of any package of the SDK (vespa.Error).
type Error struct {
	// Status is the HTTP status; 0 when no response was received.
	Status int
	// Message is Vespa's "message", or a short excerpt of a body that was not
	// Vespa JSON (such as a proxy's HTML error page).
	Message string
	// ID is the document ID the request was about, as text; may be empty.
	ID string
	// Op is the operation: "get", "put", "update", "remove", "visit",
	// "query", "health" or a control-plane verb.
	Op string
	// Path is the request path (percent-encoded, without the query).
	Path string
	// Location is the Location header of a 3xx answer, which is never
	// followed on the data plane, without user information or query.
	Location string
	// Err is the underlying cause (transport failure, context error,
	// malformed or oversized answer), if any.
	Err error

	retryAfter    time.Duration
	hasRetryAfter bool
}

// Error returns "vespa: <op> <id or path>: status <n> <text>: <message>:
// <cause>" (parts that are empty are left out).
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("vespa: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteByte(' ')
	}
	switch {
	case e.ID != "":
		b.WriteString(QuoteShort(e.ID, 200))
	case e.Path != "":
		b.WriteString(e.Path)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ": status %d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Status >= 300 && e.Status <= 399 {
		b.WriteString(": redirect not followed")
		if e.Location != "" {
			b.WriteString(" (Location: ")
			b.WriteString(e.Location)
			b.WriteByte(')')
		}
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// StatusCode returns the HTTP status, 0 when no response was received.
func (e *Error) StatusCode() int { return e.Status }

// RetryAfter returns the server's Retry-After hint (at most [MaxRetryAfter]),
// if its answer had one.
func (e *Error) RetryAfter() (time.Duration, bool) { return e.retryAfter, e.hasRetryAfter }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's status ([ErrNotFound]
// for 404, [ErrRedirect] for a 3xx, and so on).
func (e *Error) Is(target error) bool { return StatusIs(e.Status, target) }

// SetRetryAfter sets the Retry-After hint of e.
func SetRetryAfter(e *Error, d time.Duration, ok bool) { e.retryAfter, e.hasRetryAfter = d, ok }

// QuoteShort quotes s, cut to at most max bytes (on a rune boundary) and
// followed by its full length when cut.
func QuoteShort(s string, max int) string {
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("…(%d bytes)", len(s))
}
