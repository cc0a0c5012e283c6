package vespa

import (
	"errors"
	"fmt"
	"strings"

	"github.com/govespa/govespa/vespa/schema"
)

// ErrInvalidDocument matches an [*EncodeError]: the fields or the update
// given to an operation do not encode to JSON (a NaN or infinite float, a
// channel, a func, a MarshalJSON that failed) or, under [WithSchema], do not
// fit the application's schemas, so nothing was sent. It is no transport
// failure and no answer of Vespa: retrying cannot help.
var ErrInvalidDocument = errors.New("vespa: invalid document")

// EncodeError is the error of an operation whose fields or update did not
// encode to JSON, or did not fit the schemas of [WithSchema]: nothing was
// sent. It matches [ErrInvalidDocument] and unwraps to the encoder's error
// (a *json.UnsupportedValueError, say) or to the [*schema.CheckError], which
// names the field, what it wants and what it was given (and so matches
// [schema.ErrInvalidDocument]).
type EncodeError struct {
	Op  string // "put", "update", "remove", "update-where"
	ID  string // the document ID; "" for update-where
	Err error  // the encoder's error, or a *schema.CheckError
}

func (e *EncodeError) Error() string {
	cause := e.Err.Error()
	var ce *schema.CheckError
	if !errors.As(e.Err, &ce) {
		// The cause is often the SDK's own ("vespa: empty update"), maybe
		// inside encoding/json's "json: error calling MarshalJSON for type
		// ...: ": the prefix is said once, here. (A schema check's error
		// is left whole: what it quotes from the document may hold
		// "vespa: ".)
		if i := strings.LastIndex(cause, "vespa: "); i >= 0 {
			cause = cause[i+len("vespa: "):]
		}
	}
	op := e.Op
	if e.ID != "" {
		op += " " + e.ID
	}
	return fmt.Sprintf("vespa: %s: invalid document, nothing sent: %s", op, cause)
}

// Unwrap returns the encoder's error or the schema check's.
func (e *EncodeError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalidDocument].
func (e *EncodeError) Is(target error) bool { return target == ErrInvalidDocument } //nolint:errorlint // identity of the sentinel
