package vespatest

import (
	"fmt"
	"strings"
)

// ParseSchema reads the text of a schemas/<name>.sd file and returns its
// schema name and its document fields with their types, "index" in their
// indexing statement, and distance-metric. Everything else (rank profiles,
// field sets, fields outside the document block) is ignored.
func ParseSchema(sd string) (Schema, error) {
	text := stripSDComments(sd)
	var sch Schema
	var stack []string // block kinds
	header := 0        // start of the current block header
	inDocument := false
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			if j := strings.IndexByte(text[i+1:], '"'); j >= 0 {
				i += j + 1
			}
		case '{':
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
				sch.Name = words[1]
			case kind == "document" && len(stack) == 1:
				inDocument = true
			case kind == "field" && inDocument && len(stack) == 2:
				f, end, err := parseSDField(text, header, i)
				if err != nil {
					return Schema{}, err
				}
				sch.Fields = append(sch.Fields, f)
				i = end
				header = i + 1
				continue
			}
			stack = append(stack, kind)
			header = i + 1
		case '}':
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
	if _, err := parseFieldType(f.Type); err != nil {
		return Field{}, 0, fmt.Errorf("field %s: %w", f.Name, err)
	}
	depth := 0
	end := -1
	for j := open; j < len(text); j++ {
		if text[j] == '{' {
			depth++
		} else if text[j] == '}' {
			depth--
			if depth == 0 {
				end = j
				break
			}
		}
	}
	if end < 0 {
		return Field{}, 0, fmt.Errorf("field %s: unbalanced '{'", f.Name)
	}
	body := text[open+1 : end]
	for line := range strings.SplitSeq(strings.NewReplacer("{", "\n", "}", "\n", ";", "\n").Replace(body), "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "indexing:"); ok {
			for _, step := range strings.Split(v, "|") {
				if strings.TrimSpace(step) == "index" {
					f.Indexed = true
				}
			}
		}
		if v, ok := strings.CutPrefix(line, "distance-metric:"); ok {
			f.DistanceMetric = strings.TrimSpace(v)
		}
	}
	return f, end, nil
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
