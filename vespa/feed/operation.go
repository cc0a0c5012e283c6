package feed

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/govespa/govespa/vespa"
)

// Operation is one document operation to feed: a put, an update or a remove.
type Operation struct {
	// Kind is [vespa.OpPut], [vespa.OpUpdate] or [vespa.OpRemove].
	Kind vespa.OperationKind
	// ID is the document the operation is about.
	ID vespa.DocumentID
	// Fields is the JSON object of the document's fields (put) or of the
	// field updates (update), sent as {"fields": Fields} exactly as given;
	// nil for a remove.
	Fields json.RawMessage
	// Condition is a test-and-set document selection; "" means none.
	Condition string
	// Create makes an update an upsert (and a conditional put create a
	// missing document).
	Create bool

	// Source names the feed file the operation was read from ("" when it
	// was not read from one).
	Source string
	// Line is the 1-based line on which the operation starts in Source; 0
	// when it was not read from a feed file.
	Line int
	// Offset is the byte offset at which the operation starts in Source.
	Offset int64

	// Meta is the caller's own data about the operation (a message offset to
	// commit, a request to answer); the feeder never reads it and hands it
	// back in the operation's [Outcome].
	Meta any
	// Done, when set, is called once with the operation's outcome, right
	// after [Config.OnOutcome] and on the same goroutine, with the context
	// the operation was enqueued with: the completion of this one operation.
	// It may enqueue (see [Config.OnOutcome]).
	Done func(ctx context.Context, o Outcome)

	// body is {"fields":Fields} when Fields is a slice of it (as the reader
	// and the typed Put and Update build it), so that no copy is made when
	// the operation is sent.
	body []byte
	// checked is set once the ID and fields are known to be valid.
	checked bool
	// hash binds a journal record to the operation's content (see Journal);
	// 0 when not computed.
	hash uint64
}

// requestBody returns the /document/v1 body of the operation.
func (op *Operation) requestBody() []byte {
	if op.Kind == vespa.OpRemove || op.Fields == nil {
		return nil
	}
	if n := len(op.Fields); n > 0 && len(op.body) == len(fieldsPrefix)+n+len(fieldsSuffix) &&
		&op.body[len(fieldsPrefix)] == &op.Fields[0] {
		return op.body
	}
	return wrapFields(op.Fields)
}

// Outcome is the end of one operation: it succeeded, it failed, or it was
// cancelled. The feeder delivers exactly one Outcome for every operation it
// accepted (see [Config.OnOutcome]).
type Outcome struct {
	// Operation is the operation, as it was enqueued or read.
	Operation Operation
	// Status is the HTTP status of the last response; 0 when none came.
	Status int
	// Message is Vespa's message from the last response, if any.
	Message string
	// Attempts is the number of requests sent for the operation.
	Attempts int
	// Latency is the time from the first attempt to the outcome.
	Latency time.Duration
	// Skipped is set when the operation was not sent because the resume
	// journal says Vespa already acknowledged it.
	Skipped bool
	// Ignored is set when Vespa answered 200 with X-Vespa-Ignored-Operation:
	// the operation matched no content cluster's document selection and
	// was dropped, so it changed nothing although Err is nil. Vespa does
	// this to a remove of a document type no cluster holds (a misspelt
	// type), see [vespa.Result.IgnoredOperation].
	Ignored bool
	// Err is nil when the operation succeeded (a 2xx). Otherwise it says
	// why: a [*vespa.Error] for a non-2xx answer or a transport failure, a
	// [*ParseError] for a malformed feed-file operation, a
	// [*BreakerError] when the circuit breaker stopped the feed, or an error
	// matching [context.Canceled] or [context.DeadlineExceeded] when the
	// operation was cancelled or ran out of time (see [Outcome.Cancelled]).
	Err error
}

// OK reports whether the operation succeeded (or was skipped as already
// acknowledged).
func (o *Outcome) OK() bool { return o.Err == nil }

// Cancelled reports whether the operation ended because its context, or the
// feeder's Close, cancelled it before it succeeded or failed on its own.
func (o *Outcome) Cancelled() bool {
	return errors.Is(o.Err, context.Canceled) || errors.Is(o.Err, ErrClosed)
}

// IDString returns the document ID as text; for a feed-file operation whose
// ID could not be parsed, the text that was read.
func (o *Outcome) IDString() string {
	if !o.Operation.ID.IsZero() {
		return o.Operation.ID.String()
	}
	var pe *ParseError
	if errors.As(o.Err, &pe) {
		return pe.ID
	}
	return ""
}
