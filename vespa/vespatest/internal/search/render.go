package search

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// result is what the handler renders: Vespa's default JSON result format.
type result struct {
	trace    []string
	timing   *timing
	total    int
	coverage *coverage
	errors   []resultError
	hits     []hit
	groups   []gNode // grouping output: the root groups, after the hits
}

// coverage is root.coverage of a search of one node: documents covered of
// active, degraded by a soft timeout or not.
type coverage struct {
	documents, active int
	degradedTimeout   bool
}

// write renders c as JsonRenderer.renderCoverage does, from Vespa's
// Coverage (container-disc's com.yahoo.container.handler.Coverage): the
// percentage rounded, degraded only when some reason is set (timeout here),
// full when every active document was covered, resultsFull 0 when not full.
func (c *coverage) write(b *bytes.Buffer) {
	pct := 100
	if c.documents < c.active {
		pct = int(math.Round(float64(c.documents) * 100 / float64(c.active)))
	} else if c.active == 0 && c.degradedTimeout {
		pct = 0
	}
	full := c.documents >= c.active && !(c.active == 0 && c.degradedTimeout)
	b.WriteString(`,"coverage":{"coverage":`)
	b.WriteString(strconv.Itoa(pct))
	b.WriteString(`,"documents":`)
	b.WriteString(strconv.Itoa(c.documents))
	if c.degradedTimeout {
		b.WriteString(`,"degraded":{"match-phase":false,"timeout":true,"adaptive-timeout":false,"anntimeout":false,"non-ideal-state":false}`)
	}
	b.WriteString(`,"full":`)
	b.WriteString(strconv.FormatBool(full))
	b.WriteString(`,"nodes":1,"results":1,"resultsFull":`)
	if full {
		b.WriteString("1}")
	} else {
		b.WriteString("0}")
	}
}

// timing is the top-level timing object of presentation.timing, in seconds.
type timing struct{ query, summary, search float64 }

// hit is one child of root.
type hit struct {
	id        string
	relevance float64
	source    string
	fields    []field
}

// field is one rendered hit field: its name (Key) and JSON value (Val).
type field = jsonx.Member

// render writes r as compact JSON with keys in the order Vespa's JsonRenderer writes them.
func (r *result) render() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	if len(r.trace) > 0 {
		b.WriteString(`"trace":{"children":[`)
		for i, m := range r.trace {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"message":`)
			jsonx.WriteString(&b, m)
			b.WriteByte('}')
		}
		b.WriteString(`]},`)
	}
	if r.timing != nil {
		b.WriteString(`"timing":{"querytime":`)
		b.WriteString(javaDouble(r.timing.query))
		b.WriteString(`,"summaryfetchtime":`)
		b.WriteString(javaDouble(r.timing.summary))
		b.WriteString(`,"searchtime":`)
		b.WriteString(javaDouble(r.timing.search))
		b.WriteString(`},`)
	}
	b.WriteString(`"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":`)
	b.WriteString(strconv.Itoa(r.total))
	b.WriteByte('}')
	if c := r.coverage; c != nil {
		c.write(&b)
	}
	if len(r.errors) > 0 {
		b.WriteString(`,"errors":[`)
		for i, e := range r.errors {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"code":`)
			b.WriteString(strconv.Itoa(e.code))
			b.WriteString(`,"summary":`)
			jsonx.WriteString(&b, e.summary)
			if e.source != "" {
				b.WriteString(`,"source":`)
				jsonx.WriteString(&b, e.source)
			}
			if e.message != "" {
				b.WriteString(`,"message":`)
				jsonx.WriteString(&b, e.message)
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
	}
	if len(r.hits) > 0 || len(r.groups) > 0 {
		b.WriteString(`,"children":[`)
		for i, h := range r.hits {
			if i > 0 {
				b.WriteByte(',')
			}
			writeHit(&b, h)
		}
		for i, g := range r.groups {
			if i > 0 || len(r.hits) > 0 {
				b.WriteByte(',')
			}
			writeGroupNode(&b, g)
		}
		b.WriteByte(']')
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

// writeHit writes one document hit.
func writeHit(b *bytes.Buffer, h hit) {
	b.WriteString(`{"id":`)
	jsonx.WriteString(b, h.id)
	b.WriteString(`,"relevance":`)
	writeRelevance(b, h.relevance)
	if h.source != "" {
		b.WriteString(`,"source":`)
		jsonx.WriteString(b, h.source)
	}
	writeFields(b, h.fields)
	b.WriteByte('}')
}

func writeFields(b *bytes.Buffer, fs []field) {
	if len(fs) == 0 {
		return
	}
	b.WriteString(`,"fields":`)
	jsonx.Object(fs).WriteTo(b)
}

// writeGroupNode writes a node of grouping output with its keys in JsonRenderer's order: id,
// relevance, value or limits, label, continuation, fields, children.
func writeGroupNode(b *bytes.Buffer, g gNode) {
	b.WriteString(`{"id":`)
	jsonx.WriteString(b, g.id)
	b.WriteString(`,"relevance":`)
	writeRelevance(b, g.relevance)
	if g.value != nil {
		b.WriteString(`,"value":`)
		jsonx.WriteString(b, *g.value)
	}
	if g.limits != nil {
		b.WriteString(`,"limits":{"from":`)
		jsonx.WriteString(b, g.limits[0])
		b.WriteString(`,"to":`)
		jsonx.WriteString(b, g.limits[1])
		b.WriteByte('}')
	}
	if g.list {
		b.WriteString(`,"label":`)
		jsonx.WriteString(b, g.label)
	}
	if g.continuation {
		b.WriteString(`,"continuation":{"this":""}`)
	}
	writeFields(b, g.fields)
	if len(g.children) > 0 || len(g.hits) > 0 {
		b.WriteString(`,"children":[`)
		for i, h := range g.hits {
			if i > 0 {
				b.WriteByte(',')
			}
			writeHit(b, h)
		}
		for i, c := range g.children {
			if i > 0 || len(g.hits) > 0 {
				b.WriteByte(',')
			}
			writeGroupNode(b, c)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

// writeRelevance writes a relevance; non-finite values are strings, as Vespa renders them.
func writeRelevance(b *bytes.Buffer, v float64) {
	switch {
	case math.IsNaN(v):
		b.WriteString(`"NaN"`)
	case math.IsInf(v, 1):
		b.WriteString(`"Infinity"`)
	case math.IsInf(v, -1):
		b.WriteString(`"-Infinity"`)
	default:
		b.WriteString(javaDouble(v))
	}
}

// javaDouble formats a finite float64 as Java's Double.toString does (which Jackson writes):
// 1.0, 0.25, 1.0E-4, 1.2345678E7.
func javaDouble(v float64) string { return javaFloating(v, 64) }

// javaFloat formats a finite float32 (held in a float64) as Java's
// Float.toString does: 0.1, 1.0, 1.0E-7.
func javaFloat(v float64) string { return javaFloating(v, 32) }

func javaFloating(v float64, bits int) string {
	if v == 0 {
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(v, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'E', -1, bits) // 1E-04, 1.5E+07
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(exp, "+-0")
	if exp == "" {
		exp = "0"
	}
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}
