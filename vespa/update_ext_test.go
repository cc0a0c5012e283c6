package vespa_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
)

func TestUpdate_JSON(t *testing.T) {
	tests := []struct {
		name string
		u    *vespa.Update
		want string
	}{
		{"assign", vespa.NewUpdate().Assign("title", "x"), `{"fields":{"title":{"assign":"x"}}}`},
		{"assign null", vespa.NewUpdate().Assign("title", nil), `{"fields":{"title":{"assign":null}}}`},
		{"clear", vespa.NewUpdate().Clear("title"), `{"fields":{"title":{"assign":null}}}`},
		{"add to array", vespa.NewUpdate().Add("tags", []string{"a", "b"}), `{"fields":{"tags":{"add":["a","b"]}}}`},
		{"add to weighted set", vespa.NewUpdate().Add("ws", map[string]int{"k": 3}), `{"fields":{"ws":{"add":{"k":3}}}}`},
		{"remove from array", vespa.NewUpdate().Remove("arr", []any{"hello", 1}), `{"fields":{"arr":{"remove":["hello",1]}}}`},
		{"remove from weighted set", vespa.NewUpdate().Remove("ws", map[string]int{"k": 0}), `{"fields":{"ws":{"remove":{"k":0}}}}`},
		{"arithmetic", vespa.NewUpdate().Increment("a", 1).Decrement("b", 2.5).Multiply("c", int64(math.MaxInt64)).Divide("d", json.Number("4")),
			`{"fields":{"a":{"increment":1},"b":{"decrement":2.5},"c":{"multiply":9223372036854775807},"d":{"divide":4}}}`},
		{"map entry", vespa.NewUpdate().AssignMapEntry("m", `item "1"`, "v").RemoveMapEntry("m", "gone"),
			`{"fields":{"m{\"item \\\"1\\\"\"}":{"assign":"v"},"m{\"gone\"}":{"remove":0}}}`},
		{"array element", vespa.NewUpdate().AssignElement("people", 34, map[string]string{"first_name": "Bobby"}),
			`{"fields":{"people":{"match":{"element":34,"assign":{"first_name":"Bobby"}}}}}`},
		{"match weighted set", vespa.NewUpdate().Match("pop", "Lay Lady Lay", "increment", 1),
			`{"fields":{"pop":{"match":{"element":"Lay Lady Lay","increment":1}}}}`},
		{"field path", vespa.NewUpdate().Assign("people[3].name", "x"), `{"fields":{"people[3].name":{"assign":"x"}}}`},
		{"tensor modify addresses", vespa.NewUpdate().ModifyTensor("t", vespa.TensorModify{Operation: vespa.TensorReplace,
			Addresses: []vespa.TensorCell{{Address: vespa.TensorAddress{"x": "1"}, Value: 7}}}),
			`{"fields":{"t":{"modify":{"operation":"replace","addresses":[{"address":{"x":"1"},"value":7}]}}}}`},
		{"tensor modify cells with create", vespa.NewUpdate().ModifyTensor("t", vespa.TensorModify{Operation: vespa.TensorAdd, Create: true,
			Cells: map[string]float64{"b": 5}}),
			`{"fields":{"t":{"modify":{"operation":"add","create":true,"cells":{"b":5}}}}}`},
		{"tensor modify blocks", vespa.NewUpdate().ModifyTensor("t", vespa.TensorModify{Operation: vespa.TensorMultiply,
			Blocks: map[string][]float64{"a": {1, 2, 3}}}),
			`{"fields":{"t":{"modify":{"operation":"multiply","blocks":{"a":[1,2,3]}}}}}`},
		{"tensor add cells", vespa.NewUpdate().AddTensorCells("t", vespa.TensorCell{Address: vespa.TensorAddress{"x": "b", "y": "0"}, Value: 2}),
			`{"fields":{"t":{"add":{"cells":[{"address":{"x":"b","y":"0"},"value":2}]}}}}`},
		{"tensor add blocks", vespa.NewUpdate().AddTensorBlocks("t", vespa.TensorBlock{Address: vespa.TensorAddress{"x": "b"}, Values: []float64{2, 3, 5}}),
			`{"fields":{"t":{"add":{"blocks":[{"address":{"x":"b"},"values":[2,3,5]}]}}}}`},
		{"tensor remove", vespa.NewUpdate().RemoveTensorCells("t", vespa.TensorAddress{"x": "b"}, vespa.TensorAddress{"x": "c"}),
			`{"fields":{"t":{"remove":{"addresses":[{"x":"b"},{"x":"c"}]}}}}`},
		{"two operations on one field", vespa.NewUpdate().Add("t", map[string]any{"cells": []any{}}).Remove("t", map[string]any{"addresses": []any{}}),
			`{"fields":{"t":{"add":{"cells":[]},"remove":{"addresses":[]}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.u)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Error("invalid JSON")
			}
		})
	}
}

func TestUpdate_Errors(t *testing.T) {
	tests := []struct {
		name string
		u    *vespa.Update
		want string
	}{
		{"empty", vespa.NewUpdate(), "empty update"},
		{"zero value", &vespa.Update{}, "empty update"},
		{"same op twice", vespa.NewUpdate().Assign("a", 1).Assign("a", 2), "assign given twice"},
		{"non-numeric increment", vespa.NewUpdate().Increment("a", "1"), "not a number"},
		{"NaN", vespa.NewUpdate().Multiply("a", math.NaN()), "not a number"},
		{"unknown match op", vespa.NewUpdate().Match("a", 1, "explode", 1), "unknown match operation"},
		{"non-numeric match", vespa.NewUpdate().Match("a", 1, "increment", "x"), "not a number"},
		{"negative index", vespa.NewUpdate().AssignElement("a", -1, 1), "negative array index"},
		{"tensor without cells", vespa.NewUpdate().ModifyTensor("t", vespa.TensorModify{Operation: vespa.TensorAdd}), "exactly one"},
		{"tensor unknown op", vespa.NewUpdate().ModifyTensor("t", vespa.TensorModify{Operation: "pow", Cells: map[string]float64{}}), "unknown tensor operation"},
		{"empty field", vespa.NewUpdate().Assign("", 1), "empty field name"},
		{"unencodable", vespa.NewUpdate().Assign("a", make(chan int)), "encoding assign"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := json.Marshal(tt.u)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	u := vespa.NewUpdate().Increment("a", "x").Assign("b", 1)
	if u.Err() == nil || u.Len() != 0 {
		t.Errorf("after an error: Err %v, Len %d", u.Err(), u.Len())
	}
	if got := vespa.MapEntryPath("m", `a\b`); got != `m{"a\\b"}` {
		t.Errorf("MapEntryPath = %s", got)
	}
}
