package vespa

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Sentinels matched by [*Error] through errors.Is, one per outcome status.
var (
	// ErrBadRequest matches a 400: bad path, parameter, JSON, selection,
	// unknown document type or field.
	ErrBadRequest = errors.New("vespa: bad request")
	// ErrNotFound matches a 404: a Get of a document that does not exist
	// (update and remove of a missing document succeed with 200), or an
	// unknown API path.
	ErrNotFound = errors.New("vespa: not found")
	// ErrConditionNotMet matches a 412: the test-and-set condition was false,
	// or a condition was given for a missing document without create.
	ErrConditionNotMet = errors.New("vespa: condition not met")
	// ErrTooLarge matches a 413: the request body exceeds the server's limit.
	ErrTooLarge = errors.New("vespa: request too large")
	// ErrTooManyRequests matches a 429: the container is overloaded.
	ErrTooManyRequests = errors.New("vespa: too many requests")
	// ErrUnavailable matches a 503: the container is overloaded or not ready.
	ErrUnavailable = errors.New("vespa: service unavailable")
	// ErrTimeout matches a 504: the operation timed out in Vespa.
	ErrTimeout = errors.New("vespa: timeout")
	// ErrInsufficientStorage matches a 507: the content cluster blocks feed
	// because disk or memory is full.
	ErrInsufficientStorage = errors.New("vespa: insufficient storage")
)

var sentinelStatus = map[error]int{
	ErrBadRequest:          http.StatusBadRequest,
	ErrNotFound:            http.StatusNotFound,
	ErrConditionNotMet:     http.StatusPreconditionFailed,
	ErrTooLarge:            http.StatusRequestEntityTooLarge,
	ErrTooManyRequests:     http.StatusTooManyRequests,
	ErrUnavailable:         http.StatusServiceUnavailable,
	ErrTimeout:             http.StatusGatewayTimeout,
	ErrInsufficientStorage: http.StatusInsufficientStorage,
}

// Error is the error of a failed Vespa request: either a response with a
// status other than 2xx (Status set), or a transport failure (Status 0, Err
// set). It never contains credentials.
type Error struct {
	// Status is the HTTP status; 0 when no response was received.
	Status int
	// Message is Vespa's "message", or a short excerpt of a body that was not
	// Vespa JSON (such as a proxy's HTML error page).
	Message string
	// ID is the document ID the request was about, as text; may be empty.
	ID string
	// Op is the operation: "get", "put", "update", "remove" or another verb.
	Op string
	// Path is the request path (percent-encoded, without the query).
	Path string
	// Err is the underlying cause (transport failure, context error), if any.
	Err error
}

// Error returns "vespa: <op> <id>: <status> <text>: <message>" (parts that
// are empty are left out).
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("vespa: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteByte(' ')
	}
	switch {
	case e.ID != "":
		b.WriteString(quoteShort(e.ID, 200))
	case e.Path != "":
		b.WriteString(e.Path)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ": status %d %s", e.Status, http.StatusText(e.Status))
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

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's status ([ErrNotFound] for
// 404, and so on).
func (e *Error) Is(target error) bool {
	status, ok := sentinelStatus[target]
	return ok && status == e.Status
}

// ErrorFromResult returns nil when r has a 2xx status, and otherwise an
// [*Error] with r's status, message (or body excerpt), document ID and path,
// for the operation named op ("put", "get", ...). A nil r gives nil.
func ErrorFromResult(r *Result, op string) error {
	if r == nil || r.Status >= 200 && r.Status < 300 {
		return nil
	}
	msg := r.Message
	if msg == "" {
		msg = r.BodyExcerpt
	}
	var id string
	if !r.ID.IsZero() {
		id = r.ID.String()
	}
	return &Error{Status: r.Status, Message: msg, ID: id, Op: op, Path: r.Path}
}

var errUnknownKind = errors.New("vespa: unknown operation kind")

// unwrapURLError hides the *url.Error layer's text, which repeats the URL
// (the *Error around it names the path already), but keeps the *url.Error in
// the chain: retry classification ([retries.IsConnectionError]) recognises a
// dropped connection as an io.EOF inside a *url.Error.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return &transportError{ue: ue}
	}
	return err
}

// transportError prints a transport failure without its URL and unwraps to
// the original *url.Error.
type transportError struct{ ue *url.Error }

func (e *transportError) Error() string { return e.ue.Err.Error() }
func (e *transportError) Unwrap() error { return e.ue }
