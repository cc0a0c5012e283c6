package cloud

import (
	"errors"

	"github.com/govespa/govespa/vespa/deploy"
)

// Error is a reply with a non-2xx status from Vespa Cloud's control plane,
// the same type as [deploy.Error]: its Op (the call, such as "deploy" or "run
// status"), Method, Path (without the query), Status, Code (the
// controller's "error-code") and Message. It never contains request
// headers, the query string, keys or tokens. errors.Is matches it against
// [ErrUnauthorized] (401, 403) and the SDK's sentinel of its status
// ([ErrNotFound], [ErrConflict] and [ErrBadRequest] are vespa.ErrNotFound,
// vespa.ErrConflict and vespa.ErrBadRequest); errors.As finds the
// *vespa.Error it wraps (field Err). Its methods StatusCode, ErrorCode
// (the "error-code") and RetryAfter (the reply's Retry-After hint) let
// retry policies classify it. Being the same type, errors.As with a
// *deploy.Error finds it too; go doc deploy.Error shows its fields.
type Error = deploy.Error

// Sentinel errors. Test for them with errors.Is. Those shared with package
// deploy are the same values.
var (
	// ErrUnauthorized matches an [*Error] with status 401 or 403: the API key,
	// its signature or the access token was refused. It is never retried.
	// (The data plane tells them apart: vespa.ErrUnauthorized is 401 only,
	// vespa.ErrForbidden 403.)
	ErrUnauthorized = deploy.ErrUnauthorized
	// ErrNotFound matches an [*Error] with status 404. It is vespa.ErrNotFound.
	ErrNotFound = deploy.ErrNotFound
	// ErrConflict matches an [*Error] with status 409. It is vespa.ErrConflict.
	ErrConflict = deploy.ErrConflict
	// ErrBadRequest matches an [*Error] with status 400, such as an invalid
	// application package. It is vespa.ErrBadRequest.
	ErrBadRequest = deploy.ErrBadRequest
	// ErrOutcomeUnknown matches the error of an upload ([Client.Deploy],
	// [Client.Submit], [Client.CreateToken]) whose request went out but whose
	// reply was lost, or was a gateway's 502 or 504. It is never sent again
	// on its own; the error says where to look (the runs, the builds, the
	// tokens) before sending it again.
	ErrOutcomeUnknown = deploy.ErrOutcomeUnknown
	// ErrRunFailed matches every [*RunError]: a deployment run ended with a
	// status other than success.
	ErrRunFailed = errors.New("cloud: deployment run failed")
	// ErrBuildFailed matches every [*BuildError]: a production build failed or
	// was cancelled.
	ErrBuildFailed = errors.New("cloud: production build failed")
	// ErrNoCredentials is returned by [NewClient] with [FromEnvironment] when
	// neither the environment nor Vespa's CLI's files hold an API key.
	ErrNoCredentials = errors.New("cloud: no Vespa Cloud credentials found")
)
