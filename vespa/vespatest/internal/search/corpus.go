package search

import (
	"encoding/json"

	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

// Schema, Field and RankProfile are the emulator's one declaration of a
// document type (package schema); see there for their fields. A schema whose
// RankProfiles is nil does not model profiles: any name is accepted and ranks
// by the default relevance.
type (
	Schema      = schema.Schema
	Field       = schema.Field
	RankProfile = schema.RankProfile
)

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
