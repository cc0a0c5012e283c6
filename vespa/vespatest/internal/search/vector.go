package search

import (
	"bytes"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// vector is a document's dense vector as nearestNeighbor reads it: float32 cells when every
// value is exactly a float32 (tensor<float>, bfloat16 and int8 fields always are), float64
// otherwise, with its sum of squares for the angular metric.
type vector struct {
	f32   []float32
	f64   []float64
	sumSq float64
}

func (v *vector) len() int { return max(len(v.f32), len(v.f64)) }

// newVector keeps vals in the smallest exact representation.
func newVector(vals []float64) *vector {
	v := &vector{}
	exact := true
	for _, x := range vals {
		v.sumSq += x * x
		if float64(float32(x)) != x {
			exact = false
		}
	}
	if !exact {
		v.f64 = vals
		return v
	}
	v.f32 = make([]float32, len(vals))
	for i, x := range vals {
		v.f32[i] = float32(x)
	}
	return v
}

func (v *vector) at(i int) float64 {
	if v.f32 != nil {
		return float64(v.f32[i])
	}
	return v.f64[i]
}

func (v *vector) dot(q []float64) float64 {
	s := 0.0
	if v.f32 != nil {
		for i, x := range v.f32 {
			s += q[i] * float64(x)
		}
		return s
	}
	for i, x := range v.f64 {
		s += q[i] * x
	}
	return s
}

func (v *vector) squaredDistance(q []float64) float64 {
	s := 0.0
	if v.f32 != nil {
		for i, x := range v.f32 {
			d := q[i] - float64(x)
			s += d * d
		}
		return s
	}
	for i, x := range v.f64 {
		d := q[i] - x
		s += d * d
	}
	return s
}

// queryVector is the query side of a nearestNeighbor: its values and sum of squares.
type queryVector struct {
	vals  []float64
	sumSq float64
}

func newQueryVector(vals []float64) queryVector {
	q := queryVector{vals: vals}
	for _, x := range vals {
		q.sumSq += x * x
	}
	return q
}

// vectorDistance computes the distance of a document vector to the query under a Vespa distance
// metric and the closeness Vespa derives from it: 1/(1+distance), or the dot product itself for
// dotproduct. The arithmetic is the same, in the same order, as distance's.
func vectorDistance(metric string, q queryVector, v *vector) (dist, closeness float64, err error) {
	switch strings.ToLower(metric) {
	case "", "euclidean":
		dist = math.Sqrt(v.squaredDistance(q.vals))
	case "angular":
		cos := 0.0
		if q.sumSq > 0 && v.sumSq > 0 {
			cos = v.dot(q.vals) / math.Sqrt(q.sumSq*v.sumSq)
		}
		dist = math.Acos(math.Max(-1, math.Min(1, cos)))
	case "prenormalized-angular":
		dist = 1 - v.dot(q.vals)
	case "dotproduct":
		dot := v.dot(q.vals)
		return -dot, dot, nil
	case "hamming":
		n := 0
		for i, a := range q.vals {
			n += bits.OnesCount8(uint8(int8(a)) ^ uint8(int8(v.at(i)))) //nolint:gosec // G115: hamming compares int8 cells bit by bit
		}
		dist = float64(n)
	default:
		return 0, 0, &notImplementedError{what: "the distance metric '" + metric + "'"}
	}
	return dist, 1 / (1 + dist), nil
}

// vectorCache keeps the parsed vectors of document fields across queries, so that a
// nearestNeighbor query does not parse every document's tensor again. An entry is valid for the
// document bytes it was read from: a document whose bytes changed is read again. Entries of
// documents no longer in the corpus are dropped after a query that saw the whole corpus.
type vectorCache struct {
	mu      sync.Mutex
	byField map[string]map[string]*cachedVector // field, document ID
	gen     uint64
}

type cachedVector struct {
	fields  []byte  // the document's bytes the vector was read from
	docType string  // the document's type
	vec     *vector // nil: the field holds no dense vector
	gen     uint64  // the last query generation that saw the document
}

// begin starts a query generation for a nearestNeighbor over field and returns the field's
// entries and the generation; the caller holds c.mu until end.
func (c *vectorCache) begin(field string) (map[string]*cachedVector, uint64) {
	c.mu.Lock()
	if c.byField == nil {
		c.byField = map[string]map[string]*cachedVector{}
	}
	m := c.byField[field]
	if m == nil {
		m = map[string]*cachedVector{}
		c.byField[field] = m
	}
	c.gen++
	return m, c.gen
}

// end releases the cache. After a complete scan, the entries of the searched types (nil: all)
// that the scan did not see are of removed documents, and are dropped.
func (c *vectorCache) end(m map[string]*cachedVector, gen uint64, searched map[string]bool, complete bool) {
	if complete {
		for id, e := range m {
			if e.gen != gen && (searched == nil || searched[e.docType]) {
				delete(m, id)
			}
		}
	}
	c.mu.Unlock()
}

// lookup returns the vector of field in d, reading it on a miss.
func lookupVector(m map[string]*cachedVector, gen uint64, d *docView, field string) *vector {
	e := m[d.ID]
	if e == nil || !bytes.Equal(e.fields, d.Fields) {
		e = &cachedVector{fields: d.Fields, docType: d.docType(), vec: readVector(d, field)}
		m[d.ID] = e
	}
	e.gen = gen
	return e.vec
}

// readVector reads the dense vector of a field: the stored short form {"type":…,"values":[…]}
// and flat arrays with a byte scanner, any other form through parseVector.
func readVector(d *docView, field string) *vector {
	raw, ok := d.raw(field)
	if !ok {
		return nil
	}
	if vals, ok := scanVector(raw); ok {
		return newVector(vals)
	}
	x, ok := d.value(field)
	if !ok {
		return nil
	}
	vals, ok := parseVector(x)
	if !ok {
		return nil
	}
	return newVector(vals)
}

// scanVector reads a flat array of numbers, or an object whose "values" member is one (any
// "type" member is skipped). The stored document is valid JSON.
func scanVector(raw []byte) ([]float64, bool) {
	i := jsonx.SkipWS(raw, 0)
	if i < len(raw) && raw[i] == '{' {
		key := []byte(`"values"`)
		j := bytes.Index(raw, key)
		if j < 0 || bytes.Count(raw, []byte(`"`)) > 6 { // only "type", its value and "values"
			return nil, false
		}
		i = jsonx.SkipWS(raw, j+len(key))
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = jsonx.SkipWS(raw, i+1)
	}
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	var out []float64
	i = jsonx.SkipWS(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end := i
		for end < len(raw) && raw[end] != ',' && raw[end] != ']' && raw[end] != ' ' && raw[end] != '\n' && raw[end] != '\t' && raw[end] != '\r' {
			end++
		}
		f, err := strconv.ParseFloat(string(raw[i:end]), 64)
		if err != nil || end == i || raw[i] == '"' {
			return nil, false
		}
		out = append(out, f)
		i = jsonx.SkipWS(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = jsonx.SkipWS(raw, i+1)
		}
	}
	return out, i < len(raw)
}
