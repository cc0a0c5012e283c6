package schema

// Schema is one schemas/<name>.sd file: a document type and what is built
// on it (field sets, rank profiles, document summaries). Everything is in
// declaration order. A Schema from [Parse] is as written; one from
// [NewApplication] or [ParseDir] also knows what it inherits (see
// [Document.AllFields], [RankProfile.AllInputs]).
type Schema struct {
	// Name is the schema name, e.g. "music".
	Name string
	// File and Line are where the schema is declared.
	File string
	Line int
	// Inherits names the schema this one inherits from ("" for none); its
	// document inherits that schema's document.
	Inherits string
	// Document is the schema's document type; nil only for a file that
	// declares none (which [NewApplication] refuses).
	Document *Document
	// Fields are the fields declared outside the document block (synthetic
	// fields, filled by their indexing script from document fields).
	Fields []*Field
	// Structs are the structs declared outside the document block.
	Structs []*StructType
	// FieldSets are the schema's field sets.
	FieldSets []*FieldSet
	// RankProfiles are the schema's rank profiles; "default" and
	// "unranked" exist without being declared.
	RankProfiles []*RankProfile
	// Summaries are the schema's document summaries (summary classes);
	// "default" exists without being declared.
	Summaries []*DocumentSummary
	// ImportedFields are the fields imported through references.
	ImportedFields []*ImportedField

	app *Application
}

// Document is a document type: its fields and structs.
type Document struct {
	// Name is the document type name.
	Name string
	// Line is where it is declared.
	Line int
	// Inherits names the document types this one inherits from.
	Inherits []string
	// Fields are the fields declared in this document, in order; see
	// [Document.AllFields] for the inherited ones too.
	Fields []*Field
	// Structs are the structs declared in this document.
	Structs []*StructType

	all    []*Field          // own and inherited fields, set by NewApplication
	byName map[string]*Field // all by name
}

// Field is one field of a document, struct or schema.
type Field struct {
	// Name is the field name.
	Name string
	// Line is where it is declared.
	Line int
	// Type is the field's data type.
	Type *Type
	// Indexing is the indexing script, e.g. "summary | attribute", as
	// written (statements of a multi-line script joined with "; ").
	Indexing string
	// Attribute, Index and Summary report whether the script has an
	// attribute, index or summary step.
	Attribute, Index, Summary bool
	// AttributeSettings are the attribute settings: fast-search,
	// paged, "distance-metric: angular", and so on, as written.
	AttributeSettings []string
	// DistanceMetric is the distance metric of a tensor attribute, ""
	// when not set (Vespa's default is euclidean).
	DistanceMetric string
	// IndexSettings are the settings of the field's index block or
	// index: value (enable-bm25, "hnsw", ...), as written.
	IndexSettings []string
	// Match are the match settings: exact, word, prefix, cased,
	// "exact-terminator: @@", "gram-size: 3", as written.
	Match []string
	// Rank are the rank settings (filter, normal).
	Rank []string
	// Settings are the other settings of the field (stemming, normalizing,
	// alias, weight, bolding, id, query-command, sorting, dictionary,
	// summary-to, weightedset, summary), keyword to value, in order.
	Settings []Setting
	// StructFields are the settings of struct sub-fields (struct-field).
	StructFields []*Field
}

// Setting is a keyword and its value, as written.
type Setting struct {
	Key, Value string
}

// StructType is a struct: named fields.
type StructType struct {
	Name     string
	Line     int
	Inherits []string
	Fields   []*Field
}

// FieldSet is a named set of fields queried together.
type FieldSet struct {
	Name   string
	Line   int
	Fields []string
	// QueryCommands and Match are the query-command and match settings.
	QueryCommands []string
	Match         []string
}

// RankProfile is a rank profile: how matches are ranked, what it takes as
// input, and the features it renders.
type RankProfile struct {
	Name string
	Line int
	// Inherits names the profiles this one inherits from.
	Inherits []string
	// Inputs are the query inputs this profile declares (see
	// [RankProfile.AllInputs] for the inherited ones).
	Inputs []*Input
	// FirstPhase, SecondPhase and GlobalPhase are the expressions of the
	// phases ("" when this profile sets none).
	FirstPhase, SecondPhase, GlobalPhase string
	// Functions are the profile's functions.
	Functions []*Function
	// SummaryFeatures and MatchFeatures are the features rendered in hits;
	// RankFeatures those dumped with ranking.listFeatures.
	SummaryFeatures, MatchFeatures, RankFeatures []string
	// Constants are the profile's constants, by name, as written.
	Constants []Setting
	// Settings are the other settings (num-threads-per-search,
	// match-phase, rank-properties, ...), as written.
	Settings []Setting

	schema *Schema
}

// Input is a query input of a rank profile: query(q) tensor<float>(x[3]).
type Input struct {
	// Name is the feature name, "query(q)" (Vespa writes a bare "q" so).
	Name string
	// Type is the input's type: a tensor, or nil for a number (double,
	// which long and float mean too).
	Type *TensorType
	// String is set for an input declared string.
	String bool
	// Default is the default value as written, "" for none.
	Default string
}

// Function is a rank profile function.
type Function struct {
	Name       string
	Params     []string
	Expression string
	Inline     bool
}

// DocumentSummary is a summary class: the fields a hit renders when a
// query asks for it (presentation.summary).
type DocumentSummary struct {
	Name     string
	Line     int
	Inherits []string
	Fields   []*SummaryField
	// FromDisk and OmitSummaryFeatures are the class's flags.
	FromDisk, OmitSummaryFeatures bool
}

// SummaryField is a field of a document summary.
type SummaryField struct {
	Name string
	// Type is the declared type, nil when the summary field takes the
	// type of the document field of its name.
	Type *Type
	// Sources are the fields it is made of (source: a, b), empty for the
	// field of its own name.
	Sources []string
	// Settings are the other settings (dynamic, matched-elements-only,
	// bolding, tokens ...), as written.
	Settings []string
}

// ImportedField is import field ref.field as name.
type ImportedField struct {
	Reference, Field, Name string
	Line                   int
}
