// Package jsonx is the emulator's JSON: objects that keep their key order, and a
// byte scanner for the common shapes of Vespa's documents.
package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Member is one key of a JSON object, kept in order.
type Member struct {
	Key string
	Val json.RawMessage
}

// Object is a JSON object that keeps its key order, as Vespa renders fields
// in the order they were set.
type Object []Member

// ErrNotObject is returned for JSON that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// ParseObject reads a JSON object, keeping key order; a repeated key keeps its
// first position and its last value.
func ParseObject(raw []byte) (Object, error) {
	if obj, err := ScanObject(raw); err == nil {
		return obj, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ErrNotObject
	}
	var obj Object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("expected a key, got %v", tok)
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		obj = obj.Set(key, val)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) != 0 {
		return nil, errors.New("trailing data after object")
	}
	return obj, nil
}

func (o Object) Get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Val, true
		}
	}
	return nil, false
}

func (o Object) Set(key string, val json.RawMessage) Object {
	for i := range o {
		if o[i].Key == key {
			o[i].Val = val
			return o
		}
	}
	return append(o, Member{key, val})
}

func (o Object) Del(key string) Object {
	for i := range o {
		if o[i].Key == key {
			return append(o[:i:i], o[i+1:]...)
		}
	}
	return o
}

// Marshal renders the object as compact JSON.
func (o Object) Marshal() json.RawMessage {
	var b bytes.Buffer
	o.WriteTo(&b)
	return b.Bytes()
}

func (o Object) WriteTo(b *bytes.Buffer) {
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		WriteString(b, m.Key)
		b.WriteByte(':')
		b.Write(m.Val)
	}
	b.WriteByte('}')
}

// WriteString writes s as a JSON string without HTML escaping.
func WriteString(b *bytes.Buffer, s string) {
	if plainString(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // the encoder's newline
}

func String(s string) json.RawMessage {
	var b bytes.Buffer
	WriteString(&b, s)
	return b.Bytes()
}

func Int(n int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(n, 10)) }

// plainString reports whether s needs no escaping in JSON.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

func FormatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func Clip(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}
