package ctlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/wire"
	"github.com/govespa/govespa/vespa/retries"
)

// MaxReplyBody bounds the replies read into memory.
const MaxReplyBody = 64 << 20

// Transport sends control-plane requests through the SDK's one exchange
// (package wire: same-origin redirects only, bounded reads, Retry-After):
// each attempt under the retry policy builds its request again, with a fresh
// body and (with a signer) a fresh signature. Make it with [NewTransport]; it
// is safe for concurrent use.
type Transport struct {
	// Pkg starts error texts: "deploy" or "cloud".
	Pkg string
	// Policy is the retry policy of calls ([Transport.Do]); uploads
	// ([Transport.Upload]) are sent once whatever it says.
	Policy retries.Policy
	// Sign, when set, signs each attempt's request, whose body hashes to
	// the given content hash ([HashBody]).
	Sign func(req *http.Request, contentHash string) error
	// Token, when set, is sent as "Authorization: Bearer <token>".
	Token string
	// Logger logs failed attempts; it must not be nil.
	Logger *slog.Logger

	x       *wire.Exchange
	timeout time.Duration // per attempt: the given *http.Client's Timeout, 0 for the defaults
}

// The default bounds of one attempt, used when the *http.Client given to
// [NewTransport] has no Timeout: a control-plane server that accepts a
// connection and never answers must not hold a call made with
// context.Background() forever. An upload (a deploy's prepare, which the
// config server may work on for minutes) gets longer than any other call.
// Variables only so that tests can shorten them; the SDK never assigns them.
var (
	CallTimeout   = 2 * time.Minute
	UploadTimeout = 15 * time.Minute
)

// NewTransport returns a transport for package pkg over hc's transport (its
// Timeout bounds each attempt, [CallTimeout] and [UploadTimeout] when it has
// none; its redirect policy is replaced by
// wire.SameOrigin, so that no body, signature or token goes to another
// origin).
func NewTransport(pkg string, hc *http.Client, policy retries.Policy, userAgent string, logger *slog.Logger) *Transport {
	return &Transport{
		Pkg: pkg, Policy: policy, Logger: logger, timeout: hc.Timeout,
		x: wire.New(wire.Config{Transport: hc.Transport, CheckRedirect: wire.SameOrigin, UserAgent: userAgent, Logger: logger}),
	}
}

// errAttemptEnded is what the writer of a streamed body sees when the attempt
// it writes for has ended (sent, failed or cancelled) before it was done.
var errAttemptEnded = errors.New("request attempt ended")

// Call is one logical control-plane call.
type Call struct {
	// Op names it in errors, such as "deploy".
	Op          string
	Method      string
	URL         *url.URL
	ContentType string
	// Body is a small body, or
	Body []byte
	// Write streams a body, written afresh for each pass.
	Write func(io.Writer) error
	// Check says how to learn the outcome of an upload whose reply was lost,
	// such as "list the sessions with ...".
	Check string
}

// Reply is a 2xx reply.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// StatusCode returns the reply's status.
func (r *Reply) StatusCode() int { return r.Status }

// Do performs c under the retry policy and returns its 2xx reply, or an
// *Error for any other status, or a transport error. When ctx ends during
// the retries, the error matches ctx's error and keeps the last attempt's
// own failure (one that ctx's end did not cause), so that a 503 or an x509
// error is not hidden behind "context deadline exceeded".
func (t *Transport) Do(ctx context.Context, c Call) (*Reply, error) {
	var cause error // the last failure not caused by ctx's end
	r, err := retries.Run(ctx, t.Policy, func(actx context.Context) (*Reply, error) {
		r, _, err := t.attempt(actx, c, t.attemptTimeout(CallTimeout))
		if err != nil {
			t.Logger.DebugContext(actx, t.Pkg+": attempt failed", "op", c.Op, "method", c.Method, "path", c.URL.Path, "err", err)
			if ctx.Err() == nil {
				cause = err
			}
		}
		return r, err
	})
	if err != nil && ctx.Err() != nil && cause != nil && !errors.Is(err, cause) {
		return nil, &cutError{err: err, cause: cause}
	}
	return r, err
}

// cutError is a call cut short by its context after a real failure: it
// matches both (errors.Is), and reads "<ctx error> (last error: <cause>)".
type cutError struct{ err, cause error }

func (e *cutError) Error() string   { return e.err.Error() + " (last error: " + e.cause.Error() + ")" }
func (e *cutError) Unwrap() []error { return []error{e.err, e.cause} }

// lastCause returns the real failure behind a call cut by its context, or nil.
func lastCause(err error) error {
	var ce *cutError
	if errors.As(err, &ce) {
		return ce.cause
	}
	return nil
}

// Upload sends c exactly once, whatever the policy (retries.Upload): a call
// that changes state, such as a deployment. A non-2xx reply is an *Error, as
// with [Transport.Do]. When the request went out (its headers were written)
// and no reply came, or a gateway answered for the server (502, 504), the
// error matches [ErrOutcomeUnknown], says that the call was not repeated and
// how to learn its outcome (c.Check), and unwraps to the cause (a context
// error, or the gateway's *Error, stays visible to errors.Is and errors.As).
// When nothing went out, such as a refused connection, the error says so.
func (t *Transport) Upload(ctx context.Context, c Call) (*Reply, error) {
	r, sent, err := t.attempt(ctx, c, t.attemptTimeout(UploadTimeout))
	if err == nil {
		return r, nil
	}
	e, reply := FailureOf(err)
	var we *vespa.Error
	switch {
	case reply && (e.Status == http.StatusBadGateway || e.Status == http.StatusGatewayTimeout):
		// A gateway in front of the server gave up on it: the server may
		// have acted all the same.
		return nil, &outcomeError{pkg: t.Pkg, op: c.Op, check: c.Check, err: err}
	case reply, errors.As(err, &we) && we.Status != 0:
		return nil, err // an answer came (a non-2xx, a redirect not followed): the outcome is known
	case sent:
		return nil, &outcomeError{pkg: t.Pkg, op: c.Op, check: c.Check, err: err}
	}
	var be *bodyError
	if errors.As(err, &be) {
		return nil, err
	}
	return nil, fmt.Errorf("%w (nothing was sent)", err)
}

// attemptTimeout returns the bound of one attempt: the client's Timeout, or
// def.
func (t *Transport) attemptTimeout(def time.Duration) time.Duration {
	if t.timeout > 0 {
		return t.timeout
	}
	return def
}

// attempt sends c once, bounded by timeout. sent reports whether the
// request's headers were written to a connection, so that the server may have
// acted on it.
func (t *Transport) attempt(ctx context.Context, c Call, timeout time.Duration) (_ *Reply, sent bool, _ error) {
	write := c.Write
	if write == nil && c.Body != nil {
		body := c.Body
		write = func(w io.Writer) error { _, err := w.Write(body); return err }
	}
	var (
		hash   = EmptyContentHash
		length int64
		err    error
	)
	switch {
	case c.Write == nil:
		length = int64(len(c.Body))
		if t.Sign != nil && c.Body != nil {
			hash, _, err = HashBody(write)
		}
	case t.Sign != nil:
		// The signature covers the body's hash, so a streamed body is written
		// twice: once into the hash (which also gives its length), once onto
		// the wire. Zipping is deterministic, so both passes agree.
		hash, length, err = HashBody(write)
	default:
		length = -1 // chunked
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: %s: %w", t.Pkg, c.Op, err)
	}

	path := c.URL.EscapedPath()
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	req := &wire.Request{Op: c.Op, Path: path, Method: c.Method, URL: c.URL.String(),
		Header: http.Header{"Accept": {"application/json"}}, Timeout: timeout, Limit: MaxReplyBody}
	if c.ContentType != "" {
		req.Header.Set("Content-Type", c.ContentType)
	}
	var pipe *PipeReader
	switch {
	case c.Write != nil:
		pipe = NewPipe(write)
		// However the attempt ends, stop the writer and wait for it.
		defer pipe.stop(errAttemptEnded)
		req.BodyReader, req.ContentLength = pipe, length
	case c.Body != nil:
		req.Body = c.Body
	}
	switch {
	case t.Sign != nil:
		req.Prepare = func(hr *http.Request) error { return t.Sign(hr, hash) }
	case t.Token != "":
		req.Header.Set("Authorization", "Bearer "+t.Token)
	}
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteHeaders: func() { wrote.Store(true) },
	})
	resp, err := t.x.Do(ctx, req)
	if err != nil {
		if pipe != nil {
			if werr := pipe.writeErr(errAttemptEnded); werr != nil && !errors.Is(werr, errAttemptEnded) && !errors.Is(werr, io.ErrClosedPipe) {
				// The body could not be written whole (a file of the package
				// vanished, say): the server got a truncated request, which
				// it cannot take for a package.
				return nil, false, &bodyError{pkg: t.Pkg, op: c.Op, err: werr}
			}
		}
		return nil, wrote.Load() && !wire.NotSent(err), err // a *vespa.Error: "vespa: <op> <path>: <cause>"
	}
	if !resp.OK() {
		d, ok := resp.RetryAfter()
		return nil, true, NewError(ParseReply(t.Pkg, c.Op, c.Method, path, resp.Status, resp.Body, d, ok))
	}
	return &Reply{Status: resp.Status, Header: resp.Header, Body: resp.Body}, true, nil
}

// bodyError is a request whose body could not be written whole.
type bodyError struct {
	pkg, op string
	err     error
}

func (e *bodyError) Error() string {
	return e.pkg + ": " + e.op + ": writing the request body: " + e.err.Error() + " (the server got an incomplete request)"
}

func (e *bodyError) Unwrap() error { return e.err }
