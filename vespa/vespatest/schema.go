package vespatest

import "github.com/govespa/govespa/vespa/vespatest/internal/schema"

// Schema declares one document type: its name, fields and rank profiles, as a
// schemas/<name>.sd file does, minus what the emulator does not model. The
// zero value is not useful; Name must be set. Its fields are documented in
// the internal schema package, where the type is declared.
type Schema = schema.Schema

// Field declares one document field: its name, Vespa type text, whether it is
// an indexed string field, its indexing statement and distance metric.
type Field = schema.Field

// RankProfile is the part of a schema's rank profile the emulator evaluates:
// its first-phase expression over a small subset of Vespa's rank features,
// with inherits, functions and inputs. Profiles with a second or global phase
// are refused by /search/ with 501.
type RankProfile = schema.RankProfile

// ParseSchema reads the text of a schemas/<name>.sd file and returns its
// schema name; its document fields with their types, indexing statements and
// distance-metric; and its rank profiles (inherits, the first-, second- and
// global-phase expressions, functions without arguments, and inputs).
func ParseSchema(sd string) (Schema, error) { return schema.Parse(sd) }
