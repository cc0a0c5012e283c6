// Package retries defines every retry policy of govespa, once, as a value.
//
// The simplest use is a named policy and one call:
//
//	err := retries.ControlPlane.Do(ctx, func(ctx context.Context) error {
//		return deploy(ctx) // retried on any error but a final 4xx
//	})
//
// Each kind of call the SDK makes has its own dedicated [Policy]; call sites
// use it through [Policy.Do] or [Run], and users can read the defaults or adapt
// a copy ([Policy.WithMaxAttempts], [Policy.WithWait], [Policy.WithRetryIf],
// [Policy.WithOnRetry]) without changing the original. Every invocation that
// retries builds a fresh github.com/sethvargo/go-retry Backoff, so no state is
// shared between calls or goroutines; an invocation whose first attempt is
// final (most of them) builds none.
//
// An HTTP response is a result, classified by its status through
// [StatusCoder]; a failed transport is an error. Cancellation of the caller's
// context is never retried and never delayed: a wait in progress ends at once
// and the returned error satisfies errors.Is with context.Canceled or
// context.DeadlineExceeded.
//
// # The policies
//
// n is the number of the attempt that just failed (1-based); the wait comes
// before attempt n+1. "Final 4xx" is a status 400–499 other than 408 and 429.
//
//	name          used by                          retry when                                  wait after attempt n                          attempts  when they run out
//	Query         every query                      an error (any response is a result)         uniform(0, min(60 s, 1.5 s·2^(n−1)))          5         the last error
//	DocV1         feeder opt-in, outer layer       an error, or a result with status 503       1 s·2^(n−1) (1 s, 2 s)                        3         the last outcome as it was
//	Throttle      feeder opt-in, inner layer       a result with status 429                    uniform(0, min(10 s, 1 s·2^(n−1)))            never     — (only ctx ends it)
//	Feed          feeder (default), step by step   an error, or a result with 429, 503 or 504  WaitJittered(20 ms, 5 s, 2.0, 0.5)            never     — (the op's deadline ends it)
//	SyncRequest   every sync data-plane request    a 429 result, or a connection error         0.1 s·1.618^(n−1) + uniform(0, 1 s)           11        the last outcome
//	Visit         each visit page (on SyncRequest) an error with status ≥ 400 but a final 4xx  none                                          3         the last error
//	ControlPlane  control-plane reads and polls    any error except a final 4xx (*)            min(3 s, 1 s·2^(n−1)) (1 s, 2 s)              3         the original last error
//	Upload        control-plane deploy, submit,    never                                       none                                          1         the error; a lost reply: outcome unknown
//	              token creation
//	URLValidation model URL checks                 any error except a final 4xx                clamp(1 s·2^(n−1), 1 s, 10 s) (1 s, 2 s)      3         the original last error
//	Embedder      the retrying models.Embedder     any error (WithRetryIf can narrow it)       WaitJittered(200 ms, 5 s, 2.0, 0.5)           3         the last error
//
// (*) A 409 whose error-code is one of the config server's transient ones
// ([TransientConflictCodes]: APPLICATION_LOCK_FAILURE, CONFIG_NOT_CONVERGED,
// LOAD_BALANCER_NOT_READY, PARENT_HOST_NOT_READY) is retried by ControlPlane
// and waited out by the control plane's status polls (convergence, health,
// runs, builds); any other 409 (ACTIVATION_CONFLICT, ...) is final. Upload
// retries nothing, a transient 409 included: the caller decides whether to
// send again.
//
// The vespa client narrows SyncRequest for non-idempotent operations
// (updates with arithmetic or add, conditional writes): after a connection
// error it re-sends them only when the error proves that nothing was sent (a
// refused connection, a failed DNS lookup).
//
// Where a retried outcome (typically a 429 or 503 response) carries
// Retry-After ([RetryAfterer]), the policy waits at least that long, but never
// longer than its own cap ([Wait.Max]) and never longer than
// [MaxRetryAfter] (60 s), which also bounds the policies without a cap
// (DocV1, SyncRequest, Visit); the context's deadline bounds it too.
//
// When attempts run out, the call returns the last outcome exactly as the
// operation returned it: the same result value and the same error value,
// never a wrapper. When the context ends first, it returns an error for
// which errors.Is(err, context.Canceled) (or DeadlineExceeded) holds, also
// when the context was cancelled with a custom cause.
//
// A scheduler that parks an operation between attempts, as the feeder does,
// takes a policy step by step with a [Stepper]: after each attempt,
// [Stepper.Next] says "retry after d" or "stop", deciding as [Run] would.
// DocV1 and Throttle are the feeder's earlier (pyvespa-like) pair, nested
// DocV1 outside Throttle; Feed replaced them as its default.
//
// The building blocks are exported so that users can compose their own with
// [New]: waits [WaitExponential], [WaitRandomExponential], [WaitGoldenJitter],
// [WaitJittered], [WaitNone] and [WaitFunc]; predicates [RetryIfStatus],
// [RetryIfError] and [RetryIfConnectionError]; classifiers
// [IsConnectionError] and [IsFinal4xx]. Waits saturate instead of overflowing
// at any attempt number, and invalid values give an error, never a panic.
package retries
