package vespa

import (
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// OperationKind is the kind of a single-document operation.
type OperationKind int

// The single-document operations of /document/v1.
const (
	// OpPut writes a whole document (POST).
	OpPut OperationKind = iota
	// OpUpdate changes fields of a document (PUT).
	OpUpdate
	// OpRemove removes a document (DELETE).
	OpRemove
	// OpGet reads a document (GET).
	OpGet
)

var operationKindNames = [...]string{OpPut: "put", OpUpdate: "update", OpRemove: "remove", OpGet: "get"}

// String returns "put", "update", "remove" or "get".
func (k OperationKind) String() string { return enumString(operationKindNames[:], k, "OperationKind") }

// enumString returns the name names holds for v, or "<typ>(<v>)" for a
// value without one: the String of the package's enumerations.
func enumString[E ~int](names []string, v E, typ string) string {
	if v >= 0 && int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}

// Method returns the HTTP method of the operation: POST, PUT, DELETE or GET.
func (k OperationKind) Method() string {
	switch k {
	case OpPut:
		return http.MethodPost
	case OpUpdate:
		return http.MethodPut
	case OpRemove:
		return http.MethodDelete
	case OpGet:
		return http.MethodGet
	}
	return ""
}

// OperationOptions are the per-operation parameters of /document/v1. The zero
// value means Vespa's defaults. Fields that do not apply to an operation are
// not sent (Condition on a get, FieldSet on a put, ...).
type OperationOptions struct {
	// Condition is a test-and-set document selection (put, update, remove):
	// the operation applies only if the stored document matches, otherwise
	// it fails with 412 ([ErrConditionNotMet]), also when there is no
	// document to test ([WhyConditionFailed] tells the two apart). Empty:
	// none.
	Condition string
	// Create makes an update create a missing document (upsert); with a
	// Condition, a missing document ignores the condition. Put, update.
	Create bool
	// Route is the message-bus route (put, update, remove). Empty: "default".
	Route string
	// Timeout is sent as Vespa's timeout parameter and bounds the request on
	// the client side too, at 1.1×Timeout + 1 s. Zero: the client's
	// [WithTimeout] value, and if that is zero too, Vespa's 180 s (the client
	// then waits at most 190 s).
	Timeout time.Duration
	// TraceLevel (0–9) asks Vespa for a trace in [Result.Trace]. 0: none.
	TraceLevel int
	// FieldSet selects the fields a get returns: "[document]", "[all]",
	// "[id]" or "<type>:f1,f2". Empty: all fields of the document type.
	FieldSet string
	// Cluster names the content cluster of a get. Empty: the only one.
	Cluster string
	// TensorFormat is how a get renders tensors (format.tensors): "short",
	// "long", "short-value", "long-value", "hex" or "hex-value". Empty:
	// Vespa's default, "short".
	TensorFormat string
	// DryRun makes Vespa answer a put, update or remove with 200 at once,
	// without reading or applying it (a speed test of the client).
	DryRun bool
	// Gzip compresses the request body (put, update) with gzip.
	Gzip bool
	// Header holds headers of this request only (a request ID, say), sent
	// with the client's own; the client's Authorization, User-Agent and
	// [WithHeader] values win over the same names here. Nil: none.
	Header http.Header
	// Resend lets the client re-send a non-idempotent operation — an update
	// with arithmetic (increment, decrement, multiply, divide), add or a
	// tensor modify other than replace, or any write with a Condition —
	// after a connection error that may have reached the server. By default
	// such an operation is re-sent only after errors that prove nothing was
	// sent (a refused connection, a failed DNS lookup), so that an increment
	// is never applied twice; 429 answers are retried either way.
	Resend bool
}

// defaultServerTimeout is Vespa's own timeout when none is sent; the client
// deadline is then defaultClientWait, as for Vespa's Go client.
const (
	defaultServerTimeout = 180 * time.Second
	defaultClientWait    = 190 * time.Second
)

// clientDeadline is how long the client waits for an operation that Vespa
// bounds by timeout t: 1.1×t + 1 s, as Vespa's Go client does.
func clientDeadline(t time.Duration) time.Duration {
	if t <= 0 {
		return defaultClientWait
	}
	return t + t/10 + time.Second
}

// formatTimeout renders d as a Vespa time string: whole milliseconds with the
// "ms" unit (at least 1ms).
func formatTimeout(d time.Duration) string {
	ms := d.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// appendQuery appends the query parameters of an operation of kind k with
// options o and effective timeout t to b (without the leading '?').
func appendQuery(b []byte, k OperationKind, o *OperationOptions, t time.Duration) []byte {
	add := func(key, value string) {
		if len(b) > 0 {
			b = append(b, '&')
		}
		b = append(b, key...)
		b = append(b, '=')
		b = append(b, url.QueryEscape(value)...)
	}
	write := k != OpGet
	if write && o.Condition != "" {
		add("condition", o.Condition)
	}
	if (k == OpPut || k == OpUpdate) && o.Create {
		add("create", "true")
	}
	if write && o.Route != "" {
		add("route", o.Route)
	}
	if t > 0 {
		add("timeout", formatTimeout(t))
	}
	if o.TraceLevel > 0 {
		add("tracelevel", strconv.Itoa(o.TraceLevel))
	}
	if k == OpGet && o.FieldSet != "" {
		add("fieldSet", o.FieldSet)
	}
	if k == OpGet && o.Cluster != "" {
		add("cluster", o.Cluster)
	}
	if k == OpGet && o.TensorFormat != "" {
		add("format.tensors", o.TensorFormat)
	}
	if write && o.DryRun {
		add("dryRun", "true")
	}
	return b
}
