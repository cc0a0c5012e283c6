package vespa

import (
	"errors"
	"time"

	"github.com/govespa/govespa/vespa/internal/wire"
	"github.com/govespa/govespa/vespa/retries"
)

// Sentinels matched through errors.Is by the [*Error] of any package of the
// SDK (vespa, feed, query, cloud, deploy, models), one per outcome: the same
// status gives the same sentinel wherever the request was made.
var (
	// ErrBadRequest matches a 400: bad path, parameter, JSON, selection,
	// unknown document type or field.
	ErrBadRequest = errors.New("vespa: bad request")
	// ErrUnauthorized matches a 401: the client is not authenticated (a
	// missing or wrong token or certificate). A 403 — authenticated, but
	// not allowed — is [ErrForbidden]. (The control plane's
	// deploy.ErrUnauthorized and cloud.ErrUnauthorized match both 401 and
	// 403, where either means the key or token was refused; to test for
	// either on the data plane, check ErrUnauthorized and ErrForbidden.)
	ErrUnauthorized = errors.New("vespa: unauthorized")
	// ErrForbidden matches a 403: the client may not do this.
	ErrForbidden = errors.New("vespa: forbidden")
	// ErrNotFound matches a 404: a Get of a document that does not exist
	// (update and remove of a missing document succeed with 200), or an
	// unknown API path.
	ErrNotFound = errors.New("vespa: not found")
	// ErrConflict matches a 409: the server's state conflicts with the
	// request (a control-plane deployment in progress, say).
	ErrConflict = errors.New("vespa: conflict")
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
	// ErrRedirect matches any 3xx. Vespa never redirects /document/v1 or
	// /search/, so the data plane and queries never follow a redirect: the
	// answer of something in front of Vespa (an http→https hop, a login
	// proxy) is an error naming its status and Location, and nothing is
	// written or sent elsewhere. Check the endpoint.
	ErrRedirect = errors.New("vespa: redirect not followed")
	// ErrMalformedResponse matches a 2xx answer whose body is not the JSON
	// Vespa sends (an HTML login page, a truncated or empty body): it is
	// never taken for a success. The error quotes the start of the body.
	ErrMalformedResponse = errors.New("vespa: malformed response")
	// ErrResponseTooLarge matches an answer larger than the client's limit
	// on what it reads into memory ([WithDocumentLimit], [WithVisitPageLimit],
	// query.WithResultLimit).
	ErrResponseTooLarge = errors.New("vespa: response too large")
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
// Err set, its text without the URL).
//
// errors.Is matches it against the sentinel of its status ([ErrNotFound]
// for 404, and so on) and against its cause. When the context ends while a
// retry waits, the error is the last answer's (its Status, Message) with
// the context's error as its cause, so both match. It never contains
// credentials or a query string.
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

// The requests of every package are sent by one internal package, which
// cannot name Error (this package imports it): it makes and reads its
// errors through these two functions.
func init() {
	wire.Register(
		func(f wire.Failure) error { return errorOf(&f) },
		func(err error) (wire.Failure, bool) {
			var e *Error
			if !errors.As(err, &e) {
				return wire.Failure{}, false
			}
			return e.failure(), true
		})
}

func errorOf(f *wire.Failure) *Error {
	return &Error{Status: f.Status, Message: f.Message, ID: f.ID, Op: f.Op, Path: f.Path, Location: f.Location, Err: f.Err,
		retryAfter: f.RetryAfter, hasRetryAfter: f.HasRetryAfter}
}

func (e *Error) failure() wire.Failure {
	return wire.Failure{Status: e.Status, Message: e.Message, ID: e.ID, Op: e.Op, Path: e.Path, Location: e.Location, Err: e.Err,
		RetryAfter: e.retryAfter, HasRetryAfter: e.hasRetryAfter}
}

// Error returns "vespa: <op> <id or path>: status <n> <text>: <message>:
// <cause>" (parts that are empty are left out; a 3xx adds "redirect not
// followed" and its Location).
func (e *Error) Error() string {
	f := e.failure()
	return f.Text()
}

// StatusCode returns the HTTP status, 0 when no response was received, so
// that retry policies can classify the error (see package retries).
func (e *Error) StatusCode() int { return e.Status }

// RetryAfter returns the server's Retry-After hint (at most 60 s), if its
// answer had one; retry policies honour it.
func (e *Error) RetryAfter() (time.Duration, bool) { return e.retryAfter, e.hasRetryAfter }

// Unwrap returns the underlying cause, Err.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's status ([ErrNotFound]
// for 404, [ErrRedirect] for a 3xx, and so on).
func (e *Error) Is(target error) bool {
	w := wireSentinel(target)
	if w == nil {
		return false
	}
	if wire.StatusIs(e.Status, w) {
		return true
	}
	// A malformed or oversized answer has the internal sentinel in its cause.
	return (w == wire.ErrMalformedResponse || w == wire.ErrResponseTooLarge) && errors.Is(e.Err, w) //nolint:errorlint // sentinel identity
}

// wireSentinel returns the internal package's sentinel of target, one of
// this package's, or nil.
func wireSentinel(target error) error { return wireSentinels[target] }

// wireSentinels maps this package's sentinels to the internal package's,
// by identity.
var wireSentinels = map[error]error{
	ErrBadRequest:          wire.ErrBadRequest,
	ErrUnauthorized:        wire.ErrUnauthorized,
	ErrForbidden:           wire.ErrForbidden,
	ErrNotFound:            wire.ErrNotFound,
	ErrConflict:            wire.ErrConflict,
	ErrConditionNotMet:     wire.ErrConditionNotMet,
	ErrTooLarge:            wire.ErrTooLarge,
	ErrTooManyRequests:     wire.ErrTooManyRequests,
	ErrUnavailable:         wire.ErrUnavailable,
	ErrTimeout:             wire.ErrTimeout,
	ErrInsufficientStorage: wire.ErrInsufficientStorage,
	ErrRedirect:            wire.ErrRedirect,
	ErrMalformedResponse:   wire.ErrMalformedResponse,
	ErrResponseTooLarge:    wire.ErrResponseTooLarge,
}

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
	return &Error{Status: r.Status, Message: msg, ID: id, Op: op, Path: r.Path, retryAfter: r.retryAfter, hasRetryAfter: r.hasRetry}
}

var errUnknownKind = errors.New("vespa: unknown operation kind")
