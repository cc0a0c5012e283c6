package ctlplane

import (
	"context"
	"encoding/json"
	"fmt"
)

// DoJSON is [Transport.Do] with the reply's JSON body decoded into a new T.
func DoJSON[T any](ctx context.Context, t *Transport, c Call) (*T, error) {
	return sendJSON[T](ctx, t.Pkg, c, t.Do)
}

// UploadJSON is [Transport.Upload] with the reply's JSON body decoded into a
// new T.
func UploadJSON[T any](ctx context.Context, t *Transport, c Call) (*T, error) {
	return sendJSON[T](ctx, t.Pkg, c, t.Upload)
}

// sendJSON sends c with send and decodes the reply's JSON body into a new T
// ([DecodeJSON]).
func sendJSON[T any](ctx context.Context, pkg string, c Call, send func(context.Context, Call) (*Reply, error)) (*T, error) {
	r, err := send(ctx, c)
	if err != nil {
		return nil, err
	}
	return DecodeJSON[T](pkg, c.Op, r.Body)
}

// DecodeJSON decodes a reply's JSON body into a new T. A body that does not
// decode is an error "<pkg>: <op>: decoding reply: ..." ("<pkg>: decoding
// reply: ..." when op is pkg, as "deploy: deploy:" says nothing more).
func DecodeJSON[T any](pkg, op string, body []byte) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(body, v); err != nil {
		prefix := pkg + ": " + op
		if op == pkg {
			prefix = pkg
		}
		return nil, fmt.Errorf("%s: decoding reply: %w", prefix, err)
	}
	return v, nil
}

// MessageReply is a reply whose JSON body carries only a message, such as
// that of a deletion or an activation.
type MessageReply struct {
	Message string `json:"message"`
}
