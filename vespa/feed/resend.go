package feed

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/govespa/govespa/vespa"
)

// ErrNotResent is matched (errors.Is) by the error of an operation that the
// feeder did not send again after an attempt that may have reached Vespa (a
// connection that failed after the request was written, or a 504), because
// [Config.MayResend] says that sending it twice could apply it twice.
var ErrNotResent = errors.New("feed: not sent again")

// DefaultMayResend is the default of [Config.MayResend]: puts and removes
// may be sent again (applying one twice leaves the same document), and so
// may updates that only assign, remove, or replace tensor cells; an update
// with an arithmetic operation (increment, decrement, multiply, divide,
// also inside a match) or an add (an array append, or a tensor add or
// multiply modify) may not, as applying it twice changes the document twice.
// (An add to a weighted set is idempotent, but the feeder cannot tell it from
// an array append without the schema, so it counts as not.) An update whose
// fields it cannot read counts as not.
func DefaultMayResend(op *Operation) bool {
	switch op.Kind {
	case vespa.OpPut, vespa.OpRemove:
		return true
	case vespa.OpUpdate:
		return idempotentUpdate(op.Fields)
	}
	return false
}

// idempotentUpdate reports whether the field updates fields (the object of
// an update's "fields") can be applied twice with the effect of once.
func idempotentUpdate(fields json.RawMessage) bool {
	var byField map[string]map[string]json.RawMessage
	if json.Unmarshal(fields, &byField) != nil {
		return false
	}
	for _, ops := range byField {
		for name, v := range ops {
			switch name {
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
				if json.Unmarshal(v, &m) != nil || m.Operation != "replace" {
					return false
				}
			default: // increment, decrement, multiply, divide, add, and anything unknown
				return false
			}
		}
	}
	return true
}

// mayHaveReached reports whether a failed attempt may have reached Vespa: any
// transport error but a failure to connect.
func mayHaveReached(err error) bool {
	var oe *net.OpError
	return !errors.As(err, &oe) || oe.Op != "dial"
}

// notResent returns the error of t, not sent again after r or err.
func notResent(t *task, r *vespa.Result, err error) error {
	why := "the connection failed after the request was sent"
	if r != nil {
		why = "Vespa timed out (504) and may have applied it"
		err = vespa.ErrorFromResult(r, opName(t.op.Kind))
	}
	return fmt.Errorf("%w: %s of %s: %s, and Config.MayResend does not allow sending it twice: %w",
		ErrNotResent, opName(t.op.Kind), t.op.ID, why, err)
}

// mayResend applies Config.MayResend.
func (f *Feeder) mayResend(op *Operation) bool {
	if f.cfg.MayResend != nil {
		return f.cfg.MayResend(op)
	}
	return DefaultMayResend(op)
}
