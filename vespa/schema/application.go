package schema

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// Application is the schemas of an application package, with inheritance
// resolved and names checked. It is immutable once built and safe for
// concurrent use.
type Application struct {
	// Schemas are the schemas, sorted by name.
	Schemas []*Schema

	byName map[string]*Schema
	byDoc  map[string]*Document
	checks map[string]*docCheck // per document type, for Check*
}

// ParseDir reads the schemas of the application package in dir: every
// schemas/*.sd file (and, as older packages have them,
// searchdefinitions/*.sd). A package without any is an error.
func ParseDir(dir string) (*Application, error) {
	var files []string
	for _, sub := range []string{"schemas", "searchdefinitions"} {
		m, err := filepath.Glob(filepath.Join(dir, sub, "*.sd"))
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("schema: no schemas/*.sd in %s", dir)
	}
	sort.Strings(files)
	var schemas []*Schema
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		s, err := Parse(f, src)
		if err != nil {
			return nil, err
		}
		schemas = append(schemas, s)
	}
	return NewApplication(schemas...)
}

// NewApplication builds an application of schemas: it resolves schema,
// document, struct, rank-profile and document-summary inheritance and
// checks that every name it uses exists (a struct field type, a reference's
// document type, a field set's fields, a parent), and that no schema or
// field is declared twice. Errors are [*Error]s naming the file and line.
func NewApplication(schemas ...*Schema) (*Application, error) {
	a := &Application{byName: map[string]*Schema{}, byDoc: map[string]*Document{}}
	for _, s := range schemas {
		if s == nil || s.Document == nil {
			return nil, errors.New("schema: a schema without a document")
		}
		if _, dup := a.byName[s.Name]; dup {
			return nil, newError(s.File, s.Line, "schema "+s.Name, "schema %s declared twice", s.Name)
		}
		a.byName[s.Name] = s
		a.byDoc[s.Document.Name] = s.Document
		a.Schemas = append(a.Schemas, s)
		s.app = a
		for _, rp := range s.RankProfiles {
			rp.schema = s
		}
	}
	slices.SortFunc(a.Schemas, func(x, y *Schema) int {
		if x.Name < y.Name {
			return -1
		}
		if x.Name > y.Name {
			return 1
		}
		return 0
	})
	for _, s := range a.Schemas {
		if s.Inherits != "" {
			parent, ok := a.byName[s.Inherits]
			if !ok {
				return nil, newError(s.File, s.Line, "schema "+s.Name, "inherits unknown schema %s", s.Inherits)
			}
			if !slices.Contains(s.Document.Inherits, parent.Document.Name) {
				s.Document.Inherits = append(s.Document.Inherits, parent.Document.Name)
			}
		}
	}
	for _, s := range a.Schemas {
		if _, err := a.resolveDocument(s, s.Document, nil); err != nil {
			return nil, err
		}
	}
	for _, s := range a.Schemas {
		if err := a.checkSchema(s); err != nil {
			return nil, err
		}
	}
	a.checks = map[string]*docCheck{}
	for _, s := range a.Schemas {
		a.checks[s.Document.Name] = newDocCheck(a, s)
	}
	return a, nil
}

// Schema returns the named schema, nil if there is none.
func (a *Application) Schema(name string) *Schema { return a.byName[name] }

// Document returns the named document type, nil if there is none.
func (a *Application) Document(name string) *Document { return a.byDoc[name] }

// schemaOf returns the schema whose document is d.
func (a *Application) schemaOf(d *Document) *Schema {
	for _, s := range a.Schemas {
		if s.Document == d {
			return s
		}
	}
	return nil
}

// resolveDocument sets d's fields: those of its parents, then its own.
func (a *Application) resolveDocument(s *Schema, d *Document, path []string) ([]*Field, error) {
	if d.all != nil {
		return d.all, nil
	}
	if slices.Contains(path, d.Name) {
		return nil, newError(s.File, d.Line, "document "+d.Name, "inheritance cycle: %v", append(path, d.Name))
	}
	var all []*Field
	byName := map[string]*Field{}
	for _, pn := range d.Inherits {
		pd, ok := a.byDoc[pn]
		if !ok {
			if pn == "document" {
				continue // the root every document type inherits
			}
			return nil, newError(s.File, d.Line, "document "+d.Name, "inherits unknown document %s", pn)
		}
		fields, err := a.resolveDocument(a.schemaOf(pd), pd, append(path, d.Name))
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			if _, dup := byName[f.Name]; !dup {
				all = append(all, f)
				byName[f.Name] = f
			}
		}
	}
	for _, f := range d.Fields {
		if prev, dup := byName[f.Name]; dup {
			return nil, newError(s.File, f.Line, "field "+f.Name, "field %s declared twice (also at line %d)", f.Name, prev.Line)
		}
		all = append(all, f)
		byName[f.Name] = f
	}
	d.all, d.byName = all, byName
	return all, nil
}

// AllFields returns the document's fields: the inherited ones first, then
// its own, in declaration order. Before [NewApplication] it has only its
// own.
func (d *Document) AllFields() []*Field {
	if d.all == nil {
		return d.Fields
	}
	return d.all
}

// Field returns the named field of the document, inherited ones included.
func (d *Document) Field(name string) *Field {
	if d.byName != nil {
		return d.byName[name]
	}
	for _, f := range d.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Struct returns the named struct visible in the schema: the document's, a
// parent document's, or the schema's.
func (a *Application) Struct(s *Schema, name string) *StructType {
	return a.structIn(s.Document, s, name, 0)
}

func (a *Application) structIn(d *Document, s *Schema, name string, depth int) *StructType {
	if depth > 32 {
		return nil
	}
	for _, st := range d.Structs {
		if st.Name == name {
			return st
		}
	}
	if s != nil {
		for _, st := range s.Structs {
			if st.Name == name {
				return st
			}
		}
	}
	for _, pn := range d.Inherits {
		if pd := a.byDoc[pn]; pd != nil {
			if st := a.structIn(pd, a.schemaOf(pd), name, depth+1); st != nil {
				return st
			}
		}
	}
	return nil
}

// StructFields returns the fields of st, those of the structs it inherits
// first.
func (a *Application) StructFields(s *Schema, st *StructType) []*Field {
	var out []*Field
	seen := map[string]bool{}
	var walk func(st *StructType, depth int)
	walk = func(st *StructType, depth int) {
		if depth > 32 || seen[st.Name] {
			return
		}
		seen[st.Name] = true
		for _, pn := range st.Inherits {
			if p := a.Struct(s, pn); p != nil {
				walk(p, depth+1)
			}
		}
		out = append(out, st.Fields...)
	}
	walk(st, 0)
	return out
}

// checkSchema checks the names a schema uses.
func (a *Application) checkSchema(s *Schema) error {
	var checkType func(f *Field, t *Type) error
	checkType = func(f *Field, t *Type) error {
		switch t.Kind {
		case Struct:
			if a.Struct(s, t.Struct) == nil {
				return newError(s.File, f.Line, "field "+f.Name, "unknown type %s (no such struct)", t.Struct)
			}
		case Reference:
			if a.byDoc[t.Reference] == nil {
				return newError(s.File, f.Line, "field "+f.Name, "reference to unknown document type %s", t.Reference)
			}
		case Array, WeightedSet, Map:
			return checkType(f, t.Elem)
		}
		return nil
	}
	structs := slices.Concat(s.Structs, s.Document.Structs)
	for _, st := range structs {
		for _, pn := range st.Inherits {
			if a.Struct(s, pn) == nil {
				return newError(s.File, st.Line, "struct "+st.Name, "inherits unknown struct %s", pn)
			}
		}
		for _, f := range st.Fields {
			if err := checkType(f, f.Type); err != nil {
				return err
			}
		}
	}
	for _, f := range slices.Concat(s.Document.AllFields(), s.Fields) {
		if err := checkType(f, f.Type); err != nil {
			return err
		}
	}
	known := func(name string) bool {
		if s.Document.Field(name) != nil {
			return true
		}
		for _, f := range s.Fields {
			if f.Name == name {
				return true
			}
		}
		for _, f := range s.ImportedFields {
			if f.Name == name {
				return true
			}
		}
		return false
	}
	for _, fs := range s.FieldSets {
		for _, n := range fs.Fields {
			if !known(n) {
				return newError(s.File, fs.Line, "fieldset "+fs.Name, "unknown field %s", n)
			}
		}
	}
	profiles := map[string]*RankProfile{}
	for _, rp := range s.RankProfiles {
		if _, dup := profiles[rp.Name]; dup {
			return newError(s.File, rp.Line, "rank-profile "+rp.Name, "rank profile %s declared twice", rp.Name)
		}
		profiles[rp.Name] = rp
		rp.schema = s
	}
	for _, rp := range s.RankProfiles {
		for _, pn := range rp.Inherits {
			if pn == "default" || pn == "unranked" {
				continue
			}
			if a.profile(s, pn) == nil {
				return newError(s.File, rp.Line, "rank-profile "+rp.Name, "inherits unknown rank profile %s", pn)
			}
		}
		if _, err := rp.allInputs(nil); err != nil {
			return newError(s.File, rp.Line, "rank-profile "+rp.Name, "%v", err)
		}
	}
	summaries := map[string]bool{"default": true}
	for _, ds := range s.Summaries {
		summaries[ds.Name] = true
	}
	for _, ds := range s.Summaries {
		for _, pn := range ds.Inherits {
			if !summaries[pn] {
				return newError(s.File, ds.Line, "document-summary "+ds.Name, "inherits unknown document summary %s", pn)
			}
		}
	}
	return nil
}

// profile finds a rank profile by name in s or the schemas it inherits.
func (a *Application) profile(s *Schema, name string) *RankProfile {
	for depth := 0; s != nil && depth < 32; depth++ {
		for _, rp := range s.RankProfiles {
			if rp.Name == name {
				return rp
			}
		}
		s = a.byName[s.Inherits]
	}
	return nil
}

// RankProfile returns the named rank profile of the schema or of a schema
// it inherits; nil for none (also for the implicit "default" and
// "unranked").
func (s *Schema) RankProfile(name string) *RankProfile {
	if s.app == nil {
		for _, rp := range s.RankProfiles {
			if rp.Name == name {
				return rp
			}
		}
		return nil
	}
	return s.app.profile(s, name)
}

// AllInputs returns the profile's inputs and those it inherits (its own
// win), sorted by name.
func (rp *RankProfile) AllInputs() []*Input {
	in, _ := rp.allInputs(nil)
	return in
}

func (rp *RankProfile) allInputs(path []string) ([]*Input, error) {
	if slices.Contains(path, rp.Name) {
		return nil, fmt.Errorf("rank profile inheritance cycle: %v", append(path, rp.Name))
	}
	byName := map[string]*Input{}
	for _, pn := range rp.Inherits {
		var parent *RankProfile
		if rp.schema != nil && rp.schema.app != nil {
			parent = rp.schema.app.profile(rp.schema, pn)
		}
		if parent == nil {
			continue
		}
		ins, err := parent.allInputs(append(path, rp.Name))
		if err != nil {
			return nil, err
		}
		for _, in := range ins {
			byName[in.Name] = in
		}
	}
	for _, in := range rp.Inputs {
		byName[in.Name] = in
	}
	out := make([]*Input, 0, len(byName))
	for _, in := range byName {
		out = append(out, in)
	}
	slices.SortFunc(out, func(x, y *Input) int {
		if x.Name < y.Name {
			return -1
		}
		if x.Name > y.Name {
			return 1
		}
		return 0
	})
	return out, nil
}
