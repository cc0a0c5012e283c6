// Package schema reads the schemas of a Vespa application package
// (schemas/*.sd) into Go values: document types and their fields with
// types (string, numbers, bool, byte, position, uri, predicate, raw,
// reference, array, weighted set, map, struct, tensor with its cell type and
// mapped or indexed dimensions), indexing, match settings, field sets, rank
// profiles with their inputs and features, document summaries, and
// inheritance of schemas, documents, structs and rank profiles.
//
// Read a whole package with [ParseDir], or one file with [Parse] and then
// [NewApplication]:
//
//	app, err := schema.ParseDir("app")
//	music := app.Document("music")
//	for _, f := range music.AllFields() {
//		fmt.Println(f.Name, f.Type) // title string, year int, ...
//	}
//
// The parser is strict: a construct it does not know in its place is
// refused with an [*Error] naming the file, the line and the construct
// ([ErrUnsupported]), never skipped, so that what it returns is the whole
// schema. It follows the grammar of Vespa's SchemaParser.jj (config-model)
// and the schema reference at docs.vespa.ai; it does not evaluate ranking
// expressions or indexing scripts, which it keeps as text.
//
// An [*Application] also checks documents before they are sent
// ([Application.CheckPut], [Application.CheckUpdate]): unknown document
// types and fields, JSON of the wrong type, tensors of the wrong shape or
// cell type, and update operations a field does not take. The client and
// the feeder use it through vespa.WithSchema and feed.Config.Schema.
//
// The generator cmd/vespagen writes typed Go code from an application
// package with this package.
package schema
