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
	ErrBadRequest          = sentinel(http.StatusBadRequest, "bad request")
	ErrUnauthorized        = sentinel(http.StatusUnauthorized, "unauthorized")
	ErrForbidden           = sentinel(http.StatusForbidden, "forbidden")
	ErrNotFound            = sentinel(http.StatusNotFound, "not found")
	ErrConflict            = sentinel(http.StatusConflict, "conflict")
	ErrConditionNotMet     = sentinel(http.StatusPreconditionFailed, "condition not met")
	ErrTooLarge            = sentinel(http.StatusRequestEntityTooLarge, "request too large")
	ErrTooManyRequests     = sentinel(http.StatusTooManyRequests, "too many requests")
	ErrUnavailable         = sentinel(http.StatusServiceUnavailable, "service unavailable")
	ErrTimeout             = sentinel(http.StatusGatewayTimeout, "timeout")
	ErrInsufficientStorage = sentinel(http.StatusInsufficientStorage, "insufficient storage")
	ErrRedirect            = sentinel(0, "redirect not followed")
	ErrMalformedResponse   = sentinel(0, "malformed response")
	ErrResponseTooLarge    = sentinel(0, "response too large")
)

// sentinelStatus is the one status→sentinel table, filled by [sentinel].
// ErrRedirect (any 3xx), ErrMalformedResponse and ErrResponseTooLarge,
// made with status 0, are matched apart.
var sentinelStatus = map[error]int{}

// sentinel returns a new sentinel error with the text "vespa: " + what,
// matched by an answer of status (none when 0).
func sentinel(status int, what string) error {
	err := errors.New("vespa: " + what)
	if status != 0 {
		sentinelStatus[err] = status
	}
	return err
}

// StatusIs reports whether target is the sentinel of status: the table
// [sentinel] fills, and ErrRedirect for any 3xx.
func StatusIs(status int, target error) bool {
	if target == ErrRedirect { //nolint:errorlint // Is methods compare the target by identity
		return status >= 300 && status <= 399
	}
	s, ok := sentinelStatus[target]
	return ok && s == status
}

// Failure is what the SDK's error of a failed request holds. Its public
// type is vespa.Error, declared in package vespa so that go doc and editors
// show it; vespa imports this package, so this package cannot name it:
// vespa registers it ([Register]) when it is initialised, and every error
// of a failed request is made here through [NewError] and read through
// [FailureOf]. Every package that sends requests imports vespa, so that at
// run time there is one error type, *vespa.Error; failureError stands in
// only where vespa is not linked in (this package's own tests).
type Failure struct {
	Status   int    // the HTTP status; 0 when no response was received
	Message  string // Vespa's "message", or an excerpt of a body that was not Vespa JSON
	ID       string // the document ID, as text; may be empty
	Op       string // "get", "put", ..., "query", "health" or a control-plane verb
	Path     string // the request path (percent-encoded, without the query)
	Location string // the Location of a 3xx, without user information or query
	Err      error  // the underlying cause, if any

	RetryAfter    time.Duration // the server's Retry-After hint, if HasRetryAfter
	HasRetryAfter bool
}

// Text returns "vespa: <op> <id or path>: status <n> <text>: <message>:
// <cause>" (parts that are empty are left out): the text of vespa.Error.
func (f *Failure) Text() string {
	var b strings.Builder
	b.WriteString("vespa: ")
	if f.Op != "" {
		b.WriteString(f.Op)
		b.WriteByte(' ')
	}
	switch {
	case f.ID != "":
		b.WriteString(QuoteShort(f.ID, 200))
	case f.Path != "":
		b.WriteString(f.Path)
	}
	if f.Status != 0 {
		fmt.Fprintf(&b, ": status %d %s", f.Status, http.StatusText(f.Status))
	}
	if f.Status >= 300 && f.Status <= 399 {
		b.WriteString(": redirect not followed")
		if f.Location != "" {
			b.WriteString(" (Location: ")
			b.WriteString(f.Location)
			b.WriteByte(')')
		}
	}
	if f.Message != "" {
		b.WriteString(": ")
		b.WriteString(f.Message)
	}
	if f.Err != nil {
		b.WriteString(": ")
		b.WriteString(f.Err.Error())
	}
	return b.String()
}

// errorType is the registered public error type: how to make one from a
// Failure and how to read one back. Set once, by package vespa's init,
// before any request can be made; read-only after.
var errorType struct {
	make func(Failure) error
	read func(error) (Failure, bool)
}

// Register makes make and read the way this package makes and reads the
// errors of failed requests. Package vespa calls it from its init; it is
// not safe to call once requests run.
func Register(make func(Failure) error, read func(error) (Failure, bool)) {
	errorType.make, errorType.read = make, read
}

// NewError returns the error of the failure f: a *vespa.Error.
func NewError(f Failure) error {
	if errorType.make != nil {
		return errorType.make(f)
	}
	return &failureError{f}
}

// FailureOf returns the failure of the first error in err's chain that is
// the error of a failed request (a *vespa.Error), and whether there is one.
func FailureOf(err error) (Failure, bool) {
	if errorType.read != nil {
		return errorType.read(err)
	}
	var fe *failureError
	if errors.As(err, &fe) {
		return fe.f, true
	}
	return Failure{}, false
}

// failureError is the error of a failure where package vespa is not linked
// in (see [Failure]).
type failureError struct{ f Failure }

func (e *failureError) Error() string                     { return e.f.Text() }
func (e *failureError) StatusCode() int                   { return e.f.Status }
func (e *failureError) RetryAfter() (time.Duration, bool) { return e.f.RetryAfter, e.f.HasRetryAfter }
func (e *failureError) Unwrap() error                     { return e.f.Err }
func (e *failureError) Is(target error) bool              { return StatusIs(e.f.Status, target) }

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
