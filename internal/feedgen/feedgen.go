// Package feedgen holds what the feed benchmarks and internal/cmd/feedcmp
// measure with: the synthetic feed, puts of one music document, small or
// with a 384-float embedding, whose ids count up from id:ns:music::d0; and
// the sink it is fed to, a /document/v1 that answers every put at once.
package feedgen

import "strconv"

// SmallFields returns the fields object of a document of about 100 bytes: a
// title, an artist, a year and an album.
func SmallFields() []byte {
	return []byte(`{"title":"A Head Full of Dreams","artist":"Coldplay","year":2015,"album":"A Head Full of Dreams (Deluxe)"}`)
}

// VectorFields returns the fields object of a document of about 4 KB: a
// title and a 384-float embedding, each value written with six decimals.
func VectorFields() []byte {
	b := []byte(`{"title":"A Head Full of Dreams","embedding":{"values":[`)
	for i := range 384 {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(i%97)/97-0.5, 'f', 6, 64)
	}
	return append(b, "]}}"...)
}

// Fields returns VectorFields if large, else SmallFields.
func Fields(large bool) []byte {
	if large {
		return VectorFields()
	}
	return SmallFields()
}

// AppendPut appends to b the JSONL line of the put of id:ns:music::d<i>
// with fields, newline included, and returns the extended slice.
func AppendPut(b []byte, i int, fields []byte) []byte {
	b = append(b, `{"put":"id:ns:music::d`...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `","fields":`...)
	b = append(b, fields...)
	return append(b, "}\n"...)
}

// JSONL returns n puts, ids d0 to d<n-1>, one a line, with Fields(large).
func JSONL(n int, large bool) []byte {
	fields := Fields(large)
	var b []byte
	for i := range n {
		b = AppendPut(b, i, fields)
	}
	return b
}
