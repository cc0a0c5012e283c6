package vespa

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// WeightedSet is the value of a weightedset<K> field: key to weight. K is
// a string or integer type. It is written as Vespa's document JSON writes
// it, {"key": weight} (integer keys as strings, as encoding/json writes
// them), and read from that and from the array of {"item": key, "weight":
// weight} that a query result may render.
type WeightedSet[K comparable] map[K]int

// UnmarshalJSON reads either form of [WeightedSet].
func (ws *WeightedSet[K]) UnmarshalJSON(data []byte) error {
	var entries []struct {
		Item   json.RawMessage `json:"item"`
		Weight int             `json:"weight"`
	}
	array, err := decodeObjectOrArray(data, (*map[K]int)(ws), &entries)
	if err != nil || !array {
		return wrapValueError("weighted set", err)
	}
	m := make(WeightedSet[K], len(entries))
	for _, e := range entries {
		var k K
		if err := decodeKey(e.Item, &k); err != nil {
			return wrapValueError("weighted set item", err)
		}
		m[k] = e.Weight
	}
	*ws = m
	return nil
}

// Map is the value of a map<K,V> field. It is written as Vespa's document
// JSON writes it, {"key": value} (integer keys as strings), and read from
// that and from the array of {"key": k, "value": v} that a query result may
// render.
type Map[K comparable, V any] map[K]V

// UnmarshalJSON reads either form of [Map].
func (m *Map[K, V]) UnmarshalJSON(data []byte) error {
	var entries []struct {
		Key   json.RawMessage `json:"key"`
		Value V               `json:"value"`
	}
	array, err := decodeObjectOrArray(data, (*map[K]V)(m), &entries)
	if err != nil || !array {
		return wrapValueError("map", err)
	}
	out := make(Map[K, V], len(entries))
	for _, e := range entries {
		var k K
		if err := decodeKey(e.Key, &k); err != nil {
			return wrapValueError("map key", err)
		}
		out[k] = e.Value
	}
	*m = out
	return nil
}

// decodeObjectOrArray decodes data into object when it is a JSON object
// (or null), else into array, and reports which.
func decodeObjectOrArray(data []byte, object, array any) (isArray bool, err error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		return true, json.Unmarshal(data, array)
	}
	return false, json.Unmarshal(data, object)
}

// decodeKey decodes a key rendered as a JSON string or number into k,
// which may be a string or an integer type.
func decodeKey(raw json.RawMessage, k any) error {
	if err := json.Unmarshal(raw, k); err == nil {
		return nil
	}
	s, err := strconv.Unquote(string(bytes.TrimSpace(raw)))
	if err != nil {
		return fmt.Errorf("key %s is not a %T", quoteJSON(raw), k)
	}
	if err := json.Unmarshal([]byte(s), k); err != nil {
		return fmt.Errorf("key %s is not a %T", quoteJSON(raw), k)
	}
	return nil
}

func wrapValueError(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("vespa: %s: %w", what, err)
}
