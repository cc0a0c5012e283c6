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
	return unmarshalKeyed[K, int, weightedItem](data, (*map[K]int)(ws), "weighted set", "weighted set item")
}

// weightedItem is an entry of a weighted set's array form.
type weightedItem struct {
	Item   json.RawMessage `json:"item"`
	Weight int             `json:"weight"`
}

func (e weightedItem) key() json.RawMessage { return e.Item }
func (e weightedItem) value() int           { return e.Weight }

// Map is the value of a map<K,V> field. It is written as Vespa's document
// JSON writes it, {"key": value} (integer keys as strings), and read from
// that and from the array of {"key": k, "value": v} that a query result may
// render.
type Map[K comparable, V any] map[K]V

// UnmarshalJSON reads either form of [Map].
func (m *Map[K, V]) UnmarshalJSON(data []byte) error {
	return unmarshalKeyed[K, V, mapEntry[V]](data, (*map[K]V)(m), "map", "map key")
}

// mapEntry is an entry of a map's array form.
type mapEntry[V any] struct {
	Key   json.RawMessage `json:"key"`
	Value V               `json:"value"`
}

func (e mapEntry[V]) key() json.RawMessage { return e.Key }
func (e mapEntry[V]) value() V             { return e.Value }

// unmarshalKeyed reads data into *m: the object {"key": value}, or the array
// of entries E a query result may render instead, whose keys are JSON
// strings or numbers. what names the value in errors, keyWhat its keys.
func unmarshalKeyed[K comparable, V any, E interface {
	key() json.RawMessage
	value() V
}](data []byte, m *map[K]V, what, keyWhat string) error {
	var entries []E
	array, err := decodeObjectOrArray(data, m, &entries)
	if err != nil || !array {
		return wrapValueError(what, err)
	}
	out := make(map[K]V, len(entries))
	for _, e := range entries {
		k, err := decodeKey[K](e.key(), keyWhat)
		if err != nil {
			return err
		}
		out[k] = e.value()
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

// decodeKey decodes a key rendered as a JSON string or number into a K,
// a string or an integer type; what names the key in the error.
func decodeKey[K any](raw json.RawMessage, what string) (K, error) {
	var k K
	if json.Unmarshal(raw, &k) == nil {
		return k, nil
	}
	if s, err := strconv.Unquote(string(bytes.TrimSpace(raw))); err == nil && json.Unmarshal([]byte(s), &k) == nil {
		return k, nil
	}
	return k, fmt.Errorf("vespa: %s %.64s: want %T", what, bytes.TrimSpace(raw), k) // at most 64 characters of it
}

func wrapValueError(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("vespa: %s: %w", what, err)
}
