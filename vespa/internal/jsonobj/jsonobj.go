// Package jsonobj turns the fields or update a caller gives, as a Go value
// or as raw JSON, into the JSON of one object: the document operations of
// package vespa and the operations of package feed take theirs this way.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Words words the errors of [Encode] for one caller.
type Words struct {
	// Nil is the error's text for a nil value.
	Nil string
	// NotObject is the error's text for JSON that is not one object.
	NotObject string
	// Encoding wraps the error of encoding/json encoding v.
	Encoding func(v any, err error) error
}

// Encode returns v as the JSON of one object, less surrounding space: raw
// JSON (json.RawMessage, []byte) as given, with no copy, anything else as
// encoding/json writes it. Its errors are worded by w.
func Encode(v any, w Words) ([]byte, error) {
	var raw []byte
	switch x := v.(type) {
	case nil:
		return nil, errors.New(w.Nil)
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, w.Encoding(v, err)
		}
		raw = b
	}
	raw = bytes.TrimSpace(raw)
	if !IsObject(raw) {
		return nil, errors.New(w.NotObject)
	}
	return raw, nil
}

// IsObject reports whether b, less surrounding space, is one valid JSON
// object.
func IsObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}
