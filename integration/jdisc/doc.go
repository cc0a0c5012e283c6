// Package jdisc builds and runs the JDisc harness: Vespa's own container
// (com.yahoo.application.Application, from Maven Central) serving Vespa's real
// DocumentV1ApiHandler over an in-memory store of ours, visiting through
// Vespa's MessageBusVisitorSession driven by a fake distributor, and /search/
// through Vespa's search handler, YQL parser and JSON renderer with a searcher
// of ours answering from the same store.
//
// The Maven module beside this file (pom.xml, src/) is embedded in the
// package: [Build] writes it to the user cache directory, keyed by a hash of
// its sources, and builds it with mvn once; later builds reuse the jar.
// [Start] runs harness.Main with java and waits for its ready line.
//
// Real here: HTTP (Jetty, HTTP/1.1 and h2c), document/v1 paths, parameters,
// JSON parsing against the schema, error texts and statuses, the 429
// throttle queue, continuation tokens, slices and wantedDocumentCount, and on
// the query side parameter checks, query profiles, YQL parsing and
// rendering. Ours: storage (test-and-set is evaluated by Vespa's Java
// DocumentSelector, not by the C++ content node; documents are kept as
// Vespa's binary format holds them, serialised and read back), bucket layout
// (8 distribution bits, no splitting), matching, ranking (bm25 or closeness;
// a rank profile with another first-phase expression is answered 501) and
// summaries (built as the content node's searchsummary slime_filler.cpp
// builds a docsum, then rendered by Vespa's JsonRenderer). Where
// Vespa's checks live outside the container code it runs, the harness makes
// them with Vespa's data: rank profiles against the injected SchemaInfo (as
// VespaBackend.search), test-and-set conditions parsed before the document
// is read (as the content node's TestAndSetHelper). There is no config
// server: the application is the one the harness writes at start.
//
// The harness needs java (17 or later; Maven must resolve with JDK 17, see
// pom.xml) and mvn on PATH, and Maven Central or a filled ~/.m2. The package
// holds test infrastructure, not API.
package jdisc
