package jsonobj_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/govespa/govespa/vespa/internal/jsonobj"
)

var words = jsonobj.Words{
	Nil:       "nil thing",
	NotObject: "the thing is not an object",
	Encoding:  func(v any, err error) error { return fmt.Errorf("encoding %T: %w", v, err) },
}

func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"raw message", json.RawMessage(" {\"a\":1}\n"), `{"a":1}`},
		{"bytes", []byte(`{"a":[1,2]}`), `{"a":[1,2]}`},
		{"map", map[string]int{"a": 1}, `{"a":1}`},
		{"struct", struct {
			A string `json:"a"`
		}{"x"}, `{"a":"x"}`},
	} {
		got, err := jsonobj.Encode(tc.in, words)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: Encode = %s, %v, want %s", tc.name, got, err, tc.want)
		}
	}
}

func TestEncode_Errors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, "nil thing"},
		{"array", []int{1}, "the thing is not an object"},
		{"raw array", json.RawMessage(`[1]`), "the thing is not an object"},
		{"invalid", []byte(`{"a":`), "the thing is not an object"},
		{"empty", []byte("  "), "the thing is not an object"},
		{"unencodable", map[string]any{"c": make(chan int)}, "encoding map[string]interface {}: json: unsupported type: chan int"},
	} {
		got, err := jsonobj.Encode(tc.in, words)
		if err == nil || err.Error() != tc.want || got != nil {
			t.Errorf("%s: Encode = %s, %v, want error %q", tc.name, got, err, tc.want)
		}
	}
	_, err := jsonobj.Encode(make(chan int), words)
	var ute *json.UnsupportedTypeError
	if !errors.As(err, &ute) {
		t.Errorf("encoding error %v does not wrap encoding/json's", err)
	}
}

func TestIsObject(t *testing.T) {
	for in, want := range map[string]bool{` {"a":1} `: true, `{}`: true, `[]`: false, `{`: false, ``: false, `"x"`: false} {
		if got := jsonobj.IsObject([]byte(in)); got != want {
			t.Errorf("IsObject(%q) = %v, want %v", in, got, want)
		}
	}
}
