package vespa

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/internal/wire"
	"github.com/govespa/govespa/vespa/retries"
)

// This file fetches the pages of visits and of updates and removes by
// selection: one request (pageOnce), its answer (visitPage), and the loop
// over one slice's continuations (Visitor.fetchSlice).

// slicePage is what a slice's worker hands to the visit's loop: a page of
// documents and the continuation after it ("" when the slice is finished),
// or the error that ended the slice.
type slicePage struct {
	pos  int // position of the chain in Visitor.chains
	docs []Document
	next string
	err  error
	// percent is Vespa's percentFinished of the chain, when hasPercent.
	percent    float64
	hasPercent bool
}

// visitPage is the answer to one page request of a visit (documents) or of
// an update or remove by selection (documentCount only).
type visitPage struct {
	Result
	docs  []Document
	count int64
	next  string
	// percent is Vespa's percentFinished of the slice, which only streamed
	// JSON Lines pages carry (hasPercent).
	percent    float64
	hasPercent bool
}

// visitBody is the JSON of a page: {"pathId","documents","documentCount",
// "message","continuation"}.
type visitBody struct {
	PathID    string `json:"pathId"`
	Documents []struct {
		ID     string          `json:"id"`
		Remove string          `json:"remove"`
		Fields json.RawMessage `json:"fields"`
	} `json:"documents"`
	DocumentCount int64  `json:"documentCount"`
	Message       string `json:"message"`
	Continuation  string `json:"continuation"`
}

// errMalformedPage is the cause of an *Error for a 2xx page whose body is
// not a page.
var errMalformedPage = errors.New("malformed visit response")

// decodeVisitPage reads a page answer. A 2xx answer whose body is not a
// page's JSON is an error; any other status is a result for the caller to
// judge, with Vespa's message or an excerpt of the body.
func decodeVisitPage(p *visitPage, status int, h http.Header, body []byte) error {
	p.Status = status
	p.IgnoredOperation = h.Get("X-Vespa-Ignored-Operation") == "true"
	p.retryAfter, p.hasRetry = wire.RetryAfterOf(h)
	if p.OK() && isJSONLines(h) {
		return decodeVisitLines(p, body)
	}
	var vb visitBody
	err := json.Unmarshal(body, &vb)
	if err == nil && (len(bytes.TrimSpace(body)) == 0 || bytes.TrimSpace(body)[0] != '{') {
		err = errors.New("not a JSON object")
	}
	if err == nil && p.OK() && vb.PathID == "" {
		err = errors.New("no pathId")
	}
	if err != nil {
		if len(body) > 0 {
			p.BodyExcerpt = wire.Excerpt(body)
		}
		if p.OK() {
			return wire.Malformed("visit", "", p.Path, status, body, "not a visit page ("+err.Error()+")", errMalformedPage)
		}
		return nil
	}
	p.PathID, p.Message, p.next, p.count = vb.PathID, vb.Message, vb.Continuation, vb.DocumentCount
	if len(vb.Documents) > 0 {
		p.docs = make([]Document, 0, len(vb.Documents))
		for _, d := range vb.Documents {
			switch {
			case d.ID != "":
				p.docs = append(p.docs, Document{ID: d.ID, Fields: d.Fields})
			case d.Remove != "":
				// A tombstone, which Vespa sends with includeRemoves.
				p.docs = append(p.docs, Document{ID: d.Remove, Removed: true})
			}
		}
	}
	return nil
}

// pageOnce sends one visit-kind request (method on path with query and
// body), with no retries, through the client's exchange, and reads the whole
// answer within the client's page limit. A transport failure is an *Error
// with Status 0 that keeps net/http's error (without the URL), so that the
// retry policies can tell a dropped connection; a 3xx is an *Error naming
// its Location.
func (c *Client) pageOnce(ctx context.Context, op, method, path, query string, body []byte, timeout time.Duration) (*visitPage, error) {
	if timeout <= 0 {
		timeout = c.timeout
	}
	full := c.prefix + path
	h := http.Header{"Accept": {visitAccept}}
	if body != nil {
		h["Content-Type"] = jsonContentType
	}
	target := c.root + full
	if query != "" {
		target += "?" + query
	}
	resp, err := c.x.Do(ctx, &wire.Request{
		Op: op, Path: full, Method: method, URL: target, Header: h, Body: body,
		Limit: c.cfg().visitLimit, Timeout: clientDeadline(timeout),
	})
	if err != nil {
		return nil, err
	}
	p := &visitPage{Result: Result{Path: full}}
	if err := decodeVisitPage(p, resp.Status, resp.Header, resp.Body); err != nil {
		return nil, err
	}
	return p, nil
}

// fetchVisitPage gets one page under retries.Visit on top of the client's
// policy: the inner policy sees the raw answer (and retries 429s and
// connection errors by default); a page with another status than 2xx then
// becomes an *Error, which retries.Visit retries when its status is 400 or
// more.
func (c *Client) fetchVisitPage(ctx context.Context, op, method, path, query string, body []byte, timeout time.Duration, outer retries.Policy) (*visitPage, error) {
	// wire.Run keeps the cause: when ctx ends while either policy waits,
	// the error matches ctx's error and the last page's status.
	return wire.Run(ctx, outer, func(ctx context.Context) (*visitPage, error) {
		p, err := wire.Run(ctx, c.policy, func(ctx context.Context) (*visitPage, error) {
			return c.pageOnce(ctx, op, method, path, query, body, timeout)
		}, func(p *visitPage, err error) error {
			if err != nil || p == nil {
				return err
			}
			return ErrorFromResult(&p.Result, op)
		})
		if err != nil {
			return nil, err
		}
		if err := ErrorFromResult(&p.Result, op); err != nil {
			return p, err
		}
		return p, nil
	}, nil)
}

// query returns the query string of a page request of chain ch that
// continues from cont, streamed (stream=true) when stream is set.
func (v *Visitor) query(ch visitChain, cont string, stream bool) string {
	r := &v.req
	var b []byte
	add := func(key, value string) {
		if len(b) > 0 {
			b = append(b, '&')
		}
		b = append(b, key...)
		b = append(b, '=')
		b = append(b, escapeQueryValue(value)...)
	}
	if r.Cluster != "" {
		add("cluster", r.Cluster)
	}
	if v.selection != "" {
		add("selection", v.selection)
	}
	if r.FieldSet != "" {
		add("fieldSet", r.FieldSet)
	}
	add("wantedDocumentCount", strconv.Itoa(v.wanted))
	if r.Concurrency > 0 {
		add("concurrency", strconv.Itoa(r.Concurrency))
	}
	if t := v.timeout(); t > 0 {
		add("timeout", formatTimeout(t))
	}
	if r.TensorFormat != "" {
		add("format.tensors", r.TensorFormat)
	}
	if stream {
		add("stream", "true")
	}
	if ch.space != "" {
		add("bucketSpace", ch.space)
	}
	if v.from != 0 {
		add("fromTimestamp", strconv.FormatInt(v.from, 10))
	}
	if v.to != 0 {
		add("toTimestamp", strconv.FormatInt(v.to, 10))
	}
	if r.IncludeRemoves {
		add("includeRemoves", "true")
	}
	if v.progress.slices > 1 {
		add("slices", strconv.Itoa(v.progress.slices))
		add("sliceId", strconv.Itoa(ch.slice))
	}
	if cont != "" {
		add("continuation", cont)
	}
	return string(b)
}

func (v *Visitor) timeout() time.Duration {
	if v.req.Timeout > 0 {
		return v.req.Timeout
	}
	return v.c.timeout
}

// fetchSlice fetches the pages of the chain at position pos from cont on
// and sends them to out, until the chain is finished (true), a page fails
// or the chain stops advancing (the error is sent; false) or ctx ends
// (false).
//
// A streamed visit's chain asks for its pages unstreamed until one has been
// answered: Vespa's handler commits 200 to a streamed page before it parses
// the selection, and when the selection does not parse it never ends that
// answer (DocumentV1ApiHandler.visitAndWrite commits in onStart; the parse
// error is thrown after it and the response is left open), so a streamed
// first page would wait out the client's whole deadline (1.1×Timeout + 1 s,
// and again for each retry) for a page that will not come. Unstreamed, the
// same mistake is Vespa's prompt 400 naming the selection.
func (v *Visitor) fetchSlice(ctx context.Context, pos int, cont string, out chan<- *slicePage) bool {
	ch := v.chains[pos]
	guard := newAdvanceGuard(cont)
	answered := false // a page of this chain came back: its selection parses
	for {
		q := v.query(ch, cont, v.req.Stream && answered)
		p, err := v.c.fetchVisitPage(ctx, "visit", http.MethodGet, v.path, q, nil, v.timeout(), retries.VisitPolicy())
		if err == nil {
			answered = true
			err = guard.check(v.path, cont, p.next)
		}
		sp := &slicePage{pos: pos, err: err}
		if err == nil {
			sp.docs, sp.next, sp.percent, sp.hasPercent = p.docs, p.next, p.percent, p.hasPercent
		}
		select {
		case out <- sp:
		case <-ctx.Done():
			return false
		}
		if err != nil {
			return false
		}
		if p.next == "" {
			return true
		}
		// An empty page with a continuation is not the end: go on.
		cont = p.next
	}
}

// escapeQueryValue escapes a query value with %20 for spaces (a literal '+'
// becomes %2B), which both form decoding and plain percent-decoding read
// back the same.
func escapeQueryValue(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}
