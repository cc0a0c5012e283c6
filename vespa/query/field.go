package query

// Typed field references: a field of a schema with the YQL operators Vespa
// takes for its type, so that a condition the field cannot answer does not
// compile. cmd/vespagen writes one per searchable field of an application
// package, a package-level variable named after its field
// (music.Year.Lt(1990), music.Title.Contains("love")), or per schema the
// fields of one variable when a package holds several
// (rich.SongFields.Year); they can also be declared by hand:
//
//	var year = query.IntegerFieldOf[int32]("year")
//	q := query.Select().From("music").Where(year.Lt(1990))
//
// Each is its field's name (Name returns it) and renders as the function of
// this package it stands for (Lt as Less, Contains as Contains, ...), which
// validates the name and escapes the value.

import "reflect"

// Number is the Go types of Vespa's numeric fields: byte, int, long, float
// and double are int8, int32, int64, float32 and float64.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~float32 | ~float64
}

// Integral is the Go types of Vespa's integer fields (byte, int, long).
type Integral interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int
}

// plain returns v as its basic type (a string, int64, float32 or float64),
// which the functions of this package render: the type parameters of the
// typed fields take named types too (type Year int32).
func plain(v any) any {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Float32:
		return float32(rv.Float())
	case reflect.Float64:
		return rv.Float()
	}
	return v
}

// NumericField is a numeric attribute (or an array or weighted set of
// numbers, whose comparisons match any element): =, <, <=, >, >=, range
// and sorting. A float or double field is one; an integer field is an
// [IntegerField], which adds in.
type NumericField[T Number] string

// Name returns the field's name.
func (f NumericField[T]) Name() string { return string(f) }

// Eq matches field = v.
func (f NumericField[T]) Eq(v T) Condition { return Equal(string(f), plain(v)) }

// Lt matches field < v.
func (f NumericField[T]) Lt(v T) Condition { return Less(string(f), plain(v)) }

// Le matches field <= v.
func (f NumericField[T]) Le(v T) Condition { return LessOrEqual(string(f), plain(v)) }

// Gt matches field > v.
func (f NumericField[T]) Gt(v T) Condition { return Greater(string(f), plain(v)) }

// Ge matches field >= v.
func (f NumericField[T]) Ge(v T) Condition { return GreaterOrEqual(string(f), plain(v)) }

// Range matches low <= field <= high: range(field, low, high).
func (f NumericField[T]) Range(low, high T) Condition {
	return Range(string(f), plain(low), plain(high))
}

// Asc sorts by the field, ascending.
func (f NumericField[T]) Asc() Order { return Asc(string(f)) }

// Desc sorts by the field, descending.
func (f NumericField[T]) Desc() Order { return Desc(string(f)) }

// IntegerField is an integer attribute: a [NumericField] that also takes
// in (Vespa's in operator takes integer and string fields, not floats).
type IntegerField[T Integral] struct{ NumericField[T] }

// IntegerFieldOf returns the integer field named name.
func IntegerFieldOf[T Integral](name string) IntegerField[T] {
	return IntegerField[T]{NumericField[T](name)}
}

// In matches documents whose field holds one of vs: field in (v1, v2, ...).
func (f IntegerField[T]) In(vs ...T) Condition {
	ints := make([]int64, len(vs))
	for i, v := range vs {
		ints[i] = int64(v)
	}
	return InInts(string(f.NumericField), ints...)
}

// StringField is a string field (or an array of strings), indexed or
// attribute: contains and the text operators. Vespa refuses <, > and = on
// strings, so it has none. Matches, Fuzzy and In need an attribute.
type StringField string

// Name returns the field's name.
func (f StringField) Name() string { return string(f) }

// Contains matches field contains value: a term of an indexed field, or
// the value of an attribute.
func (f StringField) Contains(value string) Condition { return Contains(string(f), value) }

// Phrase matches the words in sequence: field contains phrase(...).
func (f StringField) Phrase(words ...string) Condition { return Phrase(string(f), words...) }

// Near matches the words close to each other in any order.
func (f StringField) Near(words ...string) Condition { return Near(string(f), words...) }

// ONear matches the words close to each other in the order given.
func (f StringField) ONear(words ...string) Condition { return ONear(string(f), words...) }

// Equiv matches any of the terms as if they were one.
func (f StringField) Equiv(terms ...string) Condition { return Equiv(string(f), terms...) }

// Matches matches a regular expression (field matches re); attributes only.
func (f StringField) Matches(re string) Condition { return Matches(string(f), re) }

// Fuzzy matches terms within an edit distance of term; attributes only.
func (f StringField) Fuzzy(term string) Condition { return Fuzzy(string(f), term) }

// In matches documents whose field holds one of values; attributes only.
func (f StringField) In(values ...string) Condition { return InStrings(string(f), values...) }

// Asc sorts by the field, ascending; attributes only.
func (f StringField) Asc() Order { return Asc(string(f)) }

// Desc sorts by the field, descending; attributes only.
func (f StringField) Desc() Order { return Desc(string(f)) }

// BoolField is a bool attribute.
type BoolField string

// Name returns the field's name.
func (f BoolField) Name() string { return string(f) }

// Is matches field = v.
func (f BoolField) Is(v bool) Condition { return Equal(string(f), v) }

// WeightedSetField is a weighted set attribute of K (string or integer
// keys): the weighted-set operators, and Contains for one key.
type WeightedSetField[K Token] string

// Name returns the field's name.
func (f WeightedSetField[K]) Name() string { return string(f) }

// Contains matches documents whose set holds key: contains for string
// keys, = for integer keys.
func (f WeightedSetField[K]) Contains(key K) Condition {
	v := plain(key)
	if s, ok := v.(string); ok {
		return Contains(string(f), s)
	}
	return Equal(string(f), v)
}

// WeightedSet matches documents whose set holds any of weights' keys.
func (f WeightedSetField[K]) WeightedSet(weights map[K]int) Condition {
	return WeightedSet(string(f), weights)
}

// DotProduct scores the dot product of weights and the set.
func (f WeightedSetField[K]) DotProduct(weights map[K]int) Condition {
	return DotProduct(string(f), weights)
}

// Wand matches the documents of the best dot products (weak and).
func (f WeightedSetField[K]) Wand(weights map[K]int) Condition { return Wand(string(f), weights) }

// TensorField is a tensor attribute with an index (HNSW) or not:
// nearestNeighbor.
type TensorField string

// Name returns the field's name.
func (f TensorField) Name() string { return string(f) }

// NearestNeighbor matches the targetHits documents closest to the query
// tensor queryTensor (a rank input, query(queryTensor)).
func (f TensorField) NearestNeighbor(queryTensor string, targetHits int) Condition {
	return NearestNeighbor(string(f), queryTensor, targetHits)
}

// PositionField is a position attribute: geoLocation.
type PositionField string

// Name returns the field's name.
func (f PositionField) Name() string { return string(f) }

// Within matches positions within radius (such as "10 km") of lat, lng:
// geoLocation(field, lat, lng, radius).
func (f PositionField) Within(lat, lng float64, radius string) Condition {
	return GeoLocation(string(f), lat, lng, radius)
}

// PredicateField is a predicate field: documents whose boolean
// expression the query's attributes and ranges satisfy.
type PredicateField string

// Name returns the field's name.
func (f PredicateField) Name() string { return string(f) }

// Satisfied matches documents whose predicate holds for attributes and
// ranges: predicate(field, {...}, {...}).
func (f PredicateField) Satisfied(attributes map[string][]string, ranges map[string]int64) Condition {
	return Predicate(string(f), attributes, ranges)
}

// URIField is a uri field: uri matching, and contains for its tokens.
type URIField string

// Name returns the field's name.
func (f URIField) Name() string { return string(f) }

// Matches matches the uri: field contains uri(...).
func (f URIField) Matches(uri string) Condition { return URI(string(f), uri) }

// Contains matches one token of the uri (a host part, say).
func (f URIField) Contains(token string) Condition { return Contains(string(f), token) }
