package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-resty/resty/v2"
)

// Config configures an [Exchange].
type Config struct {
	// Transport sends the requests; nil means http.DefaultTransport. It
	// must not retry on its own.
	Transport http.RoundTripper
	// CheckRedirect is the redirect policy: nil means [NoRedirects];
	// [SameOrigin] for the control plane. A 3xx that it does not follow is
	// an [Error].
	CheckRedirect func(req *http.Request, via []*http.Request) error
	// UserAgent is sent with each request that has none.
	UserAgent string
	// Logger logs each exchange at debug level (method, path, status,
	// time; never headers or query strings). Nil discards.
	Logger *slog.Logger
}

// Exchange sends requests and reads their answers under one set of rules.
// It is safe for concurrent use.
type Exchange struct {
	hc     *http.Client
	rc     *resty.Client
	logger *slog.Logger
}

// New returns an exchange with the configuration cfg.
func New(cfg Config) *Exchange {
	rt := cfg.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	check := cfg.CheckRedirect
	if check == nil {
		check = NoRedirects
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	x := &Exchange{hc: &http.Client{Transport: rt, CheckRedirect: check}, logger: logger}
	// resty gets its own *http.Client on the same transport and redirect
	// policy, so that its settings never leak into HTTPClient. Its retries
	// and debug mode stay off: retries re-send reader bodies empty, and
	// debug output prints Authorization.
	x.rc = resty.NewWithClient(&http.Client{Transport: rt, CheckRedirect: check}).
		SetRetryCount(0).
		SetDebug(false).
		SetDisableWarn(true).
		SetDoNotParseResponse(true).
		SetLogger(restyLogger{logger}).
		SetPreRequestHook(prepare)
	if cfg.UserAgent != "" {
		x.rc.SetHeader("User-Agent", cfg.UserAgent)
	}
	return x
}

// HTTPClient returns the exchange's *http.Client, for the lean path
// ([Finish]): its transport and redirect policy are the exchange's.
func (x *Exchange) HTTPClient() *http.Client { return x.hc }

// Request is one attempt of a call. Build it afresh for each attempt.
type Request struct {
	// Op, ID and Path name the call in errors and logs; Path is the
	// request's path without its query.
	Op, ID, Path string
	// Method is the HTTP method.
	Method string
	// URL is the full URL, query included.
	URL string
	// Header holds the request's own headers (nil: none).
	Header http.Header
	// Body is a small body, sent as it is (nil: none), or
	Body []byte
	// BodyReader is a streamed body of ContentLength bytes (-1: unknown).
	BodyReader    io.Reader
	ContentLength int64
	// Prepare, if set, sees the final *http.Request just before it is sent
	// (to sign it, say).
	Prepare func(*http.Request) error
	// Limit bounds the answer read into memory; 0 means
	// [DefaultControlLimit].
	Limit int64
	// Timeout bounds the attempt; 0 means only ctx bounds it.
	Timeout time.Duration
	// SkipBody closes the answer's body without reading it.
	SkipBody bool
}

// Response is an answer that was read: any status but 3xx.
type Response struct {
	Status int
	Header http.Header
	Body   []byte

	retryAfter    time.Duration
	hasRetryAfter bool
}

// StatusCode returns the HTTP status, for retry classification.
func (r *Response) StatusCode() int { return r.Status }

// RetryAfter returns the answer's Retry-After hint.
func (r *Response) RetryAfter() (time.Duration, bool) { return r.retryAfter, r.hasRetryAfter }

// OK reports whether the status is 2xx.
func (r *Response) OK() bool { return r.Status >= 200 && r.Status <= 299 }

type requestKey struct{}

// prepare applies a Request's ContentLength and Prepare to the final
// *http.Request (resty's pre-request hook).
func prepare(_ *resty.Client, hr *http.Request) error {
	r, ok := hr.Context().Value(requestKey{}).(*Request)
	if !ok {
		return nil
	}
	if r.BodyReader != nil {
		hr.ContentLength = r.ContentLength
		if r.ContentLength == 0 {
			hr.Body = http.NoBody
		}
	}
	if r.Prepare != nil {
		return r.Prepare(hr)
	}
	return nil
}

// Do sends r once and reads the answer. A 3xx (not followed) is an [Error]
// naming its status and Location; an answer above r.Limit is an Error
// matching [ErrResponseTooLarge]; no answer is an Error with Status 0 (see
// [TransportError]). Any other status is a Response for the caller to
// judge ([StatusError]).
func (x *Exchange) Do(ctx context.Context, r *Request) (*Response, error) {
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	if r.Prepare != nil || r.BodyReader != nil {
		ctx = context.WithValue(ctx, requestKey{}, r)
	}
	rq := x.rc.R().SetContext(ctx)
	for k, vs := range r.Header {
		rq.Header[k] = vs
	}
	switch {
	case r.BodyReader != nil:
		rq.SetBody(r.BodyReader)
	case r.Body != nil:
		rq.SetBody(bytes.NewReader(r.Body)) // a reader: resty copies a []byte twice
	}
	start := time.Now()
	res, err := rq.Execute(r.Method, r.URL)
	if err != nil {
		return nil, LogTransportError(ctx, x.logger, r.Op, r.ID, r.Path, err)
	}
	resp, err := Finish(r.Op, r.ID, r.Path, res.RawResponse, r.limit(), r.SkipBody)
	if x.logger.Enabled(ctx, slog.LevelDebug) {
		status := 0
		if res.RawResponse != nil {
			status = res.RawResponse.StatusCode
		}
		x.logger.DebugContext(ctx, "vespa request", "op", r.Op, "path", r.Path, "status", status, "elapsed", time.Since(start))
	}
	return resp, err
}

// Send is [Exchange.Do] without resty, for the hot paths (queries; the
// document operations use [RoundTrip] and [ReadAnswer] the same way): the
// request goes straight to the exchange's transport ([RoundTrip]), and its
// answer through the same rules.
// Prepare and BodyReader are not supported here.
func (x *Exchange) Send(ctx context.Context, r *Request) (*Response, error) {
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	hr, err := http.NewRequestWithContext(ctx, r.Method, r.URL, nil)
	if err != nil {
		return nil, NewError(Failure{Op: r.Op, ID: r.ID, Path: r.Path, Err: HideURL(err)})
	}
	if r.Body != nil {
		SetBody(hr, r.Body)
	}
	for k, vs := range r.Header {
		hr.Header[k] = vs
	}
	res, err := RoundTrip(x.hc, hr) //nolint:bodyclose // Finish closes it
	if err != nil {
		return nil, LogTransportError(ctx, x.logger, r.Op, r.ID, r.Path, err)
	}
	return Finish(r.Op, r.ID, r.Path, res, r.limit(), r.SkipBody)
}

func (r *Request) limit() int64 {
	if r.Limit > 0 {
		return r.Limit
	}
	return DefaultControlLimit
}

// Finish reads and closes the answer hr to a request named op, id, path
// under the exchange's rules: a 3xx is an [Error] naming its Location, a
// body larger than limit an Error matching [ErrResponseTooLarge], a body cut
// short an Error with Status 0 whose cause is the read failure. With
// skipBody the body is closed unread.
func Finish(op, id, path string, hr *http.Response, limit int64, skipBody bool) (*Response, error) {
	if hr == nil {
		return nil, NewError(Failure{Op: op, ID: id, Path: path, Err: errors.New("no response")})
	}
	if skipBody && !IsRedirect(hr.StatusCode) {
		_ = hr.Body.Close()
		resp := &Response{Status: hr.StatusCode, Header: hr.Header}
		resp.retryAfter, resp.hasRetryAfter = RetryAfterOf(hr.Header)
		return resp, nil
	}
	body, err := ReadAnswer(op, id, path, hr, limit)
	if err != nil {
		return nil, err
	}
	resp := &Response{Status: hr.StatusCode, Header: hr.Header, Body: body}
	resp.retryAfter, resp.hasRetryAfter = RetryAfterOf(hr.Header)
	return resp, nil
}

// ReadAnswer reads and closes the body of hr under the exchange's rules (see
// [Finish]) and returns it.
func ReadAnswer(op, id, path string, hr *http.Response, limit int64) ([]byte, error) {
	defer hr.Body.Close()
	if IsRedirect(hr.StatusCode) {
		_, _ = io.CopyN(io.Discard, hr.Body, 4<<10) // let a small body keep the connection
		return nil, redirectError(op, id, path, hr.StatusCode, hr.Header)
	}
	body, err := ReadBody(hr.Body, hr.ContentLength, limit)
	if err != nil {
		f := Failure{Op: op, ID: id, Path: path, Err: err}
		if _, ok := err.(*LimitError); ok { //nolint:errorlint // ReadBody returns it bare
			f.Status = hr.StatusCode
		}
		return nil, NewError(f)
	}
	return body, nil
}

// StatusError returns the error of a response with a status other than
// 2xx: Vespa's message if given, else an excerpt of the body.
func StatusError(op, id, path string, resp *Response, message string) error {
	if message == "" {
		message = Excerpt(resp.Body)
	}
	return NewError(Failure{Op: op, ID: id, Path: path, Status: resp.Status, Message: message,
		RetryAfter: resp.retryAfter, HasRetryAfter: resp.hasRetryAfter})
}

// Malformed returns the error of a 2xx answer whose body is not the Vespa
// JSON expected: it matches [ErrMalformedResponse] and quotes the start of
// the body. A non-nil also is joined to its cause.
func Malformed(op, id, path string, status int, body []byte, why string, also error) error {
	msg := "empty body"
	if len(bytes.TrimSpace(body)) > 0 {
		msg = "body: " + Excerpt(body)
	}
	cause := fmt.Errorf("%w: %s", ErrMalformedResponse, why)
	if also != nil {
		cause = errors.Join(also, cause)
	}
	return NewError(Failure{Op: op, ID: id, Path: path, Status: status, Message: msg, Err: cause})
}

// restyLogger routes resty's own messages to the logger at debug level.
type restyLogger struct{ l *slog.Logger }

func (r restyLogger) Errorf(format string, v ...any) { r.l.Debug(fmt.Sprintf("resty: "+format, v...)) }
func (r restyLogger) Warnf(format string, v ...any)  { r.l.Debug(fmt.Sprintf("resty: "+format, v...)) }
func (r restyLogger) Debugf(format string, v ...any) { r.l.Debug(fmt.Sprintf("resty: "+format, v...)) }
