package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/wire"
	"github.com/govespa/govespa/vespa/retries"
)

// Client sends queries to the /search/ API of one Vespa endpoint, through
// the HTTP client, credentials and endpoint of a core [vespa.Client]. Make
// one with [New] and reuse it; it is safe for concurrent use.
type Client struct {
	hc          *http.Client
	x           *wire.Exchange // on hc's transport; never follows redirects
	url         string
	path        string
	logger      *slog.Logger
	policy      retries.Policy
	callTimeout time.Duration // 0: 1.1×timeout + 1 s
	limit       int64
}

// DefaultTimeout is Vespa's own timeout of a query that sets none; the
// client bounds such a query's call by it (see [Client.Search]).
const DefaultTimeout = 500 * time.Millisecond

// DefaultResultLimit is the default of [WithResultLimit].
const DefaultResultLimit = 256 << 20 // 256 MiB

// WithResultLimit bounds a query's answer read into memory: a larger answer
// is a *[vespa.Error] matching [vespa.ErrResponseTooLarge], and the rest of
// it is not read. Default [DefaultResultLimit] (256 MiB); n must be
// positive.
func WithResultLimit(n int64) Option {
	return positive("WithResultLimit", n, func(c *Client) { c.limit = n })
}

// WithCallTimeout bounds each Search call, retries included, by d instead
// of the default 1.1×timeout + 1 s (timeout: the request's, or
// [DefaultTimeout]), for callers who want a query to be tried for longer
// (or shorter) than its own timeout allows. ctx still bounds the call too.
// d must be positive.
func WithCallTimeout(d time.Duration) Option {
	return positive("WithCallTimeout", d, func(c *Client) { c.callTimeout = d })
}

// positive returns the option name(v): set when v is positive, an error
// otherwise.
func positive[N int64 | time.Duration](name string, v N, set func(*Client)) Option {
	return optionFunc(func(c *Client) error {
		if v <= 0 {
			return fmt.Errorf("query: %s(%v): must be positive", name, v)
		}
		set(c)
		return nil
	})
}

// New returns a query client on top of c. Options replace the retry policy,
// the HTTP client or the handler path; an invalid option is an error.
func New(c *vespa.Client, opts ...Option) (*Client, error) {
	if c == nil {
		return nil, errors.New("query: New: nil client")
	}
	qc := &Client{hc: c.HTTPClient(), path: "/search/", logger: c.Logger(), policy: retries.QueryPolicy(), limit: DefaultResultLimit}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(qc); err != nil {
			return nil, err
		}
	}
	// Only the transport of hc is used: its redirect policy is replaced by
	// wire.NoRedirects (Vespa never redirects /search/) and its Timeout by
	// the call's deadline.
	qc.x = wire.New(wire.Config{Transport: qc.hc.Transport, Logger: qc.logger})
	u := c.Endpoint()
	u.Path = strings.TrimSuffix(u.Path, "/") + qc.path
	u.RawPath = ""
	u.RawQuery = ""
	qc.url = u.String()
	return qc, nil
}

var (
	getHeader  = http.Header{"Accept": {"application/json"}}
	postHeader = http.Header{"Accept": {"application/json"}, "Content-Type": {"application/json"}}
)

// attempt is what one attempt received: an answer, or an answer the
// exchange refused (a 3xx, an answer over the limit), which is final.
type attempt struct {
	resp *wire.Response
	err  *vespa.Error
}

// StatusCode lets the retry policy classify the answer.
func (a *attempt) StatusCode() int {
	if a.err != nil {
		return a.err.Status
	}
	return a.resp.Status
}

// Search sends req and decodes the answer, under the client's retry policy
// ([retries.Query] by default: only transport failures are retried).
//
// The whole call, retries included, is bounded by 1.1×timeout + 1 s, where
// timeout is req.Timeout or else Vespa's default, [DefaultTimeout] (so
// 1.55 s): a query Vespa cannot answer in time fails instead of succeeding
// late. ctx may end it sooner; [WithCallTimeout] changes the bound.
//
// When Vespa answered 2xx with a result, Search returns the result and a nil
// error, even if the result carries errors next to its hits (see
// [Result.Err]). Any other status gives an *[Error] that maps it (errors.Is
// with the sentinels), and the decoded result too when the body was one. A
// body that is not a Vespa result (no root: null, {}, an HTML page, a
// truncated object) gives an *Error matching [ErrMalformedResponse]. When
// no answer came back, the error is a *[vespa.Error] with Status 0 that
// unwraps to the transport failure or the context's error; a 3xx (never
// followed) or an answer above [WithResultLimit] is a *vespa.Error with its
// status ([vespa.ErrRedirect], [vespa.ErrResponseTooLarge]).
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
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	bound := c.callTimeout
	if bound <= 0 {
		bound = timeout + timeout/10 + time.Second
	}
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > bound {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, bound)
		defer cancel()
	}
	header := getHeader // shared: the exchange copies it, never changes it
	if body != nil {
		header = postHeader
	}
	if len(req.Header) > 0 {
		header = header.Clone()
		for k, vs := range req.Header {
			header[k] = vs
		}
	}
	a, err := wire.Run(ctx, c.policy, func(ctx context.Context) (*attempt, error) {
		resp, err := c.x.Send(ctx, &wire.Request{Op: "query", Path: c.path, Method: method, URL: target,
			Header: header, Body: body, Limit: c.limit})
		if err != nil {
			var we *vespa.Error
			if errors.As(err, &we) && we.Status != 0 {
				return &attempt{err: we}, nil
			}
			return nil, err
		}
		return &attempt{resp: resp}, nil
	}, func(a *attempt, err error) error {
		if err != nil || a == nil {
			return err
		}
		if a.err != nil {
			return a.err
		}
		_, err = c.decode(a.resp)
		return err
	})
	if err != nil {
		c.logger.DebugContext(ctx, "query failed", "error", err)
		var we *vespa.Error
		if errors.As(err, &we) {
			return nil, err
		}
		return nil, &vespa.Error{Op: "query", Path: c.path, Err: err}
	}
	if a.err != nil {
		return nil, a.err
	}
	return c.decode(a.resp)
}

// decode turns a response into the result and error Search returns.
func (c *Client) decode(resp *wire.Response) (*Result, error) {
	ok := resp.OK()
	r, derr := DecodeResult(resp.Body)
	if derr != nil {
		return nil, newResponseError(resp, nil, excerpt(resp.Body), derr)
	}
	r.Status = resp.Status
	if ok {
		return r, nil
	}
	return r, newResponseError(resp, r, "", nil)
}

// excerpt returns the start of a body that is not a Vespa result, for an
// error message.
func excerpt(b []byte) string {
	const max = 200
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "(empty body)"
	}
	if len(b) > max {
		b = b[:max]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
		return strings.ToValidUTF8(string(b), "?") + "…"
	}
	return strings.ToValidUTF8(string(b), "?")
}

// String describes the client.
func (c *Client) String() string {
	return fmt.Sprintf("query.Client(%s, %s)", c.url, c.policy)
}
