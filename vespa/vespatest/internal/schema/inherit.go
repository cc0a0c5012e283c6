package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Inherit returns the schemas with what each inherits made its own, as
// Vespa's config model builds them (config-model at 1f79d33dd014):
//
//   - a document type has the fields and struct types of the document types
//     it inherits, at any depth (ConvertParsedTypes.fillDataTypes,
//     DocumentType.inherit): the inherited fields first, then its own. A
//     field it declares again must have the parent's type
//     (DocumentType.verifyTypeConsistency); the child's declaration is the
//     one used. Its own struct types shadow inherited ones of the same name
//     (ParsedDocument.findParsedStruct).
//   - a schema has the rank profiles and field sets of the schema it inherits
//     (RankProfileRegistry.rankProfilesOf, FieldSets.userFieldSets), its own
//     of the same name winning. Inheriting a document type without its
//     schema brings no profiles: a profile of the parent schema is then not
//     queryable in the child, though a child's profile may inherit it by
//     name (the search package looks for it, RankProfileRegistry.resolve).
//     A parent's profile that inherits one the child declares again is
//     resolved by Vespa in the parent; the emulator, which keeps one profile
//     of a name per schema, refuses that application (NotModelledError).
//
// A mistake is refused with the config model's words
// (InheritanceResolver.resolveInheritance, Schema.validate), in its order:
// an unknown parent schema, an unknown parent document type, a cycle of
// document types, a cycle of schemas, a field redeclared with another type,
// a schema that inherits a schema but not its document type. The schemas
// given are not changed. A schema whose RankProfiles is nil (not modelled)
// gets its parent's, and keeps nil only if the parent's is nil too.
func Inherit(schemas []Schema) ([]Schema, error) {
	byName := make(map[string]*Schema, len(schemas))
	for i := range schemas {
		byName[schemas[i].Name] = &schemas[i]
	}
	for _, s := range schemas { // InheritanceResolver.resolveSchemaInheritance
		if s.Inherits != "" && byName[s.Inherits] == nil {
			return nil, fmt.Errorf("schema '%s' inherits '%s', but this schema does not exist", s.Name, s.Inherits)
		}
	}
	for _, s := range schemas { // resolveDocumentInheritance
		for _, p := range s.DocumentInherits {
			if byName[p] == nil {
				return nil, fmt.Errorf("document %s inherits from unavailable document %s", s.Name, p)
			}
		}
	}
	if err := checkCycles("documents", schemas, func(s *Schema) []string { return s.DocumentInherits }, byName); err != nil {
		return nil, err
	}
	if err := checkCycles("schemas", schemas, func(s *Schema) []string {
		if s.Inherits == "" {
			return nil
		}
		return []string{s.Inherits}
	}, byName); err != nil {
		return nil, err
	}
	r := resolver{byName: byName, docs: map[string]*Schema{}, full: map[string]*Schema{}}
	for _, s := range schemas {
		if _, err := r.document(s.Name); err != nil {
			return nil, err
		}
	}
	for _, s := range schemas { // Schema.validate
		if s.Inherits != "" && !slices.Contains(s.DocumentInherits, s.Inherits) {
			return nil, fmt.Errorf("schema '%s' inherits '%s', but its document type does not inherit the parent's document type", s.Name, s.Inherits)
		}
	}
	out := make([]Schema, len(schemas))
	for i, s := range schemas {
		full, err := r.schema(s.Name)
		if err != nil {
			return nil, err
		}
		out[i] = *full
	}
	return out, nil
}

// checkCycles refuses a cycle of parents (documents or schemas: what) as
// InheritanceResolver.inheritanceCycleCheck does: "Inheritance/reference
// cycle for documents: a -> b -> a".
func checkCycles(what string, schemas []Schema, parents func(*Schema) []string, byName map[string]*Schema) error {
	var walk func(name string, path []string) error
	walk = func(name string, path []string) error {
		if slices.Contains(path, name) {
			return fmt.Errorf("Inheritance/reference cycle for %s: %s", what, strings.Join(append(path, name), " -> ")) //nolint:staticcheck // ST1005: Vespa's text
		}
		path = append(path, name)
		for _, p := range parents(byName[name]) {
			if err := walk(p, path); err != nil {
				return err
			}
		}
		return nil
	}
	for _, s := range schemas {
		if err := walk(s.Name, nil); err != nil {
			return err
		}
	}
	return nil
}

// resolver memoizes the resolved documents and schemas by name; the
// parents exist and have no cycle (checked before).
type resolver struct {
	byName map[string]*Schema
	docs   map[string]*Schema // the schema with its document's inherited fields and structs
	full   map[string]*Schema // docs plus the inherited profiles and field sets
}

// document resolves the fields and structs of the document type name.
func (r *resolver) document(name string) (*Schema, error) {
	if d, ok := r.docs[name]; ok {
		return d, nil
	}
	s := *r.byName[name]
	// Vespa adds the document's own fields, then inherits each parent in
	// turn, checking every field it has so far against the parent's.
	have := map[string]Field{}
	for _, f := range s.Fields {
		have[f.Name] = f
	}
	var inherited []Field
	var structs map[string][]Field // the parents' struct types, resolved
	for _, pn := range s.DocumentInherits {
		p, err := r.document(pn)
		if err != nil {
			return nil, err
		}
		for _, pf := range p.Fields {
			if f, ok := have[pf.Name]; ok {
				if normalType(f.Type) != normalType(pf.Type) {
					return nil, fmt.Errorf("Inheritance type mismatch: field \"%s\" in datatype \"%s\" must have same datatype as in parent document type \"%s\"", //nolint:staticcheck // ST1005: Vespa's text
						pf.Name, name, pn)
				}
				continue
			}
			have[pf.Name] = pf
			inherited = append(inherited, pf)
		}
		for n, st := range p.Structs {
			if _, ok := structs[n]; !ok {
				if structs == nil {
					structs = map[string][]Field{}
				}
				structs[n] = st
			}
		}
	}
	if len(inherited) > 0 {
		s.Fields = append(inherited, s.Fields...)
	}
	own, err := inheritStructs(name, s.Structs, s.StructInherits, structs)
	if err != nil {
		return nil, err
	}
	if len(structs) > 0 {
		maps.Copy(structs, own)
		s.Structs = structs
	} else {
		s.Structs = own
	}
	r.docs[name] = &s
	return &s, nil
}

// inheritStructs returns the struct types own of document doc with the
// fields of the structs each inherits (parents) first, as Vespa's
// StructDataType.inherit does; a parent is one of own or of inherited (the
// inherited documents' structs, resolved). It refuses what
// ConvertSchemaCollection.resolveStructInheritance and
// ConvertParsedTypes.fillDataTypes refuse, in their words: a parent it
// cannot find, a cycle, a field declared again. own is not changed.
func inheritStructs(doc string, own map[string][]Field, parents map[string][]string, inherited map[string][]Field) (map[string][]Field, error) {
	if len(parents) == 0 {
		return own, nil
	}
	lookup := func(n string) ([]Field, bool) {
		if fs, ok := own[n]; ok {
			return fs, true
		}
		fs, ok := inherited[n]
		return fs, ok
	}
	for _, name := range slices.Sorted(maps.Keys(parents)) {
		if _, isOwn := own[name]; !isOwn {
			continue
		}
		for _, p := range parents[name] {
			if _, ok := lookup(p); !ok {
				return nil, fmt.Errorf("Can not find parent for struct '%s' in document '%s'", name, doc) //nolint:staticcheck // ST1005: Vespa's text
			}
		}
	}
	has := func(fs []Field, n string) bool {
		return slices.ContainsFunc(fs, func(g Field) bool { return g.Name == n })
	}
	done := map[string][]Field{}
	var resolve func(name string, path []string) ([]Field, error)
	resolve = func(name string, path []string) ([]Field, error) {
		if fs, ok := done[name]; ok {
			return fs, nil
		}
		if _, isOwn := own[name]; !isOwn {
			return inherited[name], nil // resolved in its own document
		}
		if slices.Contains(path, name) {
			return nil, fmt.Errorf("Inheritance/reference cycle for structs: %s", strings.Join(append(path, name), " -> ")) //nolint:staticcheck // ST1005: Vespa's text
		}
		var all []Field
		for _, p := range parents[name] {
			pf, err := resolve(p, append(path, name))
			if err != nil {
				return nil, err
			}
			for _, f := range own[name] {
				if !has(pf, f.Name) {
					continue
				}
				from := p // Vespa names the parent's parent that declares it, if one does
				for _, base := range parents[p] {
					if bf, err := resolve(base, nil); err == nil && has(bf, f.Name) {
						from = base
					}
				}
				return nil, fmt.Errorf("In document %s: struct %s cannot inherit from %s and redeclare field %s", doc, name, from, f.Name) //nolint:staticcheck // ST1005: Vespa's text
			}
			all = append(all, pf...)
		}
		all = append(all, own[name]...)
		done[name] = all
		return all, nil
	}
	out := maps.Clone(own)
	for _, name := range slices.Sorted(maps.Keys(parents)) {
		if _, isOwn := own[name]; !isOwn {
			continue // no such struct: nothing inherits
		}
		fs, err := resolve(name, nil)
		if err != nil {
			return nil, err
		}
		out[name] = fs
	}
	return out, nil
}

// schema adds to the resolved document of name the rank profiles and field
// sets of the schema it inherits.
func (r *resolver) schema(name string) (*Schema, error) {
	if s, ok := r.full[name]; ok {
		return s, nil
	}
	s := *r.docs[name]
	if s.Inherits != "" {
		p, err := r.schema(s.Inherits)
		if err != nil {
			return nil, err
		}
		if p.RankProfiles != nil {
			own := s.RankProfiles
			s.RankProfiles = slices.Clone(own)
			if s.RankProfiles == nil {
				s.RankProfiles = []RankProfile{}
			}
			declared := func(n string) bool { return slices.ContainsFunc(own, func(o RankProfile) bool { return o.Name == n }) }
			for _, rp := range p.RankProfiles {
				if declared(rp.Name) {
					continue
				}
				if q := overriddenAncestor(rp, p.RankProfiles, declared); q != "" {
					return nil, &NotModelledError{What: fmt.Sprintf("schema '%s': rank profile '%s' of schema '%s' inherits '%s', which '%s' declares again "+
						"(Vespa resolves the parent's profile in the parent schema; the emulator keeps one profile of a name per schema)",
						name, rp.Name, s.Inherits, q, name)}
				}
				s.RankProfiles = append(s.RankProfiles, rp)
			}
		}
		if len(p.Fieldsets) > 0 {
			fs := maps.Clone(p.Fieldsets)
			maps.Copy(fs, s.Fieldsets)
			s.Fieldsets = fs
		}
	}
	r.full[name] = &s
	return &s, nil
}

// overriddenAncestor returns the first profile rp inherits, directly or
// through others of profiles, that declared reports; "" for none.
func overriddenAncestor(rp RankProfile, profiles []RankProfile, declared func(string) bool) string {
	seen := map[string]bool{}
	queue := slices.Clone(rp.Inherits)
	for len(queue) > 0 { // each profile is expanded once
		n := queue[0]
		queue = queue[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		if declared(n) {
			return n
		}
		if i := slices.IndexFunc(profiles, func(p RankProfile) bool { return p.Name == n }); i >= 0 {
			queue = append(queue, profiles[i].Inherits...)
		}
	}
	return ""
}

// NotModelledError is a construct of a valid application that the emulator
// does not model: it refuses the application, naming it, rather than serve
// answers Vespa would not give.
type NotModelledError struct{ What string }

func (e *NotModelledError) Error() string { return "not modelled by the emulator: " + e.What }

// normalType is a field type's text without spaces: "map<string, int>" and
// "map<string,int>" are the same type.
func normalType(t string) string { return strings.Join(strings.Fields(t), "") }
