package feed

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/jsonobj"
	"github.com/govespa/govespa/vespa/schema"
)

// ErrInvalidOperation is matched (errors.Is) by the error of [Feeder.Enqueue]
// (and Put, Update, Remove) for an operation that cannot be sent: an unknown
// kind, an invalid document ID, or fields that are not a JSON object. Such an
// operation is refused before any attempt and has no outcome; [Feeder.Feed]
// reports it as a failed outcome and goes on.
var ErrInvalidOperation = errors.New("feed: invalid operation")

// invalid returns an error matching ErrInvalidOperation (and whatever
// format wraps with %w), naming op's feed-file line when it has one.
func invalid(op *Operation, format string, args ...any) error {
	what := fmt.Errorf(format, args...)
	if op.Line > 0 {
		return fmt.Errorf("%w: %s line %d: %w", ErrInvalidOperation, op.Source, op.Line, what)
	}
	return fmt.Errorf("%w: %w", ErrInvalidOperation, what)
}

// check validates op before it is accepted and readies its request body.
func (op *Operation) check() error {
	switch op.Kind {
	case vespa.OpPut, vespa.OpUpdate:
		if op.Fields == nil {
			return invalid(op, "%s of %s without fields", opName(op.Kind), op.ID)
		}
	case vespa.OpRemove:
	default:
		return invalid(op, "cannot feed operation kind %v", op.Kind)
	}
	if op.checked {
		return nil // read by the Reader, which checked it
	}
	if err := op.ID.Validate(); err != nil {
		return invalid(op, "%s: %w", opName(op.Kind), err)
	}
	if op.Fields != nil && op.body == nil {
		if !jsonobj.IsObject(op.Fields) {
			return invalid(op, "%s of %s: the fields are not a JSON object", opName(op.Kind), op.ID)
		}
	}
	op.checked = true
	return nil
}

// checkSchema checks op against the application's schemas.
func (op *Operation) checkSchema(a *schema.Application) error {
	var err error
	switch op.Kind {
	case vespa.OpPut:
		err = a.CheckPut(op.ID.DocType, op.Fields)
	case vespa.OpUpdate:
		err = a.CheckUpdate(op.ID.DocType, op.Fields)
	default:
		err = a.CheckPut(op.ID.DocType, nil)
	}
	if err != nil {
		return invalid(op, "%s of %s: %w", opName(op.Kind), op.ID, err)
	}
	return nil
}

// NewPut returns the put of id with fields, for [Feeder.Enqueue] (to set
// [Operation.Meta], [Operation.Done] or a condition): fields is a struct or
// map, encoded with encoding/json here, once, or the JSON object itself as
// json.RawMessage or []byte (copied). A value that is not a JSON object is an
// error matching [ErrInvalidOperation]; the ID is checked by Enqueue.
func NewPut(id vespa.DocumentID, fields any) (Operation, error) {
	op := Operation{Kind: vespa.OpPut, ID: id}
	raw, err := jsonobj.Encode(fields, objectWords)
	if err != nil {
		return op, invalid(&op, "put of %s: %v", id, err)
	}
	op.setBody(wrapFields(raw))
	return op, nil
}

// NewUpdate returns the update of id, for [Feeder.Enqueue]: update is a
// [*vespa.Update] (or vespa.Update), whose encoding {"fields": {...}} is the
// whole body as it is, or else the JSON object of the field updates as
// json.RawMessage, []byte, or any value that encoding/json turns into one.
// An update that does not encode is an error matching [ErrInvalidOperation].
func NewUpdate(id vespa.DocumentID, update any) (Operation, error) {
	op := Operation{Kind: vespa.OpUpdate, ID: id}
	var body []byte
	var err error
	switch u := update.(type) {
	case *vespa.Update:
		if u == nil {
			return op, invalid(&op, "update of %s: nil *vespa.Update", id)
		}
		body, err = u.MarshalJSON()
	case vespa.Update:
		body, err = u.MarshalJSON()
	default:
		var raw []byte
		if raw, err = jsonobj.Encode(update, objectWords); err == nil {
			body = wrapFields(raw)
		}
	}
	if err != nil {
		return op, invalid(&op, "update of %s: %v", id, err)
	}
	if !bytes.HasPrefix(body, []byte(fieldsPrefix)) || !bytes.HasSuffix(body, []byte(fieldsSuffix)) {
		return op, invalid(&op, "update of %s: the update does not encode as {\"fields\":...}", id)
	}
	op.setBody(body)
	return op, nil
}

// setBody makes body, {"fields":<object>}, the operation's request body, and
// its Fields the object inside it (no copy).
func (op *Operation) setBody(body []byte) {
	op.body = body
	op.Fields = body[len(fieldsPrefix) : len(body)-len(fieldsSuffix)]
}

// objectWords word the errors of the fields of a put or an update.
var objectWords = jsonobj.Words{
	Nil:       "nil fields",
	NotObject: "the fields are not a JSON object",
	Encoding:  func(v any, err error) error { return fmt.Errorf("encoding %T: %w", v, err) },
}
