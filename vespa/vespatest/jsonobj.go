package vespatest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// member is one key of a JSON object, kept in order.
type member struct {
	key string
	val json.RawMessage
}

// object is a JSON object that keeps its key order, as Vespa renders fields
// in the order they were set.
type object []member

var errNotObject = errors.New("not a JSON object")

// parseObject reads a JSON object, keeping key order; a repeated key keeps its
// first position and its last value.
func parseObject(raw []byte) (object, error) {
	if obj, err := scanObject(raw); err == nil {
		return obj, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var obj object
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
		obj = obj.set(key, val)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) != 0 {
		return nil, errors.New("trailing data after object")
	}
	return obj, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

func (o object) set(key string, val json.RawMessage) object {
	for i := range o {
		if o[i].key == key {
			o[i].val = val
			return o
		}
	}
	return append(o, member{key, val})
}

func (o object) del(key string) object {
	for i := range o {
		if o[i].key == key {
			return append(o[:i:i], o[i+1:]...)
		}
	}
	return o
}

// marshal renders the object as compact JSON.
func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	o.writeTo(&b)
	return b.Bytes()
}

func (o object) writeTo(b *bytes.Buffer) {
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, m.key)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
}

// writeJSONString writes s as a JSON string without HTML escaping.
func writeJSONString(b *bytes.Buffer, s string) {
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

func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	writeJSONString(&b, s)
	return b.Bytes()
}

func jsonInt(n int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(n, 10)) }

// plainString reports whether s needs no escaping in JSON.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}
