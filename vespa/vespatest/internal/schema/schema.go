// Package schema is the emulator's model of an application: schemas and their
// fields (declared in Go or read from .sd files), field types, content clusters
// from services.xml, and application packages.
package schema

import (
	"fmt"
	"slices"
	"strings"
)

// Schema declares one document type: its name, fields and rank profiles. It
// is what a schemas/<name>.sd file declares, minus what the emulator does not
// model. The zero value is not useful; Name must be set.
type Schema struct {
	// Name is the schema and document type name, e.g. "music".
	Name string
	// Fields are the document's fields, in declaration order.
	Fields []Field
	// RankProfiles are the schema's rank profiles, selected by a query's
	// ranking or ranking.profile; "default" and "unranked" exist implicitly.
	// A query naming a profile the schema lacks gets Vespa's "schema '…'
	// does not contain requested rank profile '…'" error. nil means profiles are not modelled: any
	// name is accepted and ranks by the emulator's default relevance, as in
	// lenient mode (a Go schema that predates profiles keeps working); an
	// empty, non-nil slice declares that there are none. [Parse] never
	// returns nil.
	RankProfiles []RankProfile
	// Fieldsets are the schema's field sets, name to field names (e.g.
	// "default": title, body). A YQL query may name one as it names a field,
	// and a get's fieldSet parameter may list one.
	Fieldsets map[string][]string
}

// RankProfile is the part of a schema's rank profile the emulator evaluates:
// its first-phase expression, over a small subset of Vespa's rank features
// (see the search package documentation: bm25, closeness, nativeRank,
// attribute and query features, constants, + - * / and parentheses, and the
// profile's zero-argument functions). A query using a profile whose
// expression goes beyond the subset, or which has a second or global phase,
// is answered with a "not implemented" error, never a silently wrong score.
type RankProfile struct {
	// Name is the profile name, e.g. "bm25".
	Name string
	// Inherits names the profiles this one inherits from, in order. Their
	// first phase, functions and inputs apply where this one sets none.
	Inherits []string
	// FirstPhase is the first-phase ranking expression, e.g.
	// "bm25(title) + 0.1 * attribute(popularity)". Empty means inherited, or
	// the emulator's default relevance (Vespa's nativeRank) when no parent
	// sets one.
	FirstPhase string
	// SecondPhase and GlobalPhase are the expressions of the later phases.
	// The emulator does not evaluate them; a profile that has one (itself or
	// through inheritance) cannot be used in a query.
	SecondPhase, GlobalPhase string
	// Functions are the profile's functions without arguments, name to
	// expression, which FirstPhase may call as name or name().
	Functions map[string]string
	// Inputs are the query inputs the profile declares, e.g. "query(w)", to
	// their default values ("" when none is declared, which is 0).
	Inputs map[string]string
	// SummaryFeatures and MatchFeatures are the rank features the profile
	// lists to be returned with each hit, e.g. "bm25(title)",
	// "attribute(year)"; Vespa renders them in the hit's fields as
	// summaryfeatures and matchfeatures. Inherited from the parents when
	// empty.
	SummaryFeatures, MatchFeatures []string
}

// Field declares one document field.
type Field struct {
	// Name is the field name.
	Name string
	// Type is Vespa's type text: "string", "int", "long", "float", "double",
	// "bool", "byte", "array<string>", "weightedset<string>",
	// "map<string,int>", "tensor<float>(x[384])", "tensor(cat{})", and so on.
	// A type the emulator does not know (a struct name, say) accepts any JSON.
	Type string
	// Indexed is true for an "index" field and false for an attribute or
	// summary-only field. Only /search/ looks at it.
	Indexed bool
	// DistanceMetric is the nearest-neighbor metric of a tensor field:
	// "euclidean" (Vespa's default), "angular", "dotproduct",
	// "prenormalized-angular". Only /search/ looks at it.
	DistanceMetric string
	// Indexing is the field's indexing statement, e.g. "summary | index" or
	// "attribute | index". Only /search/ looks at it: a field is in the
	// default document summary, and so rendered in hits, when "summary" is
	// one of its steps. Empty means "summary | index" when Indexed is set and
	// "summary | attribute" otherwise: a field declared in Go is in the
	// summary unless its Indexing says otherwise.
	Indexing string
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

func NewApplication(schemas []Schema, clusters []Cluster, generation int64) *Application {
	a := &Application{Schemas: slices.Clone(schemas), byType: map[string]*Schema{}, Generation: generation}
	for i := range a.Schemas {
		a.byType[a.Schemas[i].Name] = &a.Schemas[i]
	}
	if len(clusters) == 0 {
		clusters = []Cluster{{Name: DefaultCluster}}
	}
	a.clusters = clusters
	return a
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
