package search

import "encoding/json"

// Field describes one schema field as the emulator understands it.
type Field struct {
	// Name is the field name.
	Name string
	// Type is the Vespa type text: "string", "int", "long", "float", "double", "bool",
	// "array<string>", "map<string,int>", "weightedset<string>", "tensor<float>(x[384])".
	Type string
	// Indexed is true for an index field (tokenized, case-insensitive matching) and false for an
	// attribute (exact matching).
	Indexed bool
	// DistanceMetric is the tensor distance metric used by nearestNeighbor: euclidean (the default
	// when empty), angular, dotproduct or prenormalized-angular.
	DistanceMetric string
	// NoSummary is true for a field that is not in the default document summary (no "summary" in
	// its indexing statement): hits do not show it.
	NoSummary bool
}

// Schema is one document type, its fields and its rank profiles.
type Schema struct {
	// Name is the document type name.
	Name string
	// Fields are the document fields.
	Fields []Field
	// RankProfiles are the rank profiles a query may name; "default" and "unranked" exist
	// implicitly. nil means profiles are not modelled for this type: any name is accepted and
	// ranks by the default relevance.
	RankProfiles []RankProfile
}

// RankProfile is a rank profile as the emulator evaluates it; see the package documentation
// for the expressions it understands.
type RankProfile struct {
	// Name is the profile name.
	Name string
	// Inherits names the parent profiles, in order.
	Inherits []string
	// FirstPhase is the first-phase expression; empty means inherited, or the default relevance.
	FirstPhase string
	// SecondPhase and GlobalPhase, when set (here or in a parent), make the profile unusable:
	// the emulator does not evaluate later phases.
	SecondPhase, GlobalPhase string
	// Functions maps the names of functions without arguments to their expressions.
	Functions map[string]string
	// Inputs maps declared query inputs, "query(w)", to their default value text ("" is 0).
	Inputs map[string]string
}

// Document is one stored document as the search handler sees it.
type Document struct {
	// ID is the full document ID, id:ns:type::x.
	ID string
	// Type is the document type.
	Type string
	// Fields is the JSON object of field values, {"f":v,...}.
	Fields json.RawMessage
}

// Corpus is the document store the search handler evaluates queries over.
type Corpus interface {
	// Schemas returns the declared schemas; an empty result selects lenient mode, in which any
	// document type and field is accepted.
	Schemas() []Schema
	// Each calls fn for every document of a consistent snapshot, stopping when fn returns false.
	Each(fn func(Document) bool)
}
