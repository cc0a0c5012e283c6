package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Parse reads the text of a schemas/<name>.sd file and returns its
// schema name and the schema and document types it inherits; its own
// document fields with their types, indexing statements and
// distance-metric; and its rank profiles (inherits, the first-, second- and
// global-phase expressions, functions without arguments, and inputs);
// its field sets; and the summary- and match-features of its profiles.
// Everything else (document summaries, fields outside the document block)
// is ignored.
func Parse(sd string) (Schema, error) {
	text := stripSDComments(sd)
	sch := Schema{RankProfiles: []RankProfile{}} // declared: none unless the file has some
	var stack []string                           // block kinds
	header := 0                                  // start of the current block header
	inDocument := false
	parens := 0 // a brace inside parentheses is a tensor type's mapped dimension, "(cat{})"
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '(':
			parens++
		case ')':
			parens = max(parens-1, 0)
		case '"':
			if j := strings.IndexByte(text[i+1:], '"'); j >= 0 {
				i += j + 1
			}
		case '{':
			if parens > 0 {
				continue
			}
			words := strings.Fields(text[header:i])
			kind := "other"
			if len(words) > 0 {
				kind = words[0]
			}
			switch {
			case (kind == "schema" || kind == "search") && len(stack) == 0:
				if len(words) < 2 {
					return Schema{}, fmt.Errorf("schema without a name")
				}
				name, inherits, err := headerInherits(words)
				if err != nil {
					return Schema{}, err
				}
				sch.Name = name
				switch len(inherits) {
				case 0:
				case 1:
					sch.Inherits = inherits[0]
				default: // ConvertParsedSchemas.convertToSchemas
					return Schema{}, fmt.Errorf("schema %s cannot inherit more than once", name)
				}
			case kind == "document" && len(stack) == 1:
				inDocument = true
				if _, inherits, err := headerInherits(words); err != nil {
					return Schema{}, err
				} else if len(inherits) > 0 {
					sch.DocumentInherits = inherits
				}
			case kind == "rank-profile" && len(stack) == 1:
				end := blockEnd(text, i)
				if end < 0 {
					return Schema{}, fmt.Errorf("rank-profile: unbalanced '{'")
				}
				p, err := parseRankProfile(words, text[i+1:end])
				if err != nil {
					return Schema{}, err
				}
				sch.RankProfiles = append(sch.RankProfiles, p)
				i, header = end, end+1
				continue
			case kind == "fieldset" && len(stack) == 1 && len(words) > 1:
				end := blockEnd(text, i)
				if end < 0 {
					return Schema{}, fmt.Errorf("fieldset: unbalanced '{'")
				}
				if sch.Fieldsets == nil {
					sch.Fieldsets = map[string][]string{}
				}
				sch.Fieldsets[words[1]] = parseFieldsetFields(text[i+1 : end])
				i, header = end, end+1
				continue
			case kind == "struct" && inDocument && len(stack) == 2 && len(words) > 1:
				end := blockEnd(text, i)
				if end < 0 {
					return Schema{}, fmt.Errorf("struct %s: unbalanced '{'", words[1])
				}
				name, parents, err := headerInherits(words)
				if err != nil {
					return Schema{}, err
				}
				fields, err := parseStructFields(text[i+1 : end])
				if err != nil {
					return Schema{}, fmt.Errorf("struct %s: %w", name, err)
				}
				if sch.Structs == nil {
					sch.Structs = map[string][]Field{}
				}
				sch.Structs[name] = fields
				if len(parents) > 0 {
					if sch.StructInherits == nil {
						sch.StructInherits = map[string][]string{}
					}
					sch.StructInherits[name] = parents
				}
				i, header = end, end+1
				continue
			case kind == "field" && inDocument && len(stack) == 2:
				f, end, err := parseSDField(text, header, i)
				if err != nil {
					return Schema{}, err
				}
				sch.Fields = append(sch.Fields, f)
				i, header = end, end+1
				continue
			}
			stack = append(stack, kind)
			header = i + 1
		case '}':
			if parens > 0 {
				continue
			}
			if len(stack) == 0 {
				return Schema{}, fmt.Errorf("unbalanced '}'")
			}
			if stack[len(stack)-1] == "document" {
				inDocument = false
			}
			stack = stack[:len(stack)-1]
			header = i + 1
		case ';':
			header = i + 1
		}
	}
	if len(stack) != 0 {
		return Schema{}, fmt.Errorf("unbalanced '{'")
	}
	if sch.Name == "" {
		return Schema{}, fmt.Errorf("no schema declaration found")
	}
	return sch, nil
}

// headerInherits reads the header "kind name [inherits a, b]" (split into
// words) of a schema or document block: its name and what it inherits.
func headerInherits(words []string) (string, []string, error) {
	words = strings.Fields(strings.ReplaceAll(strings.Join(words, " "), ",", " "))
	if len(words) < 2 {
		return "", nil, nil // "document {": named as its schema
	}
	if words[1] == "inherits" { // "document inherits base {"
		words = append([]string{words[0], ""}, words[1:]...)
	}
	if len(words) == 2 {
		return words[1], nil, nil
	}
	if words[2] != "inherits" || len(words) == 3 {
		return "", nil, fmt.Errorf("%s %s: malformed header %q", words[0], words[1], strings.Join(words, " "))
	}
	return words[1], words[3:], nil
}

// parseSDField parses "field <name> type <type> { body }" whose header spans
// text[start:open]; it returns the field and the index of the closing brace.
func parseSDField(text string, start, open int) (Field, int, error) {
	head := strings.TrimSpace(text[start:open])
	rest, ok := strings.CutPrefix(head, "field")
	if !ok {
		return Field{}, 0, fmt.Errorf("malformed field declaration %q", head)
	}
	name, typ, ok := strings.Cut(strings.TrimSpace(rest), " type ")
	if !ok {
		// "field x type y" with tabs or several spaces
		parts := strings.Fields(rest)
		if len(parts) < 3 || parts[1] != "type" {
			return Field{}, 0, fmt.Errorf("malformed field declaration %q", head)
		}
		name, typ = parts[0], strings.Join(parts[2:], "")
	}
	f := Field{Name: strings.TrimSpace(name), Type: strings.Join(strings.Fields(typ), "")}
	if _, err := ParseFieldType(f.Type); err != nil {
		return Field{}, 0, fmt.Errorf("field %s: %w", f.Name, err)
	}
	end := blockEnd(text, open)
	if end < 0 {
		return Field{}, 0, fmt.Errorf("field %s: unbalanced '{'", f.Name)
	}
	body := text[open+1 : end]
	if m := indexingBlock.FindStringSubmatch(body); m != nil {
		f.Indexing = m[1]
	} else if m := indexingLine.FindStringSubmatch(body); m != nil {
		f.Indexing = m[1]
	}
	if f.Indexing != "" {
		steps := indexingSteps(f.Indexing)
		f.Indexing = strings.Join(steps, " | ")
		f.Indexed = slices.Contains(steps, "index")
	}
	for line := range strings.SplitSeq(strings.NewReplacer("{", "\n", "}", "\n", ";", "\n").Replace(body), "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "distance-metric:"); ok {
			f.DistanceMetric = strings.TrimSpace(v)
		}
	}
	return f, end, nil
}

// parseStructFields reads the "field <name> type <type> {...}" declarations
// of a struct block.
func parseStructFields(body string) ([]Field, error) {
	var out []Field
	for _, m := range structField.FindAllStringSubmatch(body, -1) {
		typ := strings.Join(strings.Fields(m[2]), "")
		if _, err := ParseFieldType(typ); err != nil {
			return nil, fmt.Errorf("field %s: %w", m[1], err)
		}
		out = append(out, Field{Name: m[1], Type: typ})
	}
	return out, nil
}

// structField is one field declaration of a struct, up to its body's brace.
var structField = regexp.MustCompile(`field\s+([A-Za-z_][A-Za-z0-9_]*)\s+type\s+([^{\n]+?)\s*(?:\{|\n|$)`)

var (
	// indexingLine is "indexing: summary | index" up to the end of the line.
	indexingLine = regexp.MustCompile(`(?m)^\s*indexing\s*:\s*([^\n{}]*)`)
	// indexingBlock is "indexing { …; … }".
	indexingBlock = regexp.MustCompile(`(?m)^\s*indexing\s*\{([^{}]*)\}`)
)

// blockEnd returns the index of the brace closing the one at text[open], or
// -1. Braces inside parentheses, the mapped dimensions of tensor types
// ("tensor<float>(cat{},x[2])" in a field's type or an input's), are not
// blocks.
func blockEnd(text string, open int) int {
	depth, parens := 0, 0
	for j := open; j < len(text); j++ {
		switch text[j] {
		case '(':
			parens++
		case ')':
			parens = max(parens-1, 0)
		case '{':
			if parens == 0 {
				depth++
			}
		case '}':
			if parens > 0 {
				continue
			}
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// parseRankProfile reads "rank-profile name [inherits a, b]" (header, split
// into words) and the text between its braces.
func parseRankProfile(header []string, body string) (RankProfile, error) {
	words := strings.Fields(strings.ReplaceAll(strings.Join(header, " "), ",", " "))
	if len(words) < 2 {
		return RankProfile{}, fmt.Errorf("rank-profile without a name")
	}
	p := RankProfile{Name: words[1]}
	if len(words) > 2 {
		if words[2] != "inherits" || len(words) == 3 {
			return RankProfile{}, fmt.Errorf("rank-profile %s: malformed header %q", p.Name, strings.Join(words, " "))
		}
		p.Inherits = words[3:]
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '{' {
			continue
		}
		end := blockEnd(body, i)
		if end < 0 {
			return RankProfile{}, fmt.Errorf("rank-profile %s: unbalanced '{'", p.Name)
		}
		head := body[:i]
		if j := strings.LastIndexAny(head, "\n};"); j >= 0 {
			head = head[j+1:]
		}
		head = strings.TrimSpace(head)
		inner := body[i+1 : end]
		switch kind, rest, _ := strings.Cut(head, " "); kind {
		case "first-phase":
			p.FirstPhase = phaseExpression(inner)
		case "second-phase":
			p.SecondPhase = phaseExpression(inner)
		case "global-phase":
			p.GlobalPhase = phaseExpression(inner)
		case "function", "macro":
			name, args, _ := strings.Cut(strings.TrimSpace(rest), "(")
			args = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(args), ")"))
			if args == "" { // functions with arguments are not modelled
				if p.Functions == nil {
					p.Functions = map[string]string{}
				}
				p.Functions[strings.TrimSpace(name)] = phaseExpression(inner)
			}
		case "inputs":
			p.Inputs, p.InputTypes = parseInputs(inner)
		case "summary-features":
			p.SummaryFeatures = splitFeatures(inner)
		case "match-features":
			p.MatchFeatures = splitFeatures(inner)
		}
		i = end
	}
	// The one-line forms, "summary-features: a b" (outside nested blocks).
	depth := 0
	for line := range strings.SplitSeq(body, "\n") {
		t := strings.TrimSpace(line)
		if depth == 0 {
			for _, kind := range []string{"summary-features", "match-features"} {
				rest, ok := strings.CutPrefix(t, kind)
				if !ok {
					continue
				}
				if rest, ok = strings.CutPrefix(strings.TrimSpace(rest), ":"); ok {
					if kind == "summary-features" {
						p.SummaryFeatures = splitFeatures(rest)
					} else {
						p.MatchFeatures = splitFeatures(rest)
					}
				}
			}
		}
		depth += strings.Count(t, "{") - strings.Count(t, "}")
	}
	return p, nil
}

// splitFeatures splits a feature list on whitespace outside parentheses:
// "bm25(title) attribute( year )" is two features.
func splitFeatures(s string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case (r == ' ' || r == '\t' || r == '\n' || r == '\r') && depth == 0:
			flush()
			continue
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

// parseFieldsetFields reads "fields: a, b" of a fieldset block.
func parseFieldsetFields(body string) []string {
	j := strings.Index(body, "fields")
	if j < 0 {
		return nil
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(body[j+len("fields"):]), ":")
	if !ok {
		return nil
	}
	line, _, _ := strings.Cut(rest, "\n")
	var out []string
	for f := range strings.SplitSeq(line, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// phaseExpression returns the expression of a phase or function body:
// "expression: text" up to the end of its line, or "expression { text }".
func phaseExpression(body string) string {
	j := strings.Index(body, "expression")
	if j < 0 {
		return ""
	}
	rest := strings.TrimLeft(body[j+len("expression"):], " \t\r\n")
	switch {
	case strings.HasPrefix(rest, ":"):
		line, _, _ := strings.Cut(rest[1:], "\n")
		return strings.TrimSpace(line)
	case strings.HasPrefix(rest, "{"):
		if end := blockEnd(rest, 0); end > 0 {
			return strings.Join(strings.Fields(rest[1:end]), " ")
		}
	}
	return ""
}

// parseInputs reads the lines of an inputs block: "query(w) double: 0.5",
// "query(q) tensor<float>(x[384])", "query(w): 1": each input's default
// value and, where it declares one, its type.
func parseInputs(body string) (defaults, types map[string]string) {
	out := map[string]string{}
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, rest := line, ""
		if j := strings.IndexByte(line, ')'); strings.HasPrefix(line, "query(") && j > 0 {
			name, rest = line[:j+1], line[j+1:]
		} else if f := strings.Fields(line); len(f) > 0 {
			name, rest = "query("+strings.TrimSuffix(f[0], ":")+")", strings.TrimPrefix(line, f[0])
		}
		def, typ := "", rest
		if k := strings.LastIndexByte(rest, ':'); k >= 0 && !strings.ContainsAny(rest[k:], "[]{}") {
			def, typ = strings.TrimSpace(rest[k+1:]), rest[:k]
		}
		out[name] = def
		if typ = strings.Join(strings.Fields(typ), ""); typ != "" {
			if types == nil {
				types = map[string]string{}
			}
			types[name] = typ
		}
	}
	return out, types
}

func stripSDComments(s string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
