package vespa

import (
	"encoding/json"
	"errors"
)

// Update is a document update built from field operations, such as
// NewUpdate().Assign("title", "x").Increment("plays", 1). Its zero value is
// an empty update. It encodes as Vespa's update JSON, {"fields": {...}}.
type Update struct {
	ops []fieldOp
	err error
}

type fieldOp struct {
	key string // field name or field path, e.g. "m{k}"
	op  any    // the operation object
}

// NewUpdate returns an empty update.
func NewUpdate() *Update { return &Update{} }

// Assign sets field to value; a nil value clears the field (JSON null).
func (u *Update) Assign(field string, value any) *Update {
	return u.add(field, map[string]any{"assign": value})
}

// MarshalJSON encodes the update as {"fields": {...}}. It reports an error
// when a field is updated twice or an operation is invalid.
func (u Update) MarshalJSON() ([]byte, error) {
	if u.err != nil {
		return nil, u.err
	}
	if len(u.ops) == 0 {
		return nil, errors.New("vespa: empty update")
	}
	b := []byte(`{"fields":{`)
	for i, o := range u.ops {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(o.key)
		b = append(b, k...)
		b = append(b, ':')
		v, err := json.Marshal(o.op)
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, "}}"...), nil
}

func (u *Update) add(key string, op any) *Update {
	u.ops = append(u.ops, fieldOp{key, op})
	return u
}
