package testutil

import (
	"encoding/json"
	"reflect"
)

// JSONEqual reports whether a and b hold the same JSON value: the same
// objects whatever the order of their keys or the white space, the same
// arrays in the same order, the same scalars (numbers compared as float64).
// Bytes that are not one JSON value are equal to nothing.
func JSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
