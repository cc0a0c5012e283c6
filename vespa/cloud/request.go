package cloud

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/govespa/govespa/vespa/retries"
)

// maxResponseBody bounds the replies read into memory.
const maxResponseBody = 64 << 20

// transport sends control-plane requests: each attempt under the retry policy
// builds its request again, with a fresh body and (with an API key) a fresh
// signature.
type transport struct {
	hc        *http.Client
	policy    retries.Policy
	signer    *signer // nil: no API key
	token     string  // bearer access token, if any
	userAgent string
	logger    *slog.Logger
}

// errAttemptEnded is what the writer of a streamed body sees when the attempt
// it writes for has ended (sent, failed or cancelled) before it was done.
var errAttemptEnded = errors.New("cloud: request attempt ended")

// call is one logical control-plane call.
type call struct {
	op          string // for errors, such as "deploy"
	method      string
	url         *url.URL
	contentType string
	body        []byte                // a small body, or
	write       func(io.Writer) error // a streamed body, written afresh per attempt
}

// reply is a 2xx reply.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// StatusCode returns the reply's status.
func (r *reply) StatusCode() int { return r.status }

// do performs c under the retry policy and returns its 2xx reply, or an
// *Error for any other status, or a transport error.
func (t *transport) do(ctx context.Context, c call) (*reply, error) {
	return retries.Run(ctx, t.policy, func(ctx context.Context) (*reply, error) {
		r, err := t.attempt(ctx, c)
		if err != nil {
			t.logger.DebugContext(ctx, "cloud: attempt failed", "op", c.op, "method", c.method, "path", c.url.Path, "err", err)
		}
		return r, err
	})
}

// attempt sends c once.
func (t *transport) attempt(ctx context.Context, c call) (*reply, error) {
	write := c.write
	if write == nil && c.body != nil {
		body := c.body
		write = func(w io.Writer) error { _, err := w.Write(body); return err }
	}
	var (
		hash   = EmptyContentHash
		length int64
		err    error
	)
	switch {
	case c.write == nil:
		length = int64(len(c.body))
		if t.signer != nil && c.body != nil {
			hash, _, err = hashBody(write)
		}
	case t.signer != nil:
		// The signature covers the body's hash, so a streamed body is written
		// twice: once into the hash (which also gives its length), once onto
		// the wire. Zipping is deterministic, so both passes agree.
		hash, length, err = hashBody(write)
	default:
		length = -1 // chunked
	}
	if err != nil {
		return nil, fmt.Errorf("cloud: %s: %w", c.op, err)
	}

	var body io.ReadCloser = http.NoBody
	var pipe *pipeReader
	switch {
	case c.write == nil && c.body != nil:
		body = io.NopCloser(bytes.NewReader(c.body))
	case c.write != nil:
		pr, pw := io.Pipe()
		pipe = &pipeReader{pr: pr, done: make(chan struct{})}
		go func() {
			defer close(pipe.done)
			pw.CloseWithError(write(pw))
		}()
		body = pipe
	}
	if pipe != nil {
		// However the attempt ends, stop the writer and wait for it.
		defer pipe.stop(errAttemptEnded)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, c.url.String(), body)
	if err != nil {
		return nil, fmt.Errorf("cloud: %s: %w", c.op, err)
	}
	req.ContentLength = length
	if length == 0 {
		req.Body = http.NoBody
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	req.Header.Set("Accept", "application/json")
	if t.userAgent != "" {
		req.Header.Set("User-Agent", t.userAgent)
	}
	switch {
	case t.signer != nil:
		if err := t.signer.sign(req, hash); err != nil {
			return nil, err
		}
	case t.token != "":
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cloud: %s: %w", c.op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
	if err != nil {
		return nil, fmt.Errorf("cloud: %s: reading reply: %w", c.op, err)
	}
	if len(data) > maxResponseBody {
		return nil, fmt.Errorf("cloud: %s: reply larger than %d bytes", c.op, maxResponseBody)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, newError(c.op, c.method, c.url.Path, resp.StatusCode, data)
	}
	return &reply{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// isFinal reports whether err ends a wait at once: a final 4xx, or the
// caller's own context ending. Anything else (5xx after the policy gave up,
// connection errors, undecodable replies) lets the wait poll again.
func isFinal(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return true
	}
	var e *Error
	return errors.As(err, &e) && retries.IsFinal4xx(e.Status)
}
