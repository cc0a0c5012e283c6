package vespa

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/internal/wire"
)

// SendOnce sends one /document/v1 request for the operation kind on the
// document id, with no retries, through hc (nil: [Client.HTTPClient]).
//
// body is the exact request body: {"fields":...} for a put, the update JSON
// for an update, nil for a remove or a get. It is sent as it is (gzipped when
// opts.Gzip is set); SendOnce never reads it after returning. [WithSchema]
// does not check it: SendOnce is the feeder's, which checks each operation
// once, when it is enqueued (feed.Config.Schema).
//
// An answer of Vespa is returned as (*Result, nil), whatever its status; use
// [ErrorFromResult] to turn a non-2xx result into an error. The error is
// non-nil when no answer of Vespa was received: an [*Error] with Status 0
// that unwraps to the transport failure or the context's error; an *Error
// with the status of a 3xx, which is never followed ([ErrRedirect], nothing
// was written), of a 2xx whose body is not /document/v1's JSON
// ([ErrMalformedResponse]: a proxy's login page, a truncated or empty body),
// or of an answer above [WithDocumentLimit] ([ErrResponseTooLarge]). An
// invalid id gives a [*DocumentIDError] before anything is sent. The
// request goes straight to hc's transport (a redirect is never followed)
// unless hc has a cookie jar or a Timeout; then it is hc.Do, and hc must not
// follow redirects (those of [Client.HTTPClient] and [Client.NewHTTPClient]
// do not); the client's transport refuses a redirect to another origin
// anyway.
//
// The request's deadline is the earlier of ctx's and 1.1×timeout + 1 s, where
// timeout is opts.Timeout, else the client's default ([WithTimeout]), else
// Vespa's 180 s (then the client waits 190 s).
func (c *Client) SendOnce(ctx context.Context, hc *http.Client, kind OperationKind, id DocumentID, body []byte, opts OperationOptions) (*Result, error) {
	if err := id.validateFast(); err != nil {
		return nil, err
	}
	method := kind.Method()
	if method == "" {
		return nil, &Error{Op: kind.String(), ID: id.String(), Err: errUnknownKind}
	}
	if hc == nil {
		hc = c.hc
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = c.timeout
	}
	// The feeder and most callers give a deadline of their own that comes
	// first: then no child context (and no timer) is needed per request.
	if limit := clientDeadline(timeout); !deadlineWithin(ctx, limit) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}

	path, query := c.target(id, kind, &opts, timeout)

	hasBody := kind == OpPut || kind == OpUpdate
	if hasBody {
		if opts.Gzip && len(body) > 0 {
			z, err := gzipBytes(body)
			if err != nil {
				return nil, &Error{Op: kind.String(), ID: id.String(), Path: path, Err: err}
			}
			body = z
		}
	} else {
		body = nil
	}
	req, err := http.NewRequestWithContext(ctx, method, "", nil)
	if err != nil {
		return nil, &Error{Op: kind.String(), ID: id.String(), Path: path, Err: err}
	}
	setDocumentURL(req, c.endpoint, path, query)
	if hasBody {
		wire.SetBody(req, body)
	}
	if len(opts.Header) == 0 && !opts.Gzip && c.sharesHeaders(hc) {
		// The common request: the headers are the client's fixed ones,
		// built once and shared. Only the client's own transport, with no
		// wrapper, sees them, and it never modifies them (hc.Do would,
		// adding a cookie jar's cookies; a wrapper may add headers).
		req.Header = c.fixedHeader(hasBody)
	} else {
		h := req.Header
		for k, vs := range opts.Header {
			h[k] = vs
		}
		if hasBody {
			h["Content-Type"] = jsonContentType
			if opts.Gzip && len(body) > 0 {
				h["Content-Encoding"] = gzipEncoding
			}
		}
		c.sec().setFixedHeaders(h)
	}

	start := time.Now()
	resp, err := wire.RoundTrip(hc, req) //nolint:bodyclose // wire.ReadAnswer closes it
	if err != nil {
		return nil, wire.LogTransportError(ctx, c.logger, kind.String(), id.String(), path, err)
	}
	data, err := wire.ReadAnswer(kind.String(), "", path, resp, c.cfg().docLimit)
	if err != nil {
		var we *Error
		if errors.As(err, &we) {
			we.ID = id.String()
		}
		return nil, err
	}
	r := &Result{ID: id, Path: path}
	decodeResult(r, resp.StatusCode, resp.Header, data)
	if c.logger.Enabled(ctx, slog.LevelDebug) { // the arguments alone cost allocations per request
		c.logger.DebugContext(ctx, "vespa request", "op", kind.String(), "path", path, "status", r.Status, "elapsed", time.Since(start))
	}
	if r.OK() && !r.isVespaAnswer() {
		why := "not the answer of /document/v1: no pathId or id"
		if r.BodyExcerpt != "" {
			why = "not the answer of /document/v1: not a JSON object"
		}
		return nil, wire.Malformed(kind.String(), id.String(), path, r.Status, data, why, nil)
	}
	return r, nil
}

// target returns the escaped path of id's /document/v1 request and its
// query, cut from one string.
func (c *Client) target(id DocumentID, kind OperationKind, opts *OperationOptions, timeout time.Duration) (path, query string) {
	b := make([]byte, 0, len(c.prefix)+128+2*len(id.UserSpecific))
	b = id.appendPath(append(b, c.prefix...))
	n := len(b)
	b = append(b, '?')
	// The query goes right after the '?' when it fits: appendQuery starts
	// a query of its own on an empty slice.
	q := appendQuery(b[len(b):], kind, opts, timeout)
	if len(q) <= cap(b)-len(b) {
		b = b[:len(b)+len(q)] // appended in place
	} else {
		b = append(b, q...)
	}
	s := string(b)
	return s[:n], s[n+1:]
}

// setDocumentURL points req at path (escaped) and query on the endpoint, as
// http.NewRequest would for the URL they make: Path holds the decoded path
// and RawPath the exact escaped one that goes on the wire (a wrapper, a
// tracer or a log reads Path, Host and URL.String() as for any request).
// Every byte of path is unreserved, '/', a sub-delimiter of the
// endpoint's own escaped path or a %XX escape, so URL.EscapedPath gives
// back path itself.
func setDocumentURL(req *http.Request, endpoint *url.URL, path, query string) {
	u := req.URL // url.Parse's, reused
	*u = *endpoint
	u.Opaque = ""
	u.Path, u.RawPath = path, ""
	if strings.IndexByte(path, '%') >= 0 {
		if p, err := url.PathUnescape(path); err == nil && p != path {
			u.Path, u.RawPath = p, path
		}
	}
	u.RawQuery = query
	req.Host = u.Host
}

// sharesHeaders reports whether a request through hc may carry the
// client's shared fixed headers: only when hc's transport is the client's
// own, with no [WithTransportWrapper] (a wrapper may add headers to the
// request it is given, and would then add them to every request at once),
// and nothing but that transport sees the request ([wire.Direct]).
func (c *Client) sharesHeaders(hc *http.Client) bool {
	if c.cfg().wrapper != nil || !wire.Direct(hc) {
		return false
	}
	_, own := hc.Transport.(*headerTransport)
	return own
}

// deadlineWithin reports whether ctx already ends within d from now.
func deadlineWithin(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return ok && time.Until(dl) <= d
}

var (
	jsonContentType = []string{"application/json; charset=UTF-8"}
	gzipEncoding    = []string{"gzip"}
)

// fixedHeader returns the shared headers of a request with or without a
// JSON body. Nothing may modify them.
func (c *Client) fixedHeader(withBody bool) http.Header {
	if withBody {
		return c.sec().withBody
	}
	return c.sec().plain
}

// setFixedHeaders writes the client's fixed headers into h, so that the
// client's transport finds them present and need not copy the request.
func (s *secrets) setFixedHeaders(h http.Header) {
	for k, vs := range s.headers {
		h[k] = vs
	}
	if s.auth != "" {
		h["Authorization"] = s.authValue
	}
	h["User-Agent"] = s.uaValue
}

func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
