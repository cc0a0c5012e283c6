package schema

import (
	"errors"
	"fmt"
)

// ErrInvalidDocument is matched (errors.Is) by every [*CheckError]: a
// document or update that Vespa would refuse for this application.
var ErrInvalidDocument = errors.New("schema: document does not fit the schema")

// CheckError is a put or an update that does not fit the application's
// schemas: the document type, the field (a path into it, as
// "tracks[2].title", for a value inside one), what the schema wants there
// and what was given.
type CheckError struct {
	// DocType is the document type of the operation.
	DocType string
	// Field is the field, or the path to the value at fault; "" when the
	// document type itself is unknown.
	Field string
	// Want says what the schema expects, e.g. "int", "a field of music",
	// "an update operation of array<string>".
	Want string
	// Got describes what was given, e.g. `"1990x"` or "an object".
	Got string
}

// Error returns `schema: music: field "year": want int, got "x"`.
func (e *CheckError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("schema: document type %q: %s", e.DocType, e.Want)
	}
	return fmt.Sprintf("schema: %s: field %q: want %s, got %s", e.DocType, e.Field, e.Want, e.Got)
}

// Is matches [ErrInvalidDocument].
func (e *CheckError) Is(target error) bool { return target == ErrInvalidDocument }
