// Package schema is the emulator's model of an application: schemas and their
// fields (declared in Go or read from .sd files), field types, content clusters
// from services.xml, and application packages.
package schema

import (
	"fmt"
	"slices"
	"strings"
)

// Schema, RankProfile and Field are the emulator's model of what a
// schema declares. Their fields are documented on vespatest.Schema,
// vespatest.RankProfile and vespatest.Field, which convert to them as they are
// (the model keeps no field the public types lack).
type Schema struct {
	Name         string
	Fields       []Field
	RankProfiles []RankProfile // nil: profiles are not modelled (any name ranks by default relevance)
	Fieldsets    map[string][]string
	Structs      map[string][]Field // the document's struct types
	// Inherits is the schema this one inherits, "" for none;
	// DocumentInherits the document types its document inherits. A schema
	// as declared (Parse) has its own members only; [Inherit] adds the
	// inherited ones.
	Inherits         string
	DocumentInherits []string
	StructInherits   map[string][]string // struct name to the structs it inherits
}

// RankProfile is the part of a rank profile the emulator evaluates; a
// profile beyond its subset, or with a second or global phase, is answered
// "not implemented", never with a wrong score.
type RankProfile struct {
	Name                           string
	Inherits                       []string
	FirstPhase                     string // empty: inherited, or nativeRank
	SecondPhase, GlobalPhase       string // not evaluated: a profile with one cannot be queried
	Functions, Inputs              map[string]string
	InputTypes                     map[string]string
	SummaryFeatures, MatchFeatures []string
}

// Field declares one document field; an empty Indexing means
// "summary | index" when Indexed and "summary | attribute" otherwise.
type Field struct {
	Name, Type     string
	Indexed        bool
	DistanceMetric string
	Indexing       string
}

// InSummary reports whether the field is in the default document summary.
func (f Field) InSummary() bool {
	if strings.TrimSpace(f.Indexing) == "" {
		return true
	}
	return slices.Contains(indexingSteps(f.Indexing), "summary")
}

// MaybeAttribute reports whether the field can be an attribute: its indexing
// statement has an attribute step, or it has none (a field declared in Go
// without one is taken for an attribute).
func (f Field) MaybeAttribute() bool {
	if strings.TrimSpace(f.Indexing) == "" {
		return true
	}
	return slices.Contains(indexingSteps(f.Indexing), "attribute")
}

// Attribute reports whether the field is an attribute: its indexing
// statement has an attribute step, or it has none and is not Indexed (the
// default is then "summary | attribute").
func (f Field) Attribute() bool {
	if strings.TrimSpace(f.Indexing) == "" {
		return !f.Indexed
	}
	return slices.Contains(indexingSteps(f.Indexing), "attribute")
}

// indexingSteps splits an indexing statement into its steps, "summary",
// "index", "input title" and so on; statements separated by ";" are joined.
func indexingSteps(s string) []string {
	var out []string
	for stmt := range strings.SplitSeq(s, ";") {
		for step := range strings.SplitSeq(stmt, "|") {
			if step = strings.Join(strings.Fields(step), " "); step != "" {
				out = append(out, step)
			}
		}
	}
	return out
}

// Field returns the named field.
func (s *Schema) Field(name string) (Field, bool) {
	i := slices.IndexFunc(s.Fields, func(f Field) bool { return f.Name == name })
	if i < 0 {
		return Field{}, false
	}
	return s.Fields[i], true
}

func ValidateSchemas(schemas []Schema) error {
	seen := map[string]bool{}
	for _, s := range schemas {
		if s.Name == "" {
			return fmt.Errorf("vespatest: schema without a name")
		}
		if seen[s.Name] {
			return fmt.Errorf("vespatest: schema %q declared twice", s.Name)
		}
		seen[s.Name] = true
		fields := map[string]bool{}
		for _, f := range s.Fields {
			if err := checkMemberName(fields, s.Name, "field", f.Name); err != nil {
				return err
			}
			if _, err := ParseFieldType(f.Type); err != nil {
				return fmt.Errorf("vespatest: schema %q field %q: %w", s.Name, f.Name, err)
			}
		}
		profiles := map[string]bool{}
		for _, p := range s.RankProfiles {
			if err := checkMemberName(profiles, s.Name, "rank profile", p.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkMemberName checks that a member of schema (a field, a rank profile:
// kind) has a name, one not in seen, and adds it to seen.
func checkMemberName(seen map[string]bool, schema, kind, name string) error {
	if name == "" {
		return fmt.Errorf("vespatest: schema %q has a %s without a name", schema, kind)
	}
	if seen[name] {
		return fmt.Errorf("vespatest: schema %q declares %s %q twice", schema, kind, name)
	}
	seen[name] = true
	return nil
}

// Cluster is a content cluster and the document types it holds.
type Cluster struct {
	Name   string
	types  []string        // empty: every type (lenient mode)
	global map[string]bool // types declared global="true": they live in the global bucket space
}

// Application is what is deployed: schemas and content clusters. It is
// immutable once built; a deploy swaps in a new one.
type Application struct {
	Schemas    []Schema
	byType     map[string]*Schema
	clusters   []Cluster
	Generation int64
	// QueryProfile holds the default query profile's fields; nil for none.
	QueryProfile map[string]string
}

// DefaultCluster is the content cluster name used when no services.xml names one.
const DefaultCluster = "content"

// NewApplication builds the application of schemas (as declared: what they
// inherit is resolved here, see [Inherit]) and content clusters.
func NewApplication(schemas []Schema, clusters []Cluster, generation int64) (*Application, error) {
	resolved, err := Inherit(schemas)
	if err != nil {
		return nil, err
	}
	a := &Application{Schemas: resolved, byType: map[string]*Schema{}, Generation: generation}
	for i := range a.Schemas {
		a.byType[a.Schemas[i].Name] = &a.Schemas[i]
	}
	if len(clusters) == 0 {
		clusters = []Cluster{{Name: DefaultCluster}}
	}
	a.clusters = clusters
	return a, nil
}

// Lenient reports whether any document type and field is accepted.
func (a *Application) Lenient() bool { return len(a.Schemas) == 0 }

// Schema returns the schema of a document type; ok is true in lenient mode
// with a nil schema.
func (a *Application) Schema(docType string) (*Schema, bool) {
	if a.Lenient() {
		return nil, true
	}
	s, ok := a.byType[docType]
	return s, ok
}

// IsGlobal reports whether a document type is declared global="true" in
// services.xml, which puts its documents in the global bucket space instead
// of the default one.
func (a *Application) IsGlobal(docType string) bool {
	for _, c := range a.clusters {
		if c.global[docType] {
			return true
		}
	}
	return false
}

// ClusterOf names the content cluster that holds docType: the first that
// lists it, or the first cluster when none does (lenient mode).
func (a *Application) ClusterOf(docType string) string {
	for _, c := range a.clusters {
		if slices.Contains(c.types, docType) {
			return c.Name
		}
	}
	return a.clusters[0].Name
}

func (a *Application) ClusterNames() []string {
	names := make([]string, len(a.clusters))
	for i, c := range a.clusters {
		names[i] = c.Name
	}
	return names
}
