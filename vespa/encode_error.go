package vespa

import (
	"errors"
	"fmt"
)

// ErrInvalidDocument matches an [*EncodeError]: the fields or the update
// given to an operation do not encode to JSON (a NaN or infinite float, a
// channel, a func, a MarshalJSON that failed), so nothing was sent. It is
// no transport failure and no answer of Vespa: retrying cannot help.
var ErrInvalidDocument = errors.New("vespa: invalid document")

// EncodeError is the error of an operation whose fields or update did not
// encode to JSON: nothing was sent. It matches [ErrInvalidDocument] and
// unwraps to the encoder's error (a *json.UnsupportedValueError, say).
type EncodeError struct {
	Op  string // "put", "update"
	ID  string // the document ID
	Err error  // the encoder's error
}

func (e *EncodeError) Error() string {
	return fmt.Sprintf("vespa: %s %s: invalid document, nothing sent: %v", e.Op, e.ID, e.Err)
}

// Unwrap returns the encoder's error.
func (e *EncodeError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalidDocument].
func (e *EncodeError) Is(target error) bool { return target == ErrInvalidDocument } //nolint:errorlint // identity of the sentinel
