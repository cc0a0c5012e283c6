package vespatest

import "github.com/govespa/govespa/vespa/vespatest/internal/schema"

// Schema declares one document type: its name, fields and rank profiles, as a
// schemas/<name>.sd file does, minus what the emulator does not model. The
// zero value is not useful; Name must be set.
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
	// empty, non-nil slice declares that there are none. [ParseSchema] never
	// returns nil.
	RankProfiles []RankProfile
	// Fieldsets are the schema's field sets, name to field names (e.g.
	// "default": title, body). A YQL query may name one as it names a field,
	// and a get's fieldSet parameter may list one.
	Fieldsets map[string][]string
	// Structs are the struct types the document declares, name to fields
	// (only their names and types count). A field of such a type, or an
	// array or map of it, is checked as Vespa's JSON reader checks it: an
	// unknown member or a value of the wrong type is refused with 400. A
	// type name that is not declared here is stored unchecked.
	Structs map[string][]Field
	// Inherits names the schema this one inherits, as "schema song inherits
	// base" does ("" for none): its rank profiles and field sets are this
	// schema's too, this schema's own of the same name winning. As in
	// Vespa, the document must then inherit the parent's document type as
	// well (DocumentInherits). One case is not modelled and refused when
	// the application is built: a parent's profile that inherits a profile
	// this schema declares again (Vespa resolves it in the parent).
	Inherits string
	// DocumentInherits names the document types this schema's document
	// inherits, in order, as "document song inherits base" does: their
	// fields and struct types, and those they inherit, are this document's
	// for put, get, update, visit, selections and search, and a rank
	// profile may inherit their schemas' profiles by name. A field may be
	// declared again only with the parent's type. Fields, Structs,
	// RankProfiles and Fieldsets hold the schema's own members; the
	// inherited ones are added when the application is built, where an
	// unknown parent, a cycle or a field redeclared with another type is
	// refused with Vespa's error.
	DocumentInherits []string
	// StructInherits maps a struct type to the struct types it inherits,
	// as "struct b inherits a" does: their fields come first in its own.
	// The parent is looked for in the document and those it inherits.
	StructInherits map[string][]string
}

// RankProfile is the part of a schema's rank profile the emulator evaluates:
// its first-phase expression over a small subset of Vespa's rank features
// (bm25, closeness, nativeRank, attribute and query features, constants,
// + - * / and parentheses, and the profile's zero-argument functions), with
// inherits, functions and inputs. A query using a profile whose expression
// goes beyond the subset, or which has a second or global phase, is answered
// with a "not implemented" error (501), never a silently wrong score.
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
	// InputTypes are the declared types of the inputs that have one, e.g.
	// "query(q)" to "tensor<float>(x[4])" or "query(w)" to "double". A
	// query's value for a typed input is checked as Vespa's container checks
	// it (RankProfileInputProperties): one it cannot read as the type is
	// refused with 400, before the profile is evaluated.
	InputTypes map[string]string
	// SummaryFeatures and MatchFeatures are the rank features the profile
	// lists to be returned with each hit, e.g. "bm25(title)",
	// "attribute(year)"; Vespa renders them in the hit's fields as
	// summaryfeatures and matchfeatures. Inherited from the parents when
	// empty.
	SummaryFeatures, MatchFeatures []string
}

// Field declares one document field: its name, Vespa type text, whether it is
// an indexed string field, its indexing statement and distance metric.
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

// ParseSchema reads the text of a schemas/<name>.sd file and returns its
// schema name and what the schema and its document inherit; its own
// document fields with their types, indexing statements and
// distance-metric; and its rank profiles (inherits, the first-, second- and
// global-phase expressions, functions without arguments, and inputs).
// What it inherits from other files is not in it: the server adds that
// when it builds the application.
func ParseSchema(sd string) (Schema, error) {
	s, err := schema.Parse(sd)
	return schemaOf(s), err
}

// The emulator's model (package internal/schema) has the same fields: Field
// and RankProfile convert as they are, a Schema field by field.

func (s Schema) model() schema.Schema {
	m := schema.Schema{Name: s.Name, Fieldsets: s.Fieldsets, Inherits: s.Inherits,
		DocumentInherits: s.DocumentInherits, StructInherits: s.StructInherits}
	if s.Structs != nil {
		m.Structs = make(map[string][]schema.Field, len(s.Structs))
		for name, fs := range s.Structs {
			out := make([]schema.Field, len(fs))
			for i, f := range fs {
				out[i] = schema.Field(f)
			}
			m.Structs[name] = out
		}
	}
	if s.Fields != nil {
		m.Fields = make([]schema.Field, len(s.Fields))
		for i, f := range s.Fields {
			m.Fields[i] = schema.Field(f)
		}
	}
	if s.RankProfiles != nil { // nil (profiles not modelled) stays nil
		m.RankProfiles = make([]schema.RankProfile, len(s.RankProfiles))
		for i, p := range s.RankProfiles {
			m.RankProfiles[i] = schema.RankProfile(p)
		}
	}
	return m
}

func schemaOf(m schema.Schema) Schema {
	s := Schema{Name: m.Name, Fieldsets: m.Fieldsets, Inherits: m.Inherits,
		DocumentInherits: m.DocumentInherits, StructInherits: m.StructInherits}
	if m.Structs != nil {
		s.Structs = make(map[string][]Field, len(m.Structs))
		for name, fs := range m.Structs {
			out := make([]Field, len(fs))
			for i, f := range fs {
				out[i] = Field(f)
			}
			s.Structs[name] = out
		}
	}
	if m.Fields != nil {
		s.Fields = make([]Field, len(m.Fields))
		for i, f := range m.Fields {
			s.Fields[i] = Field(f)
		}
	}
	if m.RankProfiles != nil {
		s.RankProfiles = make([]RankProfile, len(m.RankProfiles))
		for i, p := range m.RankProfiles {
			s.RankProfiles[i] = RankProfile(p)
		}
	}
	return s
}
