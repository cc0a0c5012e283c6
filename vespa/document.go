package vespa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/govespa/govespa/vespa/internal/jsonobj"
	"github.com/govespa/govespa/vespa/internal/wire"
	"github.com/govespa/govespa/vespa/retries"
)

// Get reads the document id. A missing document gives an [*Error] matching
// [ErrNotFound]; the fields of a found document are in [Result.Fields] (see
// [GetInto] to decode them). opts.FieldSet and opts.Cluster apply.
func (c *Client) Get(ctx context.Context, id DocumentID, opts OperationOptions) (*Result, error) {
	return c.do(ctx, OpGet, id, nil, opts)
}

// GetInto reads the document id and decodes its fields into a T, which may
// be a struct (with json tags) or a map. A missing document gives an [*Error]
// matching [ErrNotFound] and the zero T.
func GetInto[T any](ctx context.Context, c *Client, id DocumentID, opts OperationOptions) (T, *Result, error) {
	var v T
	r, err := c.Get(ctx, id, opts)
	if err != nil {
		return v, r, err
	}
	if len(r.Fields) == 0 {
		return v, r, nil
	}
	if err := json.Unmarshal(r.Fields, &v); err != nil {
		return v, r, fmt.Errorf("vespa: get %s: decoding fields into %T: %w", wire.QuoteShort(id.String(), 200), v, err)
	}
	return v, r, nil
}

// Put writes the document id with the given fields, replacing any stored
// document. fields is a struct (with json tags), a map, or the JSON object
// of the fields as json.RawMessage or []byte; it is sent as
// {"fields": <fields>}. opts.Condition, Create, Route, Timeout, TraceLevel
// and DryRun apply. Under [WithSchema] the fields are checked first, and
// what does not fit is an [*EncodeError] with nothing sent.
func (c *Client) Put(ctx context.Context, id DocumentID, fields any, opts OperationOptions) (*Result, error) {
	return c.doEncoded(ctx, OpPut, id, fields, putBody, opts)
}

// Update applies update to the document id. update is an [*Update] (or
// [Update]) built with its methods, or the whole update body, such as
// {"fields":{"n":{"increment":1}}}, as json.RawMessage or []byte, or any
// other value that encoding/json turns into that body. Updating a missing
// document succeeds (200) without effect unless opts.Create is set. Under
// [WithSchema] the update is checked first, as for [Client.Put].
func (c *Client) Update(ctx context.Context, id DocumentID, update any, opts OperationOptions) (*Result, error) {
	return c.doEncoded(ctx, OpUpdate, id, update, updateBody, opts)
}

// Remove removes the document id. Removing a missing document succeeds, and
// so does a remove Vespa ignored (a document type no content cluster holds):
// then [Result.IgnoredOperation] is set; under [WithSchema], a remove of a
// document type the schemas do not have is an [*EncodeError] instead, with
// nothing sent. opts.Condition, Route, Timeout, TraceLevel and DryRun
// apply.
func (c *Client) Remove(ctx context.Context, id DocumentID, opts OperationOptions) (*Result, error) {
	return c.do(ctx, OpRemove, id, nil, opts)
}

// doEncoded is do with the body encode(v). A value that does not encode is
// an [*EncodeError] of the operation ("put", "update") matching
// [ErrInvalidDocument], and nothing is sent (as for a body that does not fit
// the schemas of [WithSchema], which do checks).
func (c *Client) doEncoded(ctx context.Context, kind OperationKind, id DocumentID, v any, encode func(any) ([]byte, error), opts OperationOptions) (*Result, error) {
	body, err := encode(v)
	if err != nil {
		return nil, &EncodeError{Op: kind.String(), ID: id.String(), Err: err}
	}
	return c.do(ctx, kind, id, body, opts)
}

// do runs one operation under the client's policy and turns a non-2xx
// outcome into an *Error. Under [WithSchema] it first checks the operation
// (the one place where the sync client does): one that does not fit is an
// *EncodeError, and nothing is sent. A non-idempotent operation (see
// [OperationOptions.Resend]) is not re-sent after a connection error that
// may have reached the server. When ctx ends while the policy waits, the
// error matches both ctx's error and the last outcome.
func (c *Client) do(ctx context.Context, kind OperationKind, id DocumentID, body []byte, opts OperationOptions) (*Result, error) {
	if err := id.validateFast(); err != nil {
		return nil, err
	}
	if err := c.checkSchema(kind, id, body); err != nil { // WithSchema; nothing sent
		return nil, err
	}
	policy := c.policy
	if !opts.Resend && !idempotent(kind, body, &opts) {
		policy = policy.WithRetryIf(func(o retries.Outcome) bool {
			if o.Err != nil && !wire.NotSent(o.Err) {
				return false
			}
			return c.policy.ShouldRetry(o)
		})
	}
	attempts := 0
	r, err := wire.Run(ctx, policy, func(ctx context.Context) (*Result, error) {
		attempts++
		return c.SendOnce(ctx, nil, kind, id, body, opts)
	}, func(r *Result, err error) error {
		if err != nil {
			return err
		}
		return ErrorFromResult(r, kind.String())
	})
	if attempts > 1 {
		c.logger.DebugContext(ctx, "vespa request retried", "op", kind.String(), "id", id.String(), "attempts", attempts)
	}
	if err != nil {
		var ve *Error
		if errors.As(err, &ve) {
			return r, err
		}
		return r, &Error{Op: kind.String(), ID: id.String(), Path: id.Path(), Err: err}
	}
	return r, ErrorFromResult(r, kind.String())
}

// idempotent reports whether sending the operation twice has the effect of
// sending it once: a get, a remove or a put without a condition, an update
// without a condition whose operations all set values (assign, remove,
// replace). Arithmetic, add (which appends to an array), a tensor modify
// that adds or multiplies, and any condition (the second attempt would be
// judged against the first one's result) are not.
func idempotent(kind OperationKind, body []byte, opts *OperationOptions) bool {
	if kind == OpGet {
		return true
	}
	if opts.Condition != "" {
		return false
	}
	if kind != OpUpdate {
		return true
	}
	return updateIdempotent(body)
}

// updateIdempotent reports whether the update body {"fields":{f:{op:v}}}
// has only idempotent operations. A body it cannot read counts as not.
func updateIdempotent(body []byte) bool {
	var u struct {
		Fields map[string]map[string]json.RawMessage `json:"fields"`
	}
	if json.Unmarshal(body, &u) != nil {
		return false
	}
	for _, ops := range u.Fields {
		for op, v := range ops {
			switch op {
			case "assign", "remove":
			case "match":
				var m map[string]json.RawMessage
				if json.Unmarshal(v, &m) != nil {
					return false
				}
				for k := range m {
					if k != "element" && k != "assign" {
						return false
					}
				}
			case "modify":
				var m struct {
					Operation string `json:"operation"`
				}
				if json.Unmarshal(v, &m) != nil || m.Operation != string(TensorReplace) {
					return false
				}
			default: // increment, decrement, multiply, divide, add, and what is unknown
				return false
			}
		}
	}
	return true
}

// putPrefix opens a put body, {"fields":<fields>}; putFields takes it off.
const putPrefix = `{"fields":`

// putBody returns {"fields": <fields>}.
func putBody(fields any) ([]byte, error) {
	raw, err := jsonobj.Encode(fields, fieldsWords)
	if err != nil {
		return nil, err
	}
	body := make([]byte, 0, len(raw)+len(putPrefix)+1)
	body = append(body, putPrefix...)
	body = append(body, raw...)
	return append(body, '}'), nil
}

// updateBody returns the JSON body of an update.
func updateBody(update any) ([]byte, error) {
	switch u := update.(type) {
	case *Update:
		return u.MarshalJSON()
	case Update:
		return u.MarshalJSON()
	}
	return jsonobj.Encode(update, updateWords)
}

// fieldsWords and updateWords word the errors of a put's fields and an
// update's field updates.
var (
	fieldsWords = jsonobj.Words{
		Nil:       "nil fields",
		NotObject: "the fields are not a JSON object",
		Encoding:  func(_ any, err error) error { return fmt.Errorf("encoding fields: %w", err) },
	}
	updateWords = jsonobj.Words{
		Nil:       "nil update",
		NotObject: "the update is not a JSON object",
		Encoding:  func(_ any, err error) error { return fmt.Errorf("encoding update: %w", err) },
	}
)
