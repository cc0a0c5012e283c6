package ctlplane

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/wire"
)

// Sentinels of [Error] statuses, shared by packages deploy and cloud. Those
// of one status are the SDK's own (vespa.ErrNotFound and so on), so that one
// test serves every package; ErrUnauthorized matches 401 and 403 both.
var (
	ErrUnauthorized = errors.New("vespa control plane: unauthorized")
	ErrNotFound     = wire.ErrNotFound
	ErrConflict     = wire.ErrConflict
	ErrBadRequest   = wire.ErrBadRequest
	// ErrOutcomeUnknown matches the error of an upload whose request went
	// out but whose reply was lost.
	ErrOutcomeUnknown = errors.New("vespa control plane: outcome unknown")
)

// Error is a reply with a non-2xx status from a config server or from Vespa
// Cloud's control plane. Code and Message come from the reply's JSON body
// ({"error-code": ..., "message": ...}); when the body is not such JSON,
// Message holds the start of it. Error never contains request headers, the
// query string, keys or tokens.
type Error struct {
	// Op names the call that failed, such as "deploy" or "run status".
	Op string
	// Method is the request's method, such as "POST".
	Method string
	// Path is the request's URL path, without the query.
	Path string
	// Status is the HTTP status.
	Status int
	// Code is the server's "error-code", such as "INVALID_APPLICATION_PACKAGE"
	// or "APPLICATION_LOCK_FAILURE".
	Code string
	// Message is the server's message.
	Message string
	// Err is the same failure as the SDK's one error type (*vespa.Error,
	// with its status, message and Retry-After), which Unwrap returns: so
	// errors.As(err, &vespaErr) and the vespa sentinels work.
	Err *vespa.Error

	pkg string // "deploy" or "cloud", the start of Error()
}

// Error returns "<package>: <op>: <status> <code>: <message>" (the op left
// out where it is the package's name), with a hint where the cause is known.
func (e *Error) Error() string {
	var b strings.Builder
	pkg := e.pkg
	if pkg == "" {
		pkg = "vespa"
	}
	if e.Op == "" || e.Op == pkg {
		fmt.Fprintf(&b, "%s: %d", pkg, e.Status) // "deploy: deploy:" says nothing more
	} else {
		fmt.Fprintf(&b, "%s: %s: %d", pkg, e.Op, e.Status)
	}
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	} else if t := http.StatusText(e.Status); t != "" {
		b.WriteString(" " + t)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Status == http.StatusNotFound && strings.Contains(e.Message, "No request handler bound to") && strings.HasPrefix(e.Path, "/application/v2/") {
		// JDisc's own 404 for a path no handler serves: a container (8080),
		// not the config server (19071), answered.
		b.WriteString(" (a Vespa container answered, not a config server: give the config server's URL, port 19071 by default)")
	}
	return b.String()
}

// StatusCode returns the HTTP status, so that retry policies can classify the
// error (see package retries).
func (e *Error) StatusCode() int { return e.Status }

// ErrorCode returns the server's error-code, so that retry policies can tell
// a transient 409 from a final one (retries.IsTransientConflict).
func (e *Error) ErrorCode() string { return e.Code }

// Is reports whether the error matches [ErrUnauthorized] (401, 403) or the
// SDK's sentinel of its status (vespa.ErrNotFound for 404, vespa.ErrConflict
// for 409, and so on, which [ErrNotFound], [ErrConflict] and
// [ErrBadRequest] are).
func (e *Error) Is(target error) bool {
	if target == ErrUnauthorized { //nolint:errorlint // sentinel identity
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	}
	return wire.StatusIs(e.Status, target)
}

// Unwrap returns the failure as a *vespa.Error.
func (e *Error) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// RetryAfter returns the reply's Retry-After hint, so that retry policies
// honour it (within their cap).
func (e *Error) RetryAfter() (time.Duration, bool) {
	if e.Err == nil {
		return 0, false
	}
	return e.Err.RetryAfter()
}

// maxErrorBody is how much of a non-JSON error body is kept as the message.
const maxErrorBody = 512

// NewError builds an *Error from a reply's status and body; pkg ("deploy",
// "cloud") starts its text.
func NewError(pkg, op, method, path string, status int, body []byte) *Error {
	e := &Error{pkg: pkg, Op: op, Method: method, Path: path, Status: status}
	defer func() { e.Err = vespaError(op, path, status, e.Message, 0, false) }()
	var env struct {
		ErrorCode string `json:"error-code"`
		Message   string `json:"message"`
	}
	if json.Unmarshal(body, &env) == nil && (env.Message != "" || env.ErrorCode != "") {
		e.Code, e.Message = env.ErrorCode, env.Message
		return e
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > maxErrorBody {
		msg = msg[:maxErrorBody] + "…"
	}
	e.Message = msg
	return e
}

// outcomeError is an upload whose request went out and whose reply was lost.
type outcomeError struct {
	pkg, op, check string
	err            error
}

func (e *outcomeError) Error() string {
	prefix := e.pkg + ": " + e.op
	if e.op == e.pkg {
		prefix = e.pkg // "deploy: deploy:" says nothing more
	}
	return fmt.Sprintf("%s: the request was sent but no reply came (%v): it may or may not have taken effect, and it was not sent again; %s",
		prefix, e.err, e.check)
}

func (e *outcomeError) Unwrap() error { return e.err }

func (e *outcomeError) Is(target error) bool { return target == ErrOutcomeUnknown }

// vespaError returns the SDK's error of a reply (package vespa's Error,
// made through package wire so that its Retry-After is set).
func vespaError(op, path string, status int, message string, retryAfter time.Duration, hasRetryAfter bool) *vespa.Error {
	ve, _ := wire.NewError(wire.Failure{Op: op, Path: path, Status: status, Message: message,
		RetryAfter: retryAfter, HasRetryAfter: hasRetryAfter}).(*vespa.Error) // package vespa, imported, made it
	return ve
}
