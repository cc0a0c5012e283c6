package docapi

import (
	"encoding/json"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

// Field paths of any depth, as Vespa's document JSON reader takes them in an
// update ("m{key}.sub", "arr[0].name"; document module FieldPath): the
// emulator once read "m{z}.age" as the map key "z}.age" and answered 200.
func TestApplyPathOps_nested(t *testing.T) {
	mapOfStruct, _ := schema.ParseFieldType("map<string,person>")
	arrayOfStruct, _ := schema.ParseFieldType("array<person>")
	mapOfString, _ := schema.ParseFieldType("map<string,string>")
	assign := func(v string) jsonx.Object {
		o, err := jsonx.ParseObject(json.RawMessage(`{"assign":` + v + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for _, c := range []struct {
		name     string
		ft       *schema.FieldType
		cur      string
		accessor string
		value    string
		want     string
	}{
		{"map entry's struct field", mapOfStruct, `{"z":{"name":"zed","age":9}}`, `{z}.age`, `10`, `{"z":{"name":"zed","age":10}}`},
		{"quoted key with a brace", mapOfStruct, `{"a}b":{"age":1}}`, `{"a}b"}.age`, `2`, `{"a}b":{"age":2}}`},
		{"missing map entry is created", mapOfStruct, `{}`, `{n}.age`, `3`, `{"n":{"age":3}}`},
		{"array element's struct field", arrayOfStruct, `[{"name":"eve"},{"name":"gus"}]`, `[0].name`, `"eva"`, `[{"name":"eva"},{"name":"gus"}]`},
		{"index out of range is ignored", arrayOfStruct, `[{"name":"eve"}]`, `[4].name`, `"x"`, `[{"name":"eve"}]`},
		{"one level map key", mapOfString, `{"m":"n"}`, `{k}`, `"v"`, `{"m":"n","k":"v"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := applyPathOps(c.ft, json.RawMessage(c.cur), c.accessor, assign(c.value))
			if err != nil {
				t.Fatalf("applyPathOps(%s): %v", c.accessor, err)
			}
			if !jsonEqual(got, json.RawMessage(c.want)) {
				t.Errorf("applyPathOps(%s) = %s, want %s", c.accessor, got, c.want)
			}
		})
	}
	for _, bad := range []string{`{z`, `[1`, `.`, `{"z}`, `x`} {
		if _, err := applyPathOps(mapOfStruct, json.RawMessage(`{}`), bad, assign(`1`)); err == nil {
			t.Errorf("applyPathOps(%q): no error", bad)
		}
	}
}
