package ctlplane

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/govespa/govespa/vespa"
)

// Sentinels of [Error] statuses, shared by packages deploy and cloud.
var (
	ErrUnauthorized = errors.New("vespa control plane: unauthorized")
	ErrNotFound     = errors.New("vespa control plane: not found")
	ErrConflict     = errors.New("vespa control plane: conflict")
	ErrBadRequest   = errors.New("vespa control plane: bad request")
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

	pkg string // "deploy" or "cloud", the start of Error()
}

// Error returns "<package>: <op>: <status> <code>: <message>".
func (e *Error) Error() string {
	var b strings.Builder
	pkg := e.pkg
	if pkg == "" {
		pkg = "vespa"
	}
	fmt.Fprintf(&b, "%s: %s: %d", pkg, e.Op, e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	} else if t := http.StatusText(e.Status); t != "" {
		b.WriteString(" " + t)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// StatusCode returns the HTTP status, so that retry policies can classify the
// error (see package retries).
func (e *Error) StatusCode() int { return e.Status }

// ErrorCode returns the server's error-code, so that retry policies can tell
// a transient 409 from a final one (retries.IsTransientConflict).
func (e *Error) ErrorCode() string { return e.Code }

// Is reports whether the error matches a status sentinel: [ErrUnauthorized]
// (401, 403), [ErrNotFound] (404), [ErrConflict] (409), [ErrBadRequest]
// (400), and the data plane's vespa.ErrNotFound (404) and
// vespa.ErrBadRequest (400), so that one test serves every package.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	case ErrNotFound, vespa.ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrConflict:
		return e.Status == http.StatusConflict
	case ErrBadRequest, vespa.ErrBadRequest:
		return e.Status == http.StatusBadRequest
	}
	return false
}

// maxErrorBody is how much of a non-JSON error body is kept as the message.
const maxErrorBody = 512

// NewError builds an *Error from a reply's status and body; pkg ("deploy",
// "cloud") starts its text.
func NewError(pkg, op, method, path string, status int, body []byte) *Error {
	e := &Error{pkg: pkg, Op: op, Method: method, Path: path, Status: status}
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
	return fmt.Sprintf("%s: %s: the request was sent but no reply came (%v): it may or may not have taken effect, and it was not sent again; %s",
		e.pkg, e.op, e.err, e.check)
}

func (e *outcomeError) Unwrap() error { return e.err }

func (e *outcomeError) Is(target error) bool { return target == ErrOutcomeUnknown }
