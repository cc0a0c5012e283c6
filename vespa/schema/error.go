package schema

import (
	"errors"
	"fmt"
)

// ErrSyntax is matched (errors.Is) by every [*Error] of a schema that could
// not be read or understood.
var ErrSyntax = errors.New("schema: cannot read schema")

// ErrUnsupported is matched by an [*Error] for a construct of Vespa's
// grammar that this parser does not read (annotations, say), or that is
// not Vespa's at all: it is refused rather than skipped.
var ErrUnsupported = errors.New("schema: construct not supported")

// Error is a schema that could not be read: where (file and line), which
// construct (the keyword or the text at fault), and why.
type Error struct {
	// File is the .sd file ("" for text given to [Parse] without a name).
	File string
	// Line is the 1-based line of the construct.
	Line int
	// Construct is the keyword or text at fault, e.g. "rank-profile" or
	// "field year".
	Construct string
	// Msg says what is wrong.
	Msg string
	// Unsupported is set for a construct the parser does not know.
	Unsupported bool
}

// Error returns "schema: music.sd:12: field year: type "intt": ...".
func (e *Error) Error() string {
	where := e.File
	if where == "" {
		where = "<input>"
	}
	return fmt.Sprintf("schema: %s:%d: %s: %s", where, e.Line, e.Construct, e.Msg)
}

// Is matches [ErrSyntax], and [ErrUnsupported] for an unknown construct.
func (e *Error) Is(target error) bool {
	return target == ErrSyntax || (target == ErrUnsupported && e.Unsupported)
}

func newError(file string, line int, construct, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Construct: construct, Msg: fmt.Sprintf(format, args...)}
}
