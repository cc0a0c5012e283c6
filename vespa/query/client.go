package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
)

// Client sends queries to the /search/ API of one Vespa endpoint, through
// the HTTP client, credentials and endpoint of a core [vespa.Client]. Make
// one with [New] and reuse it; it is safe for concurrent use.
type Client struct {
	hc     *http.Client
	url    string
	path   string
	logger *slog.Logger
	policy retries.Policy
}

// New returns a query client on top of c. Options replace the retry policy,
// the HTTP client or the handler path; an invalid option is an error.
func New(c *vespa.Client, opts ...Option) (*Client, error) {
	if c == nil {
		return nil, errors.New("query: New: nil client")
	}
	qc := &Client{hc: c.HTTPClient(), path: "/search/", logger: c.Logger(), policy: retries.Query}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(qc); err != nil {
			return nil, err
		}
	}
	u := c.Endpoint()
	u.Path = strings.TrimSuffix(u.Path, "/") + qc.path
	u.RawPath = ""
	u.RawQuery = ""
	qc.url = u.String()
	return qc, nil
}

// response is what one attempt received.
type response struct {
	status     int
	retryAfter string
	body       []byte
}

// StatusCode lets the retry policy classify the response.
func (r *response) StatusCode() int { return r.status }

// Search sends req and decodes the answer, under the client's retry policy
// ([retries.Query] by default: only transport failures are retried).
//
// When Vespa answered 2xx, Search returns the result and a nil error, even
// if the result carries errors next to its hits (see [Result.Err]). Any other
// status gives an *[Error] that maps it (errors.Is with the sentinels), and
// the decoded result too when the body was one. A body that is not a Vespa
// result gives an *Error matching [ErrMalformedResponse]. When no answer
// came back, the error is a *[vespa.Error] with Status 0 that unwraps to the
// transport failure or the context's error.
func (c *Client) Search(ctx context.Context, req *Request) (*Result, error) {
	if req == nil {
		return nil, errEmptyRequest
	}
	var (
		method = http.MethodPost
		target = c.url
		body   []byte
		err    error
	)
	if req.GET {
		method = http.MethodGet
		v, err := req.values()
		if err != nil {
			return nil, err
		}
		target = c.url + "?" + v.Encode()
	} else if body, err = req.body(); err != nil {
		return nil, err
	}
	resp, err := retries.Run(ctx, c.policy, func(ctx context.Context) (*response, error) {
		return c.once(ctx, method, target, body, req.Timeout)
	})
	if err != nil {
		c.logger.DebugContext(ctx, "query failed", "error", err)
		return nil, &vespa.Error{Op: "query", Path: c.path, Err: err}
	}
	return c.decode(resp)
}

// once sends one request and reads the whole response.
func (c *Client) once(ctx context.Context, method, target string, body []byte, timeout time.Duration) (*response, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout+timeout/10+time.Second)
		defer cancel()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("Accept", "application/json")
	res, err := c.hc.Do(hr)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := readBody(res)
	if err != nil {
		return nil, err
	}
	return &response{status: res.StatusCode, retryAfter: res.Header.Get("Retry-After"), body: b}, nil
}

// readBody reads a response body, sized by Content-Length when known.
func readBody(res *http.Response) ([]byte, error) {
	if n := res.ContentLength; n > 0 && n < 1<<30 {
		b := make([]byte, n)
		if _, err := io.ReadFull(res.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return io.ReadAll(res.Body)
}

// decode turns a response into the result and error Search returns.
func (c *Client) decode(resp *response) (*Result, error) {
	ok := resp.status >= 200 && resp.status < 300
	r, derr := DecodeResult(resp.body)
	if derr != nil {
		e := newError(resp.status, nil, excerpt(resp.body), derr)
		e.retryAfter = parseRetryAfter(resp.retryAfter)
		return nil, e
	}
	r.Status = resp.status
	if ok {
		return r, nil
	}
	e := newError(resp.status, r, "", nil)
	e.retryAfter = parseRetryAfter(resp.retryAfter)
	return r, e
}

// excerpt returns the start of a body that is not a Vespa result, for an
// error message.
func excerpt(b []byte) string {
	const max = 200
	b = bytes.TrimSpace(b)
	if len(b) > max {
		b = b[:max]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
		return string(b) + "…"
	}
	return string(b)
}

// String describes the client.
func (c *Client) String() string {
	return fmt.Sprintf("query.Client(%s, %s)", c.url, c.policy)
}
