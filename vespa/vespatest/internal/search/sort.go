package search

import (
	"fmt"
	"sort"
	"strings"
)

// parseSorting reads a sorting parameter: "+year -title" (no prefix means ascending).
func parseSorting(s string) ([]orderSpec, error) {
	var out []orderSpec
	for _, f := range strings.Fields(s) {
		o := orderSpec{}
		switch f[0] {
		case '-':
			o.desc, f = true, f[1:]
		case '+':
			f = f[1:]
		}
		if strings.ContainsAny(f, "()[]") || f == "" {
			return nil, &notImplementedError{what: "sort functions in sorting (" + s + ")"}
		}
		o.field = f
		out = append(out, o)
	}
	return out, nil
}

// sortMatches orders by the order-by keys, or by relevance (descending); ties go by document ID.
func sortMatches(ms []match, order []orderSpec) {
	sort.SliceStable(ms, func(i, j int) bool {
		for _, o := range order {
			c := compareValues(firstLeaf(ms[i].doc, o.field), firstLeaf(ms[j].doc, o.field))
			if c == 0 {
				continue
			}
			if c == 2 || c == -2 { // a missing value sorts last either way
				return c == -2
			}
			if o.desc {
				return c > 0
			}
			return c < 0
		}
		if len(order) == 0 && ms[i].score != ms[j].score {
			return ms[i].score > ms[j].score
		}
		return ms[i].doc.ID < ms[j].doc.ID
	})
}

func firstLeaf(d *docView, field string) any {
	if field == "[relevance]" || field == "relevance" {
		return nil
	}
	ls := d.leaves(field)
	if len(ls) == 0 {
		return nil
	}
	return ls[0]
}

// compareValues compares two sort values: -1, 0, 1; -2 when only b is missing, 2 when only a is.
func compareValues(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 2
	case b == nil:
		return -2
	}
	fa, aNum := toFloat(a)
	fb, bNum := toFloat(b)
	if aNum && bNum {
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}
