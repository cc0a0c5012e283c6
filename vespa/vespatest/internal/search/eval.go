package search

import (
	"cmp"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// evaluator evaluates a condition against documents. Relevance is the emulator's own, documented
// in doc.go: a matched term scores tf/(1+tf) summed over terms, a nearestNeighbor adds its
// closeness, filters add nothing.
type evaluator struct {
	schemas  schemaSet
	nn       map[*nnNode]map[string]float64 // per nearestNeighbor: document ID to closeness
	vectors  *vectorCache                   // parsed document vectors, kept across queries
	searched map[string]bool                // the document types the query scans; nil: all
	bm25     map[string]map[string]float64  // per field: document ID to bm25 score
	text     map[string]float64             // when non-nil: text-match relevance per field of the current document
}

// eval reports whether d matches n and its score.
func (e *evaluator) eval(n node, d *docView) (bool, float64) {
	switch n := n.(type) {
	case boolNode:
		return n.val, 0
	case andNode:
		total := 0.0
		for _, k := range n.kids {
			ok, s := e.eval(k, d)
			if !ok {
				return false, 0
			}
			total += s
		}
		return true, total
	case orNode:
		return e.any(n.kids, d)
	case weakAndNode:
		return e.any(n.kids, d)
	case rankNode:
		ok, total := e.eval(n.kids[0], d)
		if !ok {
			return false, 0
		}
		for _, k := range n.kids[1:] {
			if m, s := e.eval(k, d); m {
				total += s
			}
		}
		return true, total
	case notNode:
		text := e.text
		e.text = nil // negated terms do not rank
		ok, _ := e.eval(n.kid, d)
		e.text = text
		return !ok, 0
	case containsNode:
		return e.contains(n, d)
	case compareNode:
		return e.compare(n, d), 0
	case rangeNode:
		return e.inRange(n, d), 0
	case *nnNode:
		c, ok := e.nn[n][d.ID]
		return ok, c
	}
	return false, 0
}

func (e *evaluator) any(kids []node, d *docView) (bool, float64) {
	matched, total := false, 0.0
	for _, k := range kids {
		if ok, s := e.eval(k, d); ok {
			matched, total = true, total+s
		}
	}
	return matched, total
}

// indexed reports whether field path of d is matched as an index (tokenized); lenient mode treats
// every field as indexed.
func (e *evaluator) indexed(d *docView, path string) bool {
	if e.schemas.lenient() {
		return true
	}
	f, ok := e.schemas.field(d.docType(), path)
	return !ok || f.Indexed
}

// fieldsFor returns the paths a contains on field searches: the field itself; the fields of a
// field set of that name (the schema's own or inherited), as Vespa searches a field set as one
// index over its fields; or for the default index without a "default" field or field set every
// string field of the document.
func (e *evaluator) fieldsFor(d *docView, field string) []string {
	if !e.schemas.lenient() {
		if _, ok := e.schemas.types[d.docType()][field]; !ok {
			if set, ok := e.schemas.fieldsets[d.docType()][field]; ok {
				return set
			}
		}
	}
	if field != defaultIndex {
		return []string{field}
	}
	if e.schemas.lenient() {
		if _, ok := d.value(defaultIndex); ok {
			return []string{defaultIndex}
		}
		return d.fieldNames()
	}
	fs := e.schemas.types[d.docType()]
	if _, ok := fs[defaultIndex]; ok {
		return []string{defaultIndex}
	}
	var out []string
	for _, name := range d.fieldNames() {
		if f, ok := fs[name]; ok && f.Indexed && isStringType(f.Type) {
			out = append(out, name)
		}
	}
	return out
}

func (e *evaluator) contains(n containsNode, d *docView) (bool, float64) {
	matched, total := false, 0.0
	for _, path := range e.fieldsFor(d, n.field) {
		if len(n.same) > 0 {
			if e.sameElement(n, d, path) {
				matched = true
			}
			continue
		}
		indexed := e.indexed(d, path)
		for _, leaf := range d.leaves(path) {
			if obj, ok := leaf.(map[string]any); ok { // a weighted set: match its keys
				for k := range obj {
					if tf := matchLeaf(k, n, indexed); tf > 0 {
						matched, total = true, total+tf/(1+tf)
						e.addText(path, tf/(1+tf))
					}
				}
				continue
			}
			if tf := matchLeaf(leaf, n, indexed); tf > 0 {
				matched, total = true, total+tf/(1+tf)
				e.addText(path, tf/(1+tf))
			}
		}
	}
	return matched, total
}

// addText records the text-match relevance of a term in the top-level field of path, for
// nativeRank(field).
func (e *evaluator) addText(path string, s float64) {
	if e.text != nil {
		top, _, _ := strings.Cut(path, ".")
		e.text[top] += s
	}
}

// matchLeaf returns how often the term or phrase of n occurs in one value.
func matchLeaf(leaf any, n containsNode, indexed bool) float64 {
	switch v := leaf.(type) {
	case string:
		prefix, _ := n.ann["prefix"].(bool)
		substring, _ := n.ann["substring"].(bool)
		suffix, _ := n.ann["suffix"].(bool)
		if !indexed && len(n.phrase) == 0 {
			lv, lt := strings.ToLower(v), strings.ToLower(n.term)
			switch {
			case prefix && strings.HasPrefix(lv, lt), substring && strings.Contains(lv, lt),
				suffix && strings.HasSuffix(lv, lt), lv == lt:
				return 1
			}
			return 0
		}
		words := n.phrase
		if len(words) == 0 {
			words = tokenize(n.term)
		}
		if len(words) == 0 {
			return 0
		}
		return float64(countPhrase(tokenize(v), words, prefix && len(words) == 1))
	case json.Number:
		t, err := strconv.ParseFloat(n.term, 64)
		f, err2 := v.Float64()
		if err == nil && err2 == nil && len(n.phrase) == 0 && t == f {
			return 1
		}
	case bool:
		if len(n.phrase) == 0 && strings.EqualFold(n.term, strconv.FormatBool(v)) {
			return 1
		}
	}
	return 0
}

// countPhrase counts the occurrences of words as consecutive tokens.
func countPhrase(tokens, words []string, prefix bool) int {
	count := 0
	for i := 0; i+len(words) <= len(tokens); i++ {
		ok := true
		for j, w := range words {
			if tokens[i+j] != w && !(prefix && strings.HasPrefix(tokens[i+j], w)) {
				ok = false
				break
			}
		}
		if ok {
			count++
		}
	}
	return count
}

// sameElement matches when one element of the array or map at path satisfies every condition,
// the conditions naming sub-fields of the element (key and value for maps).
func (e *evaluator) sameElement(n containsNode, d *docView, path string) bool {
	for _, el := range d.leavesElements(path) {
		sub := &docView{Document: Document{ID: d.ID, Type: d.Type}, split: true, vals: el}
		for k := range el {
			sub.names = append(sub.names, k)
		}
		all := true
		for _, c := range n.same {
			if ok, _ := (&evaluator{schemas: schemaSet{}, nn: e.nn}).eval(c, sub); !ok {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// leavesElements returns the elements of the collection at path as objects: array elements that
// are objects as they are, map entries as {"key": k, "value": v}.
func (v *docView) leavesElements(path string) []map[string]any {
	var out []map[string]any
	for _, x := range v.leaves(path) {
		obj, ok := x.(map[string]any)
		if !ok {
			continue
		}
		if isStructLike(v, path) {
			out = append(out, obj)
			continue
		}
		for k, val := range obj {
			out = append(out, map[string]any{"key": k, "value": val})
		}
	}
	return out
}

// isStructLike reports whether the collection at path holds structs (an array) rather than being
// a map: leaves of an array field come one per element.
func isStructLike(v *docView, path string) bool {
	top, _, _ := strings.Cut(path, ".")
	x, _ := v.value(top)
	_, isArr := x.([]any)
	return isArr
}

func (e *evaluator) compare(n compareNode, d *docView) bool {
	for _, leaf := range e.compareLeaves(n.field, d) {
		switch v := leaf.(type) {
		case json.Number:
			if n.isStr || n.isB {
				continue
			}
			if i, err := v.Int64(); err == nil && n.isInt {
				if compareInt(i, n.op, n.inum) {
					return true
				}
				continue
			}
			f, err := v.Float64()
			if err == nil && compareFloat(f, n.op, n.num) {
				return true
			}
		case string:
			if n.isStr && strings.EqualFold(v, n.str) {
				return true
			}
		case bool:
			if n.isB && v == n.b {
				return true
			}
		}
	}
	return false
}

// compareLeaves returns the values a comparison on field looks at: its
// leaves, and for a weighted set its keys (an integer key as a number), as
// a multi-value attribute's search context matches any element (searchlib
// MultiValueNumericAttribute, the key of each weighted element).
func (e *evaluator) compareLeaves(field string, d *docView) []any {
	leaves := d.leaves(field)
	f, ok := e.schemas.field(d.docType(), field)
	if !ok || !strings.HasPrefix(f.Type, "weightedset<") {
		return leaves
	}
	var out []any
	for _, leaf := range leaves {
		obj, isSet := leaf.(map[string]any)
		if !isSet {
			out = append(out, leaf)
			continue
		}
		for k := range obj {
			if strings.HasPrefix(f.Type, "weightedset<string") {
				out = append(out, k)
			} else {
				out = append(out, json.Number(k))
			}
		}
	}
	return out
}

func compareInt(a int64, op string, b int64) bool {
	return compareFloat(float64(cmp.Compare(a, b)), op, 0)
}

func compareFloat(a float64, op string, b float64) bool {
	switch op {
	case "=":
		return a == b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	}
	return false
}

func (e *evaluator) inRange(n rangeNode, d *docView) bool {
	for _, leaf := range e.compareLeaves(n.field, d) {
		num, ok := leaf.(json.Number)
		if !ok {
			continue
		}
		f, err := num.Float64()
		if err != nil || math.IsNaN(f) {
			continue
		}
		lo := f > n.lo || !n.loOpen && f == n.lo
		hi := f < n.hi || !n.hiOpen && f == n.hi
		if lo && hi {
			return true
		}
	}
	return false
}
