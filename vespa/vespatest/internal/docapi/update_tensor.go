package docapi

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
	"github.com/govespa/govespa/vespa/vespatest/internal/tensor"
)

func tensorOf(ft *schema.FieldType, cur json.RawMessage) (*tensor.Value, error) {
	if ft.Kind != schema.KindTensor {
		return nil, fmt.Errorf("tensor operation on a field of type %s", ft.Text())
	}
	if cur == nil {
		return tensor.New(ft.Tensor), nil
	}
	return tensor.Parse(ft.Tensor, cur)
}

// tensorAdd adds or replaces cells given as "cells" or "blocks".
func tensorAdd(ft *schema.FieldType, cur, arg json.RawMessage) (json.RawMessage, error) {
	t, err := tensorOf(ft, cur)
	if err != nil {
		return nil, err
	}
	add, err := tensor.Parse(ft.Tensor, arg)
	if err != nil {
		return nil, err
	}
	for _, k := range add.Keys {
		t.Set(strings.Split(k, "\x00"), add.Cells[k])
	}
	return t.Render(tensor.Short), nil
}

// tensorRemove removes the cells matching {"addresses": [{...}]}, where a
// partial address matches every cell with those labels.
func tensorRemove(ft *schema.FieldType, cur, arg json.RawMessage) (json.RawMessage, error) {
	t, err := tensorOf(ft, cur)
	if err != nil {
		return nil, err
	}
	var body struct {
		Addresses []json.RawMessage `json:"addresses"`
	}
	if err := json.Unmarshal(arg, &body); err != nil {
		return nil, fmt.Errorf("tensor remove needs {\"addresses\": [...]}")
	}
	for _, a := range body.Addresses {
		labels, err := t.Address(a, true)
		if err != nil {
			return nil, err
		}
		for _, k := range append([]string(nil), t.Keys...) {
			cell := strings.Split(k, "\x00")
			match := true
			for i, l := range labels {
				if l != "\x01" && l != cell[i] {
					match = false
				}
			}
			if match {
				t.Remove(k)
			}
		}
	}
	if len(t.Keys) == 0 {
		return nil, nil
	}
	return t.Render(tensor.Short), nil
}

// tensorModify applies {"operation": replace|add|multiply, "create": bool,
// "addresses"|"cells"|"blocks": ...} to existing cells.
func tensorModify(ft *schema.FieldType, cur, arg json.RawMessage) (json.RawMessage, error) {
	t, err := tensorOf(ft, cur)
	if err != nil {
		return nil, err
	}
	obj, err := jsonx.ParseObject(arg)
	if err != nil {
		return nil, fmt.Errorf("modify needs an object")
	}
	var op string
	if v, ok := obj.Get("operation"); ok {
		_ = json.Unmarshal(v, &op)
	}
	create := false
	if v, ok := obj.Get("create"); ok {
		_ = json.Unmarshal(v, &create)
	}
	cells := tensor.New(ft.Tensor)
	switch {
	case has(obj, "addresses"):
		v, _ := obj.Get("addresses")
		err = cells.AddCells(v)
	case has(obj, "cells"):
		v, _ := obj.Get("cells")
		err = cells.AddCells(v)
	case has(obj, "blocks"):
		v, _ := obj.Get("blocks")
		err = cells.AddBlocks(v)
	default:
		err = fmt.Errorf("modify needs addresses, cells or blocks")
	}
	if err != nil {
		return nil, err
	}
	for _, k := range cells.Keys {
		x := cells.Cells[k]
		old, exists := t.Cells[k]
		if !exists {
			if !create {
				continue
			}
			old = 0
			if op == "multiply" {
				old = 1
			}
		}
		labels := strings.Split(k, "\x00")
		switch op {
		case "replace":
			t.Set(labels, x)
		case "add":
			t.Set(labels, old+x)
		case "multiply":
			t.Set(labels, old*x)
		default:
			return nil, fmt.Errorf("unknown modify operation '%s'", op)
		}
	}
	if cur == nil && len(t.Keys) == 0 {
		return nil, nil
	}
	return t.Render(tensor.Short), nil
}

func has(o jsonx.Object, key string) bool {
	_, ok := o.Get(key)
	return ok
}
