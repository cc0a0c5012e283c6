package search

import (
	"fmt"
	"strconv"
	"strings"
)

// defaultIndex is the index searched by terms without a field prefix: a field named "default"
// when a schema has one, otherwise every string field (see eval.go).
const defaultIndex = "default"

// parseUserQuery turns text in Vespa's simple query language into a condition. Supported: words,
// "quoted phrases", field:word, field:"phrase", field:>n, field:<n, field:[lo;hi], +required and
// -excluded items. grammar is the model.type: all, any, weakAnd (the default), phrase or raw.
// It returns nil when the text holds no searchable item.
func parseUserQuery(text, grammar, index string) (node, error) {
	if index == "" {
		index = defaultIndex
	}
	switch strings.ToLower(grammar) {
	case "", "weakand", "any", "all", "web":
	case "phrase":
		words := tokenize(text)
		if len(words) == 0 {
			return nil, nil
		}
		return containsNode{field: index, phrase: words}, nil
	case "raw":
		if strings.TrimSpace(text) == "" {
			return nil, nil
		}
		return containsNode{field: index, term: text, ann: annotations{"raw": true}}, nil
	default:
		return nil, &notImplementedError{what: fmt.Sprintf("the query type '%s'", grammar)}
	}
	var required, optional, excluded []node
	for _, item := range splitUserQuery(text) {
		mode := byte(0)
		if item[0] == '+' || item[0] == '-' {
			mode, item = item[0], item[1:]
		}
		n := userQueryItem(item, index)
		if n == nil {
			continue
		}
		switch {
		case mode == '-':
			excluded = append(excluded, n)
		case mode == '+' || strings.EqualFold(grammar, "all"):
			required = append(required, n)
		default:
			optional = append(optional, n)
		}
	}
	var pos node
	switch {
	case len(required) > 0 && len(optional) > 0:
		// optional items rank but do not restrict
		pos = rankNode{kids: append([]node{andOf(required)}, optional...)}
	case len(required) > 0:
		pos = andOf(required)
	case len(optional) > 0:
		pos = weakAndNode{kids: optional}
	default:
		return nil, nil
	}
	if len(excluded) == 0 {
		return pos, nil
	}
	kids := []node{pos}
	for _, e := range excluded {
		kids = append(kids, notNode{kid: e})
	}
	return andNode{kids: kids}, nil
}

func andOf(kids []node) node {
	if len(kids) == 1 {
		return kids[0]
	}
	return andNode{kids: kids}
}

// splitUserQuery splits on white space, keeping quoted phrases (and field:"a b") together.
func splitUserQuery(text string) []string {
	var out []string
	var cur strings.Builder
	inQuote := false
	for _, r := range text {
		switch {
		case r == '"':
			inQuote = !inQuote
			cur.WriteRune(r)
		case !inQuote && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// userQueryItem turns one item into a condition, or nil if it holds no word.
func userQueryItem(item, index string) node {
	field := index
	if f, rest, ok := strings.Cut(item, ":"); ok && f != "" && !strings.HasPrefix(f, `"`) && rest != "" {
		field, item = f, rest
		if n := numericItem(field, item); n != nil {
			return n
		}
	}
	if strings.HasPrefix(item, `"`) {
		item = strings.Trim(item, `"`)
	}
	words := tokenize(item)
	switch len(words) {
	case 0:
		return nil
	case 1:
		return containsNode{field: field, term: words[0]}
	}
	return containsNode{field: field, phrase: words}
}

// numericItem parses >n, <n, [lo;hi] and plain numbers after field:.
func numericItem(field, s string) node {
	switch {
	case strings.HasPrefix(s, ">") || strings.HasPrefix(s, "<"):
		v, err := strconv.ParseFloat(s[1:], 64)
		if err != nil {
			return nil
		}
		return compareNode{field: field, op: s[:1], num: v}
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		lo, hi, ok := strings.Cut(s[1:len(s)-1], ";")
		if !ok {
			return nil
		}
		l, err1 := strconv.ParseFloat(lo, 64)
		h, err2 := strconv.ParseFloat(hi, 64)
		if err1 != nil || err2 != nil {
			return nil
		}
		return rangeNode{field: field, lo: l, hi: h}
	}
	return nil
}
