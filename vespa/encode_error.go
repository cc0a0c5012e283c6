package vespa

import (
	"errors"
	"fmt"
	"strings"
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
	// The cause is often the SDK's own ("vespa: empty update"), maybe inside
	// encoding/json's "json: error calling MarshalJSON for type ...: ":
	// the prefix is said once, here.
	cause := e.Err.Error()
	if i := strings.LastIndex(cause, "vespa: "); i >= 0 {
		cause = cause[i+len("vespa: "):]
	}
	return fmt.Sprintf("vespa: %s %s: invalid document, nothing sent: %s", e.Op, e.ID, cause)
}

// Unwrap returns the encoder's error.
func (e *EncodeError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalidDocument].
func (e *EncodeError) Is(target error) bool { return target == ErrInvalidDocument } //nolint:errorlint // identity of the sentinel
