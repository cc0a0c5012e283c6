package vespa

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/internal/wire"
)

// Result is the answer to one /document/v1 request, whatever its status.
type Result struct {
	// ID is the document ID of the request.
	ID DocumentID
	// ServerID is the "id" the server wrote in its answer; empty when the
	// request was rejected before dispatch.
	ServerID string
	// PathID is the "pathId" of the answer: the raw request path.
	PathID string
	// Path is the path the request was sent to (percent-encoded).
	Path string
	// Status is the HTTP status.
	Status int
	// Message is Vespa's "message" (set on errors).
	Message string
	// Trace is the "trace" array when a trace level was asked for.
	Trace json.RawMessage
	// Fields is the "fields" object of a get.
	Fields json.RawMessage
	// IgnoredFields is set when Vespa ignored fields the type does not have
	// (header X-Vespa-Ignored-Fields).
	IgnoredFields bool
	// IgnoredOperation is set when the operation matched no content
	// cluster's document selection and Vespa dropped it (header
	// X-Vespa-Ignored-Operation: true, set by DocumentV1ApiHandler when
	// DocumentRouteSelectorPolicy routed the operation nowhere). It comes
	// on a 200, so the call succeeds although nothing changed: Vespa answers
	// a remove of a document type no content cluster holds (a misspelt
	// type) this way, and with several content clusters also a get (404,
	// with the Result returned beside the [ErrNotFound] error). Check it
	// where a silent no-op matters; the feeder reports it as
	// feed.Outcome.Ignored.
	IgnoredOperation bool
	// BodyExcerpt holds the start of a body that was not a JSON object
	// (such as a proxy's HTML error page), at most 256 bytes; empty otherwise.
	BodyExcerpt string

	retryAfter time.Duration
	hasRetry   bool
}

// StatusCode returns the HTTP status.
func (r *Result) StatusCode() int { return r.Status }

// RetryAfter returns the server's Retry-After hint, if it sent one: seconds
// or an HTTP date (a date in the past is 0), at most 60 s; a negative or
// malformed value is none.
func (r *Result) RetryAfter() (time.Duration, bool) { return r.retryAfter, r.hasRetry }

// OK reports whether the status is 2xx.
func (r *Result) OK() bool { return r.Status >= 200 && r.Status < 300 }

// responseBody is the JSON envelope of every single-document answer.
type responseBody struct {
	PathID  string          `json:"pathId"`
	ID      string          `json:"id"`
	Message string          `json:"message"`
	Trace   json.RawMessage `json:"trace"`
	Fields  json.RawMessage `json:"fields"`
}

// isVespaAnswer reports whether the body of r was the JSON object of a
// /document/v1 answer, which always names the path or the document.
func (r *Result) isVespaAnswer() bool {
	return r.BodyExcerpt == "" && (r.PathID != "" || r.ServerID != "")
}

// decodeResult fills r from a response's status, headers and body.
func decodeResult(r *Result, status int, h http.Header, body []byte) {
	r.Status = status
	r.IgnoredFields = h.Get("X-Vespa-Ignored-Fields") == "true"
	r.IgnoredOperation = h.Get("X-Vespa-Ignored-Operation") == "true"
	r.retryAfter, r.hasRetry = wire.RetryAfterOf(h)
	if len(body) == 0 {
		return
	}
	var rb responseBody
	if !decodeStringsFast(body, &rb) {
		rb = responseBody{}
		if trimmed := strings.TrimSpace(string(body[:min(len(body), 16)])); !strings.HasPrefix(trimmed, "{") || json.Unmarshal(body, &rb) != nil {
			r.BodyExcerpt = wire.Excerpt(body)
			return
		}
	}
	r.PathID, r.ServerID, r.Message, r.Trace, r.Fields = rb.PathID, rb.ID, rb.Message, rb.Trace, rb.Fields
}
