package deploy

import (
	"errors"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// Error is a reply with a non-2xx status from a config server (or, through
// package cloud, from Vespa Cloud's control plane): its Op (the call, such as
// "deploy"), Method, Path (without the query), Status, Code (the server's
// "error-code", such as "INVALID_APPLICATION_PACKAGE" or
// "APPLICATION_LOCK_FAILURE") and Message. When the body is not the
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
type Error = ctlplane.Error

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
	ErrOutcomeUnknown = ctlplane.ErrOutcomeUnknown
	// ErrUnauthorized matches an [*Error] with status 401 or 403. It is never
	// retried. (The data plane tells them apart: vespa.ErrUnauthorized is
	// 401 only, vespa.ErrForbidden 403.)
	ErrUnauthorized = ctlplane.ErrUnauthorized
	// ErrNotFound matches an [*Error] with status 404. It is vespa.ErrNotFound.
	ErrNotFound = ctlplane.ErrNotFound
	// ErrConflict matches an [*Error] with status 409, such as the config
	// server's ACTIVATION_CONFLICT or APPLICATION_LOCK_FAILURE. It is
	// vespa.ErrConflict.
	ErrConflict = ctlplane.ErrConflict
	// ErrBadRequest matches an [*Error] with status 400, such as an invalid
	// application package. It is vespa.ErrBadRequest.
	ErrBadRequest = ctlplane.ErrBadRequest
)
