package search

import "strings"

// schemaSet indexes the corpus schemas; none means lenient mode.
type schemaSet struct {
	types    map[string]map[string]Field       // document type to field name to field
	order    map[string][]string               // document type to field names in declaration order
	profiles map[string]map[string]RankProfile // document type to profile name to profile
	// fieldsets maps a document type to its field sets (name to fields).
	fieldsets map[string]map[string][]string
	// docParents maps a document type to those its document inherits.
	docParents map[string][]string
}

func newSchemaSet(ss []Schema) schemaSet {
	out := schemaSet{types: map[string]map[string]Field{}, order: map[string][]string{},
		profiles: map[string]map[string]RankProfile{}, fieldsets: map[string]map[string][]string{},
		docParents: map[string][]string{}}
	for _, s := range ss {
		out.docParents[s.Name] = s.DocumentInherits
		out.fieldsets[s.Name] = s.Fieldsets
		if s.RankProfiles != nil { // nil: not modelled, no entry
			ps := map[string]RankProfile{}
			for _, p := range s.RankProfiles {
				ps[p.Name] = p
			}
			out.profiles[s.Name] = ps
		}
		m := map[string]Field{}
		for _, f := range s.Fields {
			m[f.Name] = f
			out.order[s.Name] = append(out.order[s.Name], f.Name)
		}
		out.types[s.Name] = m
	}
	return out
}

func (s schemaSet) lenient() bool { return len(s.types) == 0 }

// field returns the declaration of the top-level field of path in doc type t.
func (s schemaSet) field(t, path string) (Field, bool) {
	top, _, _ := strings.Cut(path, ".")
	f, ok := s.types[t][top]
	return f, ok
}

// anyField returns the declaration of the top-level field of path in any schema.
func (s schemaSet) anyField(path string) (Field, bool) {
	top, _, _ := strings.Cut(path, ".")
	for _, fs := range s.types {
		if f, ok := fs[top]; ok {
			return f, true
		}
	}
	return Field{}, false
}

func isTensorType(t string) bool { return strings.HasPrefix(strings.TrimSpace(t), "tensor") }

// isStringType reports whether values of the Vespa type t are (collections of) strings.
func isStringType(t string) bool {
	return t == "string" || strings.Contains(t, "<string>") || strings.HasPrefix(t, "map<string")
}
