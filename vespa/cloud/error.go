package cloud

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Sentinel errors. Test for them with errors.Is.
var (
	// ErrMissingServicesXML is returned when an application package has no
	// services.xml at its root.
	ErrMissingServicesXML = errors.New("cloud: application package has no services.xml at its root")
	// ErrNotActivated is returned by [ConfigServer.Deploy] when the config
	// server prepared the package but did not activate it (a 200 reply whose
	// "activated" is false).
	ErrNotActivated = errors.New("cloud: application prepared but not activated")
	// ErrUnauthorized matches an [*Error] with status 401 or 403: the API key,
	// its signature or the access token was refused. It is never retried.
	ErrUnauthorized = errors.New("cloud: unauthorized")
	// ErrNotFound matches an [*Error] with status 404.
	ErrNotFound = errors.New("cloud: not found")
	// ErrConflict matches an [*Error] with status 409, such as the config
	// server's ACTIVATION_CONFLICT.
	ErrConflict = errors.New("cloud: conflict")
	// ErrBadRequest matches an [*Error] with status 400, such as an invalid
	// application package.
	ErrBadRequest = errors.New("cloud: bad request")
	// ErrRunFailed matches every [*RunError]: a deployment run ended with a
	// status other than success.
	ErrRunFailed = errors.New("cloud: deployment run failed")
	// ErrBuildFailed matches every [*BuildError]: a production build failed or
	// was cancelled.
	ErrBuildFailed = errors.New("cloud: production build failed")
)

// Error is a reply with a non-2xx status from a config server or from Vespa
// Cloud's control plane. Code and Message come from the reply's JSON body
// ({"error-code": ..., "message": ...}); when the body is not such JSON,
// Message holds the start of it. Error never contains request headers, keys
// or tokens.
type Error struct {
	// Op names the call that failed, such as "deploy" or "run status".
	Op string
	// Method is the request's method, such as "POST".
	Method string
	// Path is the request's URL path, without the query (which may say
	// more than an error should).
	Path string
	// Status is the HTTP status.
	Status int
	// Code is the server's "error-code", such as "INVALID_APPLICATION_PACKAGE".
	Code string
	// Message is the server's message.
	Message string
}

// Error returns "cloud: <op>: <status> <code>: <message>".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cloud: %s: %d", e.Op, e.Status)
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

// Is reports whether the error matches a status sentinel: [ErrUnauthorized]
// (401, 403), [ErrNotFound] (404), [ErrConflict] (409), [ErrBadRequest] (400).
func (e *Error) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrConflict:
		return e.Status == http.StatusConflict
	case ErrBadRequest:
		return e.Status == http.StatusBadRequest
	}
	return false
}

// maxErrorBody is how much of a non-JSON error body is kept as the message.
const maxErrorBody = 512

// newError builds an *Error from a reply's status and body.
func newError(op, method, path string, status int, body []byte) *Error {
	e := &Error{Op: op, Method: method, Path: path, Status: status}
	var env struct {
		ErrorCode string `json:"error-code"`
		Message   string `json:"message"`
		Code      any    `json:"code"` // the controller's {"code":403,"message":...}
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
