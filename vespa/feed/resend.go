package feed

import (
	"errors"
	"fmt"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/wire"
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
// Updates are judged by [vespa.IsIdempotent], the sync client's rule. (An
// add to a weighted set is idempotent, but nothing tells it from an array
// append without the schema, so it counts as not.) Unlike the sync client,
// the feeder re-sends a conditional put, remove or assign-only update: sent
// twice, it cannot apply twice, though its second attempt may fail its
// condition (412) and be reported as failed.
func DefaultMayResend(op *Operation) bool {
	switch op.Kind {
	case vespa.OpPut, vespa.OpRemove:
		return true
	case vespa.OpUpdate:
		return vespa.IsIdempotent(vespa.OpUpdate, op.requestBody(), vespa.OperationOptions{})
	}
	return false
}

// mayHaveReached reports whether a failed attempt may have reached Vespa: any
// transport error but one that proves nothing was sent (a failed DNS lookup
// or connection).
func mayHaveReached(err error) bool { return !wire.NotSent(err) }

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
