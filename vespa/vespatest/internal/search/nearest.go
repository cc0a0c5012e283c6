package search

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// nnItemString renders a nearestNeighbor item as Vespa's NearestNeighborItem.toString does in
// its error messages.
func nnItemString(n *nnNode) string {
	return fmt.Sprintf("NEAREST_NEIGHBOR {field=%s,queryTensorName=%s,hnsw.exploreAdditionalHits=0,"+
		"distanceThreshold=%s,allowApproximate=true,targetHits=%d}",
		n.field, n.query, javaInfinity(n.threshold), n.targetHits)
}

func javaInfinity(v float64) string {
	if math.IsInf(v, 1) {
		return "Infinity"
	}
	return javaDouble(v)
}

// denseDim matches the single indexed dimension of a dense vector type: tensor<float>(x[384]).
var denseDim = regexp.MustCompile(`^tensor(?:<[a-z0-9]+>)?\(\s*([A-Za-z_][A-Za-z0-9_]*)\[(\d+)\]\s*\)$`)

// denseSize returns the dimension name and size of a dense vector type.
func denseSize(t string) (string, int, bool) {
	m := denseDim.FindStringSubmatch(strings.ReplaceAll(strings.TrimSpace(t), " ", ""))
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	return m[1], n, err == nil
}

// parseVector reads a dense vector from a query input or a document field: a JSON array (nested
// arrays are flattened), {"values": [...]}, {"cells": [{"address":{...},"value":v}...]} or
// {"cells": {"0": v}}, a tensor literal "{{x:0}:1.0,{x:1}:2.0}", or "tensor(x[2]):[1,2]".
func parseVector(x any) ([]float64, bool) {
	switch v := x.(type) {
	case string:
		s := strings.TrimSpace(v)
		if strings.HasPrefix(s, "tensor") {
			if _, after, ok := strings.Cut(s, ":"); ok {
				s = strings.TrimSpace(after)
			}
		}
		if strings.HasPrefix(s, "{{") || strings.HasPrefix(s, "{ {") {
			return parseCellLiteral(s)
		}
		var y any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if dec.Decode(&y) != nil {
			return nil, false
		}
		if _, isStr := y.(string); isStr {
			return nil, false
		}
		return parseVector(y)
	case []any:
		var out []float64
		for _, e := range v {
			if sub, ok := e.([]any); ok {
				f, ok := parseVector(sub)
				if !ok {
					return nil, false
				}
				out = append(out, f...)
				continue
			}
			f, ok := toFloat(e)
			if !ok {
				return nil, false
			}
			out = append(out, f)
		}
		return out, true
	case map[string]any:
		if vals, ok := v["values"]; ok {
			return parseVector(vals)
		}
		if cells, ok := v["cells"]; ok {
			return parseCells(cells)
		}
	}
	return nil, false
}

func toFloat(x any) (float64, bool) {
	switch v := x.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	}
	return 0, false
}

// parseCells reads indexed cells, addressed by the label of their single dimension.
func parseCells(cells any) ([]float64, bool) {
	at := map[int]float64{}
	maxIdx := -1
	put := func(label string, val any) bool {
		i, err := strconv.Atoi(label)
		f, ok := toFloat(val)
		if err != nil || !ok || i < 0 || i > 1<<20 {
			return false
		}
		at[i] = f
		maxIdx = max(maxIdx, i)
		return true
	}
	switch c := cells.(type) {
	case []any:
		for _, e := range c {
			cell, _ := e.(map[string]any)
			addr, _ := cell["address"].(map[string]any)
			if len(addr) != 1 {
				return nil, false
			}
			for _, l := range addr {
				label, _ := l.(string)
				if !put(label, cell["value"]) {
					return nil, false
				}
			}
		}
	case map[string]any:
		for label, val := range c {
			if !put(label, val) {
				return nil, false
			}
		}
	default:
		return nil, false
	}
	out := make([]float64, maxIdx+1)
	for i, f := range at {
		out[i] = f
	}
	return out, true
}

var cellLiteral = regexp.MustCompile(`\{\s*[A-Za-z_][A-Za-z0-9_]*\s*:\s*(\d+)\s*\}\s*:\s*([-+0-9.eE]+|NaN|Infinity|-Infinity)`)

// parseCellLiteral reads {{x:0}:1.0,{x:1}:2.0}.
func parseCellLiteral(s string) ([]float64, bool) {
	m := cellLiteral.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return nil, false
	}
	cells := map[string]any{}
	for _, c := range m {
		cells[c[1]] = json.Number(c[2])
	}
	return parseCells(cells)
}

// nnCandidate is one document's distance to the query vector.
type nnCandidate struct {
	id        string
	dist      float64
	closeness float64
}

// topK keeps the k nearest candidates within threshold, ties broken by document ID.
func topK(cs []nnCandidate, k int, threshold float64) map[string]float64 {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].id < cs[j].id
	})
	out := map[string]float64{}
	for _, c := range cs {
		if len(out) >= k || c.dist > threshold {
			break
		}
		out[c.id] = c.closeness
	}
	return out
}
