package testutil

import "reflect"

// Subset reports whether want is contained in have, both decoded JSON
// (map[string]any, []any and scalars): every key of a want object is in the
// have object with a contained value; arrays have the same length and
// contained elements; scalars are equal. It is how fixtures whose body_match
// is "subset" are compared.
func Subset(want, have any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !Subset(v, h[k]) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !Subset(w[i], h[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, have)
}
