package search

import (
	"math"
	"slices"
)

// BM25 parameters, Vespa's defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// prepareBM25 computes bm25(field) for every searched document, as standard BM25 over the
// field's tokens: for each query term searching the field (directly, or through the default
// index), idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × length / average length)) with
// idf = ln(1 + (N − n + 0.5) / (n + 0.5)), k1 = 1.2, b = 0.75. N, n (the documents holding the
// term) and the average length are taken over the searched documents that have the field. A
// phrase counts as one term; negated terms do not count.
func (e *evaluator) prepareBM25(fields []string, where node, docs []*docView) {
	terms := positiveTerms(where)
	e.bm25 = map[string]map[string]float64{}
	for _, field := range fields {
		type docStats struct {
			d   *docView
			len float64
			tf  []float64 // per term; 0 when the term does not search the field
		}
		var stats []docStats
		df := make([]float64, len(terms))
		totalLen := 0.0
		for _, d := range docs {
			leaves := d.leaves(field)
			if len(leaves) == 0 {
				continue
			}
			st := docStats{d: d, tf: make([]float64, len(terms))}
			for _, leaf := range leaves {
				if s, ok := leaf.(string); ok {
					st.len += float64(len(tokenize(s)))
				}
			}
			indexed := e.indexed(d, field)
			for i, t := range terms {
				if t.field != field && !(t.field == defaultIndex && slices.Contains(e.fieldsFor(d, defaultIndex), field)) {
					continue
				}
				for _, leaf := range leaves {
					st.tf[i] += matchLeaf(leaf, t, indexed)
				}
				if st.tf[i] > 0 {
					df[i]++
				}
			}
			totalLen += st.len
			stats = append(stats, st)
		}
		scores := make(map[string]float64, len(stats))
		e.bm25[field] = scores
		if len(stats) == 0 {
			continue
		}
		n := float64(len(stats))
		avg := totalLen / n
		if avg == 0 {
			avg = 1
		}
		for _, st := range stats {
			score := 0.0
			for i, tf := range st.tf {
				if tf == 0 {
					continue
				}
				idf := math.Log(1 + (n-df[i]+0.5)/(df[i]+0.5))
				score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*st.len/avg))
			}
			if score != 0 {
				scores[st.d.ID] = score
			}
		}
	}
}

// positiveTerms returns the term conditions of the query that rank: every contains outside a
// negation (sameElement excluded).
func positiveTerms(n node) []containsNode {
	var out []containsNode
	var walk func(n node, depth int)
	walk = func(n node, depth int) {
		if depth > maxDepth {
			return
		}
		if c, ok := n.(containsNode); ok && len(c.same) == 0 {
			out = append(out, c)
		}
		for _, k := range operands(n) {
			walk(k, depth+1)
		}
	}
	walk(n, 0)
	return out
}
