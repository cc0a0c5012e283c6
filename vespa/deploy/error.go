package deploy

import (
	"errors"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// Error is a reply with a non-2xx status from a config server (or, through
// package cloud, from Vespa Cloud's control plane). When the body is not the
// server's {"error-code","message"} JSON, Message holds the start of it. It
// never contains request headers, the query string, keys or tokens.
//
// errors.Is matches it against [ErrUnauthorized] (401, 403) and the SDK's
// sentinel of its status: [ErrNotFound] (404), [ErrConflict] (409) and
// [ErrBadRequest] (400) are vespa.ErrNotFound, vespa.ErrConflict and
// vespa.ErrBadRequest, and vespa.ErrForbidden, vespa.ErrUnavailable and the
// rest match too. It wraps the same failure as a *vespa.Error (field Err),
// so errors.As(err, &vespaErr) works. Its StatusCode, ErrorCode and
// RetryAfter methods let retry policies classify it
// (retries.IsTransientConflict) and honour Retry-After.
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
	// Err is the same failure as the SDK's one error type, with its status,
	// message and Retry-After, which Unwrap returns: so errors.As(err,
	// &vespaErr) and the vespa sentinels work.
	Err *vespa.Error

	pkg string // "deploy" or "cloud", the start of Error()
}

// The control plane's requests are sent by one internal package, which
// cannot name Error (this package imports it): it makes and reads its
// errors through these two functions.
func init() {
	ctlplane.Register(ctlplane.ErrorType{
		Make: func(f ctlplane.Failure) error {
			return &Error{Op: f.Op, Method: f.Method, Path: f.Path, Status: f.Status, Code: f.Code, Message: f.Message, Err: f.Err, pkg: f.Pkg}
		},
		Read: func(err error) (ctlplane.Failure, bool) {
			var e *Error
			if !errors.As(err, &e) {
				return ctlplane.Failure{}, false
			}
			return e.failure(), true
		},
		Unauthorized:   ErrUnauthorized,
		OutcomeUnknown: ErrOutcomeUnknown,
	})
}

func (e *Error) failure() ctlplane.Failure {
	return ctlplane.Failure{Op: e.Op, Method: e.Method, Path: e.Path, Status: e.Status, Code: e.Code, Message: e.Message, Err: e.Err, Pkg: e.pkg}
}

// Error returns "<package>: <op>: <status> <code>: <message>" (the op left
// out where it is the package's name: "deploy: 400
// INVALID_APPLICATION_PACKAGE: ..."), with a hint where the cause is known
// (a container's port given instead of the config server's).
func (e *Error) Error() string {
	f := e.failure()
	return f.Text()
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
func (e *Error) Is(target error) bool { return ctlplane.StatusIs(e.Status, target) }

// Unwrap returns the failure as a *vespa.Error (Err).
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

// Sentinel errors. Test for them with errors.Is. Package cloud's sentinels of
// the same names are the same values.
var (
	// ErrMissingServicesXML is returned when an application package has no
	// services.xml at its root.
	ErrMissingServicesXML = errors.New("deploy: application package has no services.xml at its root")
	// ErrNotActivated is returned by [ConfigServer.Deploy] when the config
	// server prepared the package but did not activate it (a 200 reply whose
	// "activated" is false).
	ErrNotActivated = errors.New("deploy: application prepared but not activated")
	// ErrUnsafeLink is matched by the error of a package holding a symbolic
	// link that resolves outside the package's directory, or that cannot be
	// zipped (a link to a directory); the error names the link. Nothing is
	// sent.
	ErrUnsafeLink = errors.New("deploy: symbolic link not allowed in application package")
	// ErrOutcomeUnknown matches the error of an upload (a deployment, a
	// submission, a token's creation) whose request went out but whose reply
	// was lost: the connection dropped, or ctx ended, after the server may
	// have acted, or a gateway in front of it answered 502 or 504. The
	// upload is never sent again on its own (see retries.Upload); the error
	// says how to learn what happened.
	ErrOutcomeUnknown = errors.New("vespa control plane: outcome unknown")
	// ErrUnauthorized matches an [*Error] with status 401 or 403. It is never
	// retried. (The data plane tells them apart: vespa.ErrUnauthorized is
	// 401 only, vespa.ErrForbidden 403.)
	ErrUnauthorized = errors.New("vespa control plane: unauthorized")
	// ErrNotFound matches an [*Error] with status 404. It is vespa.ErrNotFound.
	ErrNotFound = vespa.ErrNotFound
	// ErrConflict matches an [*Error] with status 409, such as the config
	// server's ACTIVATION_CONFLICT or APPLICATION_LOCK_FAILURE. It is
	// vespa.ErrConflict.
	ErrConflict = vespa.ErrConflict
	// ErrBadRequest matches an [*Error] with status 400, such as an invalid
	// application package. It is vespa.ErrBadRequest.
	ErrBadRequest = vespa.ErrBadRequest
)
