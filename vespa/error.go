package vespa

import (
	"errors"

	"github.com/govespa/govespa/vespa/internal/wire"
	"github.com/govespa/govespa/vespa/retries"
)

// Sentinels matched through errors.Is by the [*Error] of any package of the
// SDK (vespa, feed, query, cloud, deploy, models), one per outcome: the same
// status gives the same sentinel wherever the request was made.
var (
	// ErrBadRequest matches a 400: bad path, parameter, JSON, selection,
	// unknown document type or field.
	ErrBadRequest = wire.ErrBadRequest
	// ErrUnauthorized matches a 401: the client is not authenticated (a
	// missing or wrong token or certificate). A 403 — authenticated, but
	// not allowed — is [ErrForbidden]. (The control plane's
	// deploy.ErrUnauthorized and cloud.ErrUnauthorized match both 401 and
	// 403, where either means the key or token was refused; to test for
	// either on the data plane, check ErrUnauthorized and ErrForbidden.)
	ErrUnauthorized = wire.ErrUnauthorized
	// ErrForbidden matches a 403: the client may not do this.
	ErrForbidden = wire.ErrForbidden
	// ErrNotFound matches a 404: a Get of a document that does not exist
	// (update and remove of a missing document succeed with 200), or an
	// unknown API path.
	ErrNotFound = wire.ErrNotFound
	// ErrConflict matches a 409: the server's state conflicts with the
	// request (a control-plane deployment in progress, say).
	ErrConflict = wire.ErrConflict
	// ErrConditionNotMet matches a 412: the test-and-set condition was false,
	// or a condition was given for a missing document without create.
	ErrConditionNotMet = wire.ErrConditionNotMet
	// ErrTooLarge matches a 413: the request body exceeds the server's limit.
	ErrTooLarge = wire.ErrTooLarge
	// ErrTooManyRequests matches a 429: the container is overloaded.
	ErrTooManyRequests = wire.ErrTooManyRequests
	// ErrUnavailable matches a 503: the container is overloaded or not ready.
	ErrUnavailable = wire.ErrUnavailable
	// ErrTimeout matches a 504: the operation timed out in Vespa.
	ErrTimeout = wire.ErrTimeout
	// ErrInsufficientStorage matches a 507: the content cluster blocks feed
	// because disk or memory is full.
	ErrInsufficientStorage = wire.ErrInsufficientStorage
	// ErrRedirect matches any 3xx. Vespa never redirects /document/v1 or
	// /search/, so the data plane and queries never follow a redirect: the
	// answer of something in front of Vespa (an http→https hop, a login
	// proxy) is an error naming its status and Location, and nothing is
	// written or sent elsewhere. Check the endpoint.
	ErrRedirect = wire.ErrRedirect
	// ErrMalformedResponse matches a 2xx answer whose body is not the JSON
	// Vespa sends (an HTML login page, a truncated or empty body): it is
	// never taken for a success. The error quotes the start of the body.
	ErrMalformedResponse = wire.ErrMalformedResponse
	// ErrResponseTooLarge matches an answer larger than the client's limit
	// on what it reads into memory ([WithDocumentLimit], [WithVisitPageLimit],
	// query.WithResultLimit).
	ErrResponseTooLarge = wire.ErrResponseTooLarge
	// ErrUnreachable matches the error of a request from a client that never
	// reached its endpoint, once its dials were refused (or its host did not
	// resolve) for [WithConnectPatience]: most likely a wrong endpoint. It is
	// [retries.ErrUnreachable].
	ErrUnreachable = retries.ErrUnreachable
)

// Error is the error of a failed request, the same type in every package of
// the SDK: either an answer with a status other than 2xx (Status set), a 2xx
// answer that is not Vespa's ([ErrMalformedResponse]), a 3xx that was not
// followed ([ErrRedirect], Location set), or a transport failure (Status 0,
// Err set, its text without the URL). Its fields:
//
//   - Status: the HTTP status; 0 when no response was received.
//   - Message: Vespa's "message", or a short excerpt of a body that was not
//     Vespa JSON (such as a proxy's HTML error page).
//   - ID: the document ID the request was about, as text; may be empty.
//   - Op: "get", "put", "update", "remove", "visit", "query", "health" or a
//     control-plane verb.
//   - Path: the request path (percent-encoded, without the query).
//   - Location: the Location of a 3xx, without user information or query.
//   - Err: the underlying cause (transport failure, context error), if any.
//
// errors.Is matches it against the sentinel of its status ([ErrNotFound]
// for 404, and so on) and against its cause. When the context ends while a
// retry waits, the error is the last answer's (its Status, Message) with
// the context's error as its cause, so both match. RetryAfter returns the
// server's Retry-After hint (at most 60 s). It never contains credentials
// or a query string.
type Error = wire.Error

// ErrorFromResult returns nil when r has a 2xx status, and otherwise an
// [*Error] with r's status, message (or body excerpt), document ID, path and
// Retry-After, for the operation named op ("put", "get", ...). A nil r gives
// nil.
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
	e := &Error{Status: r.Status, Message: msg, ID: id, Op: op, Path: r.Path}
	wire.SetRetryAfter(e, r.retryAfter, r.hasRetry)
	return e
}

var errUnknownKind = errors.New("vespa: unknown operation kind")
