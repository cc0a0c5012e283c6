package retries

import (
	"errors"
	"time"
)

// Query is the policy of every query (package query). A query is retried only
// when it failed to get an answer: an HTTP response, whatever its status, is a
// result and is returned as it is. It waits uniform(0, min(60 s, 1.5 s·2^(n−1)))
// and makes 5 attempts, then returns the last error.
var Query = defaultQuery

var defaultQuery = New("Query", RetryIfError, WaitRandomExponential(1500*time.Millisecond, 60*time.Second), 5)

// DocV1 is the outer policy of the feeder's earlier, pyvespa-like retry
// behaviour (package feed, selected through its Config.Retries; the default
// is [Feed]): an error or a 503 from a restarting container is retried after 1 s, then 2 s;
// after 3 attempts the last outcome is returned as it was — the 503 response
// with a nil error, or the last error. Inside it runs [Throttle].
var DocV1 = defaultDocV1

var defaultDocV1 = New("DocV1", func(o Outcome) bool { return o.Err != nil || o.StatusCode() == 503 },
	WaitExponential(time.Second, time.Second, 0), 3)

// Throttle is the inner policy of the feeder's earlier behaviour (inside
// [DocV1]): a 429 from a
// container that is shedding load is retried after uniform(0, min(10 s,
// 1 s·2^(n−1))), without limit. It never stops on purpose: sustained
// back-pressure must slow a feed down, not fail it. Only the context ends it,
// and the feeder always gives one with a deadline.
var Throttle = defaultThrottle

var defaultThrottle = New("Throttle", RetryIfStatus(429), WaitRandomExponential(time.Second, 10*time.Second), 0)

// Feed is the default policy of each operation the feeder sends (package
// feed), taken step by step ([Stepper]) so that a waiting operation holds no
// in-flight slot: a 429 (the container sheds load), a 503 (it is restarting
// or has no free handler), a 504 (it timed out) and any transport error
// (an error without a status) but a final one (see retryFeed) are retried after
// WaitJittered(20 ms, 5 s, 2.0, 0.5),
// that is uniform(d/2, d) with d = min(5 s, 20 ms·2^(n−1)), without an
// attempt limit: only the operation's deadline, the caller's context or the
// feeder's circuit breaker end it, as in Vespa's Java feed client. First
// waits are short because the operation waits off the window while others
// are sent; the feeder lowers its in-flight target on 429 and 504. Which
// operations may be sent again after an error that may have reached Vespa
// (a non-idempotent update) is the feeder's decision, not the policy's.
var Feed = defaultFeed

var defaultFeed = New("Feed", retryFeed, mustJittered(20*time.Millisecond, 5*time.Second, 2.0, 0.5), 0)

// retryFeed retries 429, 503 and 504, as results or errors, and transport
// errors (errors without a status) but certificate failures, a server
// that does not offer HTTP/2 ([ErrHTTP2NotNegotiated]) and one that breaks
// it ([ErrProtocolViolation]). An error with
// another status (a redirect not followed, a malformed or oversized answer)
// is final: sending again would get the same.
func retryFeed(o Outcome) bool {
	status := o.StatusCode()
	switch {
	case status == 429 || status == 503 || status == 504:
		return true
	case o.Err != nil:
		return status == 0 && !isFinalTransportError(o.Err)
	}
	return false
}

// DefaultSyncRequestAttempts is the number of attempts of [SyncRequest].
const DefaultSyncRequestAttempts = 11

// SyncRequest is the policy of every sync data-plane request of a
// vespa.Client (get, put, update, remove and each visit page): a 429 or a
// connection error is retried with golden jitter (0.1 s·1.618^(n−1) +
// uniform(0, 1 s)), 11 attempts, then the last outcome is returned: the 429
// response or the connection error. A client can set its own attempt count.
var SyncRequest = defaultSyncRequest

var defaultSyncRequest = New("SyncRequest", func(o Outcome) bool {
	return o.StatusCode() == 429 || IsConnectionError(o.Err)
}, WaitGoldenJitter(), DefaultSyncRequestAttempts)

// Visit is the policy of each visit page, on top of [SyncRequest]: an error
// carrying an HTTP error status (400 or above) is retried at once, 3 attempts,
// then the last error is returned. A final 4xx ([IsFinal4xx]: 400–499 but
// 408 and 429, such as a 403 or a 400 for a bad selection) is not retried:
// asking again gives the same answer.
var Visit = defaultVisit

var defaultVisit = New("Visit", func(o Outcome) bool {
	status := errStatus(o.Err)
	return status >= 400 && !IsFinal4xx(status)
}, WaitNone(), 3)

// ControlPlane is the policy of the reads and status polls of Vespa Cloud and
// config-server calls (packages cloud and deploy): any error except a final
// 4xx ([IsFinal4xx]) is retried after min(3 s, 1 s·2^(n−1)), 3 attempts, then
// the original last error is returned. A 409 with one of the config server's
// [TransientConflictCodes] is not final: it is retried too. Uploads do not
// use it (see [Upload]).
var ControlPlane = defaultControlPlane

var defaultControlPlane = New("ControlPlane", func(o Outcome) bool {
	return retryUnlessFinal4xx(o) || IsTransientConflict(o.Err)
}, WaitExponential(time.Second, 0, 3*time.Second), 3)

// Upload is the policy of the control-plane calls that change state: a
// config-server deploy, a Vespa Cloud deploy or submission, a token's
// creation. Nothing is retried, 1 attempt, as Vespa's own clients send them:
// a reply lost after the request went out leaves the outcome unknown, and a
// second attempt could start a second session, run or build. The caller
// checks the outcome (the session or run list) before sending again.
var Upload = defaultUpload

var defaultUpload = New("Upload", func(Outcome) bool { return false }, WaitNone(), 1)

// URLValidation is the policy of model-URL checks (package models): any error
// except a final 4xx is retried after clamp(1 s·2^(n−1), 1 s, 10 s), 3
// attempts, then the original last error is returned.
var URLValidation = defaultURLValidation

var defaultURLValidation = New("URLValidation", retryUnlessFinal4xx, WaitExponential(time.Second, time.Second, 10*time.Second), 3)

// Embedder is the policy of the retrying Embedder (package models): any error
// is retried with WaitJittered(200 ms, 5 s, 2.0, 0.5), 3 attempts, then the
// last error is returned. models.Retrying takes it, or a copy adapted with
// its With* methods.
var Embedder = defaultEmbedder

var defaultEmbedder = New("Embedder", RetryIfError, mustJittered(200*time.Millisecond, 5*time.Second, 2.0, 0.5), 3)

// retryUnlessFinal4xx retries every error that does not carry a final 4xx.
// The status is the error's own; an error that carries none is judged by the
// result's, if any.
func retryUnlessFinal4xx(o Outcome) bool {
	if o.Err == nil {
		return false
	}
	status := errStatus(o.Err)
	if status == 0 {
		status = o.StatusCode()
	}
	return !IsFinal4xx(status)
}

// errStatus returns the HTTP status carried by err (through errors.As), or 0.
func errStatus(err error) int {
	var sc StatusCoder
	if err != nil && errors.As(err, &sc) {
		return sc.StatusCode()
	}
	return 0
}

// mustJittered builds a WaitJittered from constants known to be valid.
func mustJittered(initial, max time.Duration, factor, jitter float64) Wait {
	w, err := WaitJittered(initial, max, factor, jitter)
	if err != nil {
		panic(err) // unreachable: the arguments are constants checked by tests
	}
	return w
}

// The SDK reads its policies through these functions, never through the
// exported variables above: a program that assigns to one of them (a
// policy is a value: adapt a copy with its With* methods and pass it where
// an option takes one) changes what it reads itself, and races nothing the
// SDK does.

// QueryPolicy returns [Query] as this package defines it.
func QueryPolicy() Policy { return defaultQuery }

// DocV1Policy returns [DocV1] as this package defines it.
func DocV1Policy() Policy { return defaultDocV1 }

// ThrottlePolicy returns [Throttle] as this package defines it.
func ThrottlePolicy() Policy { return defaultThrottle }

// FeedPolicy returns [Feed] as this package defines it.
func FeedPolicy() Policy { return defaultFeed }

// SyncRequestPolicy returns [SyncRequest] as this package defines it.
func SyncRequestPolicy() Policy { return defaultSyncRequest }

// VisitPolicy returns [Visit] as this package defines it.
func VisitPolicy() Policy { return defaultVisit }

// ControlPlanePolicy returns [ControlPlane] as this package defines it.
func ControlPlanePolicy() Policy { return defaultControlPlane }

// UploadPolicy returns [Upload] as this package defines it.
func UploadPolicy() Policy { return defaultUpload }

// URLValidationPolicy returns [URLValidation] as this package defines it.
func URLValidationPolicy() Policy { return defaultURLValidation }

// EmbedderPolicy returns [Embedder] as this package defines it.
func EmbedderPolicy() Policy { return defaultEmbedder }
