package vespa_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
)

// TestValues_ReadEveryForm checks that each field value type reads each
// form Vespa writes (document JSON, and the forms a query result renders).
func TestValues_ReadEveryForm(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		into any
		want any
	}{
		{"position lat lng", `{"lat":37.4,"lng":-122}`, new(vespa.Position), &vespa.Position{Lat: 37.4, Lng: -122}},
		{"position long names", `{"latitude":1.5,"longitude":2.5}`, new(vespa.Position), &vespa.Position{Lat: 1.5, Lng: 2.5}},
		{"position x y", `{"x":-122000000,"y":37400000}`, new(vespa.Position), &vespa.Position{Lat: 37.4, Lng: -122}},
		{"position text", `"N37.4;W122.0"`, new(vespa.Position), &vespa.Position{Lat: 37.4, Lng: -122}},
		{"position text lng first", `"E10;S20"`, new(vespa.Position), &vespa.Position{Lat: -20, Lng: 10}},
		{"dense values", `{"values":[1,2.5,3]}`, new(vespa.DenseTensor[float32]), &vespa.DenseTensor[float32]{1, 2.5, 3}},
		{"dense typed", `{"type":"tensor<float>(x[2])","values":[1,2]}`, new(vespa.DenseTensor[float32]), &vespa.DenseTensor[float32]{1, 2}},
		{"dense bare", `[1,-2]`, new(vespa.DenseTensor[int8]), &vespa.DenseTensor[int8]{1, -2}},
		{"dense long", `{"type":"tensor(x[2])","cells":[{"address":{"x":"1"},"value":5},{"address":{"x":"0"},"value":4}]}`,
			new(vespa.DenseTensor[float64]), &vespa.DenseTensor[float64]{4, 5}},
		{"dense long value", `[{"address":{"x":"0"},"value":4}]`, new(vespa.DenseTensor[float64]), &vespa.DenseTensor[float64]{4}},
		{"mapped short", `{"type":"tensor(cat{})","cells":{"a":1,"b":2}}`, new(vespa.MappedTensor[float64]), &vespa.MappedTensor[float64]{"a": 1, "b": 2}},
		{"mapped bare", `{"a":1,"cells":2}`, new(vespa.MappedTensor[float64]), &vespa.MappedTensor[float64]{"a": 1, "cells": 2}},
		{"mapped bare label cells", `{"cells":2}`, new(vespa.MappedTensor[float64]), &vespa.MappedTensor[float64]{"cells": 2}},
		{"mapped bare labels cells type", `{"cells":2,"type":3}`, new(vespa.MappedTensor[float64]), &vespa.MappedTensor[float64]{"cells": 2, "type": 3}},
		{"mapped long", `{"cells":[{"address":{"cat":"a"},"value":3}]}`, new(vespa.MappedTensor[float32]), &vespa.MappedTensor[float32]{"a": 3}},
		{"dense int8 as doubles", `{"type":"tensor<int8>(x[3])","values":[-128.0,127.0,5]}`, new(vespa.DenseTensor[int8]), &vespa.DenseTensor[int8]{-128, 127, 5}},
		{"dense int8 long", `[{"address":{"x":"0"},"value":-2.0}]`, new(vespa.DenseTensor[int8]), &vespa.DenseTensor[int8]{-2}},
		{"mapped int8 as doubles", `{"type":"tensor<int8>(c{})","cells":{"a":-1.0,"b":1e1}}`, new(vespa.MappedTensor[int8]), &vespa.MappedTensor[int8]{"a": -1, "b": 10}},
		{"mapped int8 long", `[{"address":{"c":"a"},"value":3.0}]`, new(vespa.MappedTensor[int8]), &vespa.MappedTensor[int8]{"a": 3}},
		{"wset object", `{"rock":2,"jazz":1}`, new(vespa.WeightedSet[string]), &vespa.WeightedSet[string]{"rock": 2, "jazz": 1}},
		{"wset items", `[{"item":"rock","weight":2}]`, new(vespa.WeightedSet[string]), &vespa.WeightedSet[string]{"rock": 2}},
		{"wset int keys", `{"7":3}`, new(vespa.WeightedSet[int64]), &vespa.WeightedSet[int64]{7: 3}},
		{"wset int items", `[{"item":7,"weight":3},{"item":"8","weight":4}]`, new(vespa.WeightedSet[int64]), &vespa.WeightedSet[int64]{7: 3, 8: 4}},
		{"map object", `{"a":1}`, new(vespa.Map[string, int32]), &vespa.Map[string, int32]{"a": 1}},
		{"map entries", `[{"key":"a","value":1},{"key":"b","value":2}]`, new(vespa.Map[string, int32]), &vespa.Map[string, int32]{"a": 1, "b": 2}},
		{"map int keys", `[{"key":5,"value":"x"}]`, new(vespa.Map[int32, string]), &vespa.Map[int32, string]{5: "x"}},
	} {
		if err := json.Unmarshal([]byte(c.in), c.into); err != nil {
			t.Errorf("%s: %s: %v", c.name, c.in, err)
			continue
		}
		if !reflect.DeepEqual(c.into, c.want) {
			t.Errorf("%s: %s read as %v, want %v", c.name, c.in, c.into, c.want)
		}
	}
}

// TestValues_WriteDocumentJSON checks what each type writes: Vespa's
// document JSON input forms.
func TestValues_WriteDocumentJSON(t *testing.T) {
	type doc struct {
		P vespa.Position              `json:"p"`
		D vespa.DenseTensor[float32]  `json:"d"`
		M vespa.MappedTensor[float64] `json:"m"`
		W vespa.WeightedSet[int64]    `json:"w"`
		K vespa.Map[string, int32]    `json:"k"`
		N vespa.DenseTensor[float64]  `json:"n,omitempty"`
	}
	got, err := json.Marshal(doc{
		P: vespa.Position{Lat: 37.4, Lng: -122}, D: vespa.DenseTensor[float32]{1, 0.5},
		M: vespa.MappedTensor[float64]{"b": 2, "a": 1}, W: vespa.WeightedSet[int64]{7: 3}, K: vespa.Map[string, int32]{"x": 1},
	})
	want := `{"p":{"lat":37.4,"lng":-122},"d":{"values":[1,0.5]},"m":{"cells":{"a":1,"b":2}},"w":{"7":3},"k":{"x":1}}`
	if err != nil || string(got) != want {
		t.Errorf("got %s (%v), want %s", got, err, want)
	}
}

// TestValues_RefuseWhatTheyCannotRead checks that bad input is an error
// naming the type, not a zero value.
func TestValues_RefuseWhatTheyCannotRead(t *testing.T) {
	for _, c := range []struct {
		in   string
		into any
		want string
	}{
		{`{"lat":1}`, new(vespa.Position), "position"},
		{`"37.4;122"`, new(vespa.Position), "position"},
		{`"N1;N2"`, new(vespa.Position), "position"},
		{`"N1"`, new(vespa.Position), "position"},
		{`{"values":"3f800000"}`, new(vespa.DenseTensor[float32]), "hex"},
		{`{"values":[1,"a"]}`, new(vespa.DenseTensor[float32]), "dense tensor"},
		{`[{"address":{"x":"3"},"value":1}]`, new(vespa.DenseTensor[float32]), "dense tensor cell address"},
		{`{"type":"t"}`, new(vespa.DenseTensor[float32]), "dense tensor"},
		{`[{"address":{"a":"1","b":"2"},"value":1}]`, new(vespa.MappedTensor[float32]), "mapped tensor"},
		{`{"values":[1.5]}`, new(vespa.DenseTensor[int8]), "not an int8"},
		{`{"values":[128.0]}`, new(vespa.DenseTensor[int8]), "not an int8"},
		{`{"values":[null]}`, new(vespa.DenseTensor[int8]), "not an int8"}, // no NaN in an int8 (was a silent 0)
		{`{"cells":{"a":-129}}`, new(vespa.MappedTensor[int8]), "not an int8"},
		{`[{"address":{"c":"a"},"value":0.5}]`, new(vespa.MappedTensor[int8]), "not an int8"},
		{`[{"item":"x","weight":1}]`, new(vespa.WeightedSet[int64]), "weighted set item"},
		{`[{"key":"x","value":1}]`, new(vespa.Map[int32, int32]), "map key"},
		{`3`, new(vespa.Map[string, int32]), "map"},
	} {
		err := json.Unmarshal([]byte(c.in), c.into)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s into %T: %v, want an error with %q", c.in, c.into, err, c.want)
		}
	}
	// A key error names the value and the key's Go type once.
	err := json.Unmarshal([]byte(`[{"key":"x","value":1}]`), new(vespa.Map[int32, int32]))
	if want := `vespa: map key "x": want int32`; err == nil || err.Error() != want {
		t.Errorf("bad map key: %v, want %s", err, want)
	}
	if _, err := json.Marshal(vespa.Position{Lat: 1, Lng: nan()}); err == nil {
		t.Error("a NaN position was written")
	}
}

func nan() float64 { var z float64; return z / z }

// FuzzValues_Read checks that no input panics a value type and that what
// one reads, it writes and reads back to the same value.
func FuzzValues_Read(f *testing.F) {
	for _, s := range []string{`{"lat":1,"lng":2}`, `"N1;E2"`, `{"values":[1,2]}`, `[{"address":{"x":"0"},"value":1}]`,
		`{"cells":{"a":1}}`, `[{"item":"a","weight":1}]`, `[{"key":1,"value":2}]`, `{"1":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range []any{new(vespa.Position), new(vespa.DenseTensor[float32]), new(vespa.MappedTensor[float64]),
			new(vespa.WeightedSet[int64]), new(vespa.WeightedSet[string]), new(vespa.Map[string, int32])} {
			if json.Unmarshal(data, v) != nil {
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				continue // a value JSON cannot write (a NaN position from x/y), not a loss
			}
			back := reflect.New(reflect.TypeOf(v).Elem()).Interface()
			if err := json.Unmarshal(out, back); err != nil || !reflect.DeepEqual(back, v) {
				t.Errorf("%T: %q read, written as %s, read back as %v (%v)", v, data, out, back, err)
			}
		}
	})
}

// TestPosition_NullIsNoOp: as encoding/json's convention for Unmarshalers
// has it, JSON null leaves a Position as it was (a struct field of type
// Position is given null, not skipped), without an error.
func TestPosition_NullIsNoOp(t *testing.T) {
	v := struct {
		P vespa.Position `json:"p"`
	}{P: vespa.Position{Lat: 1, Lng: 2}}
	if err := json.Unmarshal([]byte(`{"p":null}`), &v); err != nil || v.P != (vespa.Position{Lat: 1, Lng: 2}) {
		t.Errorf(`{"p":null}: %v, %+v; want no error and the position unchanged`, err, v.P)
	}
}

// TestTensors_NullCellIsNaN: Vespa writes a NaN or infinite cell as null
// (com.yahoo.slime.JsonFormat encodeDOUBLE) and reads null back as NaN
// (com.yahoo.tensor.serialization.JsonFormat.decodeNumeric), so a null cell
// is NaN, not a silent 0.
func TestTensors_NullCellIsNaN(t *testing.T) {
	var d vespa.DenseTensor[float32]
	if err := json.Unmarshal([]byte(`{"values":[1,null]}`), &d); err != nil || len(d) != 2 || d[0] != 1 || d[1] == d[1] {
		t.Errorf("dense [1,null]: %v, %v; want [1 NaN]", d, err)
	}
	var m vespa.MappedTensor[float64]
	if err := json.Unmarshal([]byte(`{"cells":{"a":null}}`), &m); err != nil || len(m) != 1 || m["a"] == m["a"] {
		t.Errorf(`mapped {"a":null}: %v, %v; want a: NaN`, m, err)
	}
}
