package schema

import "testing"

func FuzzParseSchema(f *testing.F) {
	f.Add("schema music { document music { field a type string { indexing: summary | index } } }")
	f.Add("schema x { document x { field t type tensor<float>(x[3]) { indexing: attribute\n attribute { distance-metric: angular } } } }")
	f.Fuzz(func(t *testing.T, s string) { _, _ = Parse(s) })
}
