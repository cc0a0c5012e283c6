package schema

import (
	"strings"
)

// rankSettings are rank-profile keywords read as settings, kept as written.
var rankSettings = map[string]bool{
	"match-phase": true, "diversity": true, "num-threads-per-search": true, "min-hits-per-thread": true,
	"num-search-partitions": true, "termwise-limit": true, "post-filter-threshold": true,
	"approximate-threshold": true, "filter-first-threshold": true, "filter-first-exploration": true,
	"exploration-slack": true, "prefetch-tensors": true, "target-hits-max-adjustment-factor": true,
	"rank-properties": true, "rank": true, "rank-type": true, "weight": true,
	"ignore-default-rank-features": true, "mutate": true, "onnx-model": true, "strict": true,
	"significance": true, "weakand": true, "filter-threshold": true, "second-phase-rank-score-drop-limit": true,
}

func (p *parser) rankProfile(it *item) (*RankProfile, error) {
	name, inherits, err := p.blockHeader(it, false)
	if err != nil {
		return nil, err
	}
	rp := &RankProfile{Name: name, Line: it.line, Inherits: inherits}
	where := "rank-profile " + name
	for _, c := range it.block {
		kw := c.keyword()
		switch {
		case kw == "first-phase" || kw == "second-phase" || kw == "global-phase":
			expr, err := p.phase(c)
			if err != nil {
				return nil, err
			}
			switch kw {
			case "first-phase":
				rp.FirstPhase = expr
			case "second-phase":
				rp.SecondPhase = expr
			default:
				rp.GlobalPhase = expr
			}
		case kw == "function" || kw == "macro":
			fn, err := p.function(c)
			if err != nil {
				return nil, err
			}
			rp.Functions = append(rp.Functions, fn)
		case kw == "inputs":
			if err := p.needBlock(c); err != nil {
				return nil, err
			}
			for _, in := range c.block {
				input, err := p.input(in)
				if err != nil {
					return nil, err
				}
				rp.Inputs = append(rp.Inputs, input)
			}
		case kw == "summary-features" || kw == "match-features" || kw == "rank-features":
			feats, inh, err := p.features(c)
			if err != nil {
				return nil, err
			}
			if inh != "" {
				rp.Settings = append(rp.Settings, Setting{Key: kw + " inherits", Value: inh})
			}
			switch kw {
			case "summary-features":
				rp.SummaryFeatures = append(rp.SummaryFeatures, feats...)
			case "match-features":
				rp.MatchFeatures = append(rp.MatchFeatures, feats...)
			default:
				rp.RankFeatures = append(rp.RankFeatures, feats...)
			}
		case kw == "constants":
			if err := p.needBlock(c); err != nil {
				return nil, err
			}
			for _, k := range c.block {
				rp.Constants = append(rp.Constants, Setting{Key: strings.Join(k.words, " "), Value: k.text()})
			}
		case kw == "constant":
			rp.Constants = append(rp.Constants, Setting{Key: strings.Join(c.words[1:], " "), Value: c.text()})
		case kw == "rank-profile":
			return nil, p.unknown(c, where+" (nested rank profiles)")
		case rankSettings[kw]:
			vals, err := p.settings(c)
			if err != nil {
				return nil, err
			}
			key := strings.Join(c.words, " ")
			rp.Settings = append(rp.Settings, Setting{Key: key, Value: strings.Join(vals, "; ")})
		default:
			return nil, p.unknown(c, where)
		}
	}
	return rp, nil
}

// phase reads first-phase { expression: ...; keep-rank-count: 100 } and
// returns the expression.
func (p *parser) phase(it *item) (string, error) {
	if err := p.needBlock(it); err != nil {
		return "", err
	}
	expr := ""
	for _, c := range it.block {
		switch c.keyword() {
		case "expression":
			e, err := p.expression(c)
			if err != nil {
				return "", err
			}
			expr = e
		case "keep-rank-count", "rank-score-drop-limit", "rerank-count", "total-rerank-count",
			"total-keep-rank-count":
			if !c.hasValue {
				return "", p.errorf(c, "a value expected")
			}
		default:
			return "", p.unknown(c, it.keyword())
		}
	}
	return expr, nil
}

// expression reads expression: EXPR or expression { EXPR }, with blanks
// and newlines folded to single spaces.
func (p *parser) expression(it *item) (string, error) {
	if len(it.words) != 1 || (!it.hasValue && it.raw == "") {
		return "", p.errorf(it, "expression: EXPRESSION expected")
	}
	if it.hasValue && strings.HasPrefix(it.value, "file:") {
		return it.value, nil
	}
	e := strings.Join(strings.Fields(it.text()), " ")
	if e == "" {
		return "", p.errorf(it, "empty expression")
	}
	return e, nil
}

// function reads function [inline] NAME(PARAMS) { expression: ... }.
func (p *parser) function(it *item) (*Function, error) {
	if it.keyword() == "macro" {
		return nil, p.unknown(it, "rank-profile (macro is function since Vespa 7)")
	}
	w := it.words[1:]
	fn := &Function{}
	if len(w) > 0 && w[0] == "inline" {
		fn.Inline, w = true, w[1:]
	}
	sig := strings.Join(w, "")
	open := strings.IndexByte(sig, '(')
	if open <= 0 || !strings.HasSuffix(sig, ")") || !validName(sig[:open]) {
		return nil, p.errorf(it, "function NAME(PARAMS) expected")
	}
	fn.Name = sig[:open]
	for _, a := range strings.Split(sig[open+1:len(sig)-1], ",") {
		if a = strings.TrimSpace(a); a != "" {
			fn.Params = append(fn.Params, a)
		}
	}
	if err := p.needBlock(it); err != nil {
		return nil, err
	}
	for _, c := range it.block {
		if c.keyword() != "expression" {
			return nil, p.unknown(c, "function "+fn.Name)
		}
		e, err := p.expression(c)
		if err != nil {
			return nil, err
		}
		fn.Expression = e
	}
	if fn.Expression == "" {
		return nil, p.errorf(it, "function %s has no expression", fn.Name)
	}
	return fn, nil
}

// input reads one line of an inputs block: NAME [TYPE] [: DEFAULT].
func (p *parser) input(it *item) (*Input, error) {
	if it.hasBlock {
		return nil, p.errorf(it, "an input takes no block")
	}
	name := it.words[0]
	if inner, ok := strings.CutPrefix(name, "query("); ok && strings.HasSuffix(inner, ")") {
		inner = inner[:len(inner)-1]
		if !validName(inner) {
			return nil, p.errorf(it, "invalid input name %q", name)
		}
	} else if validName(name) {
		name = "query(" + name + ")"
	} else {
		return nil, p.errorf(it, "invalid input name %q", name)
	}
	in := &Input{Name: name}
	switch len(it.words) {
	case 1:
	case 2:
		switch t := it.words[1]; t {
		case "double", "float", "long":
		case "string":
			in.String = true
		default:
			if !strings.HasPrefix(t, "tensor") {
				return nil, p.errorf(it, "input %s: type %q (a tensor type, double, float, long or string expected)", name, t)
			}
			typ, err := ParseType(t)
			if err != nil {
				return nil, p.errorf(it, "input %s: %v", name, err)
			}
			in.Type = typ.Tensor
		}
	default:
		return nil, p.errorf(it, "input NAME TYPE [: DEFAULT] expected")
	}
	if it.hasValue {
		if it.value == "" {
			return nil, p.errorf(it, "input %s: a default value expected after ':'", name)
		}
		in.Default = it.value
	}
	return in, nil
}

// features reads summary-features: a b, or summary-features [inherits P]
// { a b }, and returns the features and the inherited profile.
func (p *parser) features(it *item) ([]string, string, error) {
	inherits := ""
	switch {
	case len(it.words) == 3 && it.words[1] == "inherits" && it.hasBlock:
		inherits = it.words[2]
	case len(it.words) != 1:
		return nil, "", p.errorf(it, "%s: FEATURES or %s { FEATURES } expected", it.keyword(), it.keyword())
	}
	return splitFeatures(it.text()), inherits, nil
}

// splitFeatures splits a feature list at blanks outside parentheses:
// "attribute(a) bm25(title) fieldMatch(title).completeness".
func splitFeatures(s string) []string {
	var out []string
	depth, start := 0, -1
	for i := 0; i <= len(s); i++ {
		c := byte(' ')
		if i < len(s) {
			c = s[i]
		}
		switch {
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') && depth <= 0:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}
