// Package vespatest is an in-process Vespa emulator, to govespa what
// net/http/httptest is to net/http: a real HTTP server on a loopback port that
// speaks Vespa's wire protocol, for tests, examples and debugging sessions.
//
// It is not Vespa, and only an approximation of the Vespa a client sees over
// HTTP: one process, everything in memory, built from Vespa's source, its
// recorded exchanges (the conformance fixtures) and a real container (the
// JDisc target of the integration suite). Where a behaviour it does show
// differs from Vespa's, that is a bug. Its speed serves test suites and the
// quickstart and says nothing about Vespa's.
//
// # What it does not do
//
// Roughly from what a user meets first to the esoteric:
//
//   - Search is a subset of the query API (the internal search package lists
//     it): YQL's common operators, and ranking by a first-phase expression
//     over a few rank features (bm25, closeness, nativeRank, attribute,
//     query inputs), which summary-features and match-features may list. The default relevance is its own, not nativeRank, so
//     compare orders and hits, never scores. Second and global phases,
//     grouping beyond a subset (all/each, group by an attribute or
//     predefined buckets, max, order, count/sum/avg/min/max, summary()), the
//     JSON query language, other formats and the rarer operators are
//     answered with 501, never with a wrong result.
//   - Query profiles: of an application package's
//     search/query-profiles/default.xml (or [WithQueryProfile]) only
//     grouping.globalMaxGroups is read; other profiles, and defaults such as
//     hits or ranking set in a profile, are not applied. So max(inf) is
//     refused, as Vespa refuses it, unless the profile sets the bound to -1.
//   - No linguistics: text is lower-cased and split on anything but letters
//     and digits; no stemming, normalisation of accents or CJK segmentation.
//     Indexing statements decide only whether a field is in the summary,
//     whether it matches as an index or as an attribute, and whether a
//     grouping may use it (an attribute).
//   - One node and one store: no distribution, redundancy, node failures,
//     feed blocks or reindexing unless a fault injects them. Content
//     clusters share the store, so a copy to another cluster changes nothing.
//   - Timing is its own: nothing is slow unless a fault adds latency (or a
//     soft timeout, [FaultSoftTimeout]), so
//     timeouts fire for such latencies, for query timeouts below 5 ms and for
//     a query timeout the request sets (checked while the corpus is
//     scanned); Vespa's 500 ms default does not cut a slow scan short.
//   - Continuation tokens are its own: a token of a real Vespa is refused,
//     and one of the emulator means nothing to Vespa.
//   - Document selections are a subset: no field-path lookups ({key},
//     [index]), no functions (.lowercase(), .hash(), .abs()), no $variables,
//     id.bucket or id.gid.
//   - Structs declared in a schema (an .sd file's struct blocks, or
//     [Schema].Structs) are checked as Vespa's JSON reader checks them; a
//     struct type the schema does not declare is stored as any JSON,
//     unchecked. Predicates are parsed and printed as Vespa prints them, raw
//     values read as base64, references checked as document IDs of their
//     type; no predicate matching, no imported fields, parent/child,
//     document processors, streaming search or document expiry.
//   - Schema, document and struct inheritance are resolved as Vespa's config
//     model resolves them ([Schema].Inherits, DocumentInherits and
//     StructInherits): inherited fields, structs, field sets and rank
//     profiles are the child's, and mistakes refuse the deploy with Vespa's
//     words. A document selection names a type exactly, as the content node
//     does: "base" does not select a song that inherits base.
//   - The config server deploys a package's schemas, content clusters and
//     default query profile; it runs no validation overrides, application
//     tests or hosted-only preprocessing. A deploy takes no time unless an
//     [OpDeploy] fault adds latency, which counts as model building: the
//     timeout parameter is checked after the prepare's steps and before
//     activation as Vespa checks it (408 REQUEST_TIMEOUT), but not in
//     Vespa's ZooKeeper barrier waits (a 500 when another config server is
//     slow) nor against its handler's own limit (504 after 540 s).
//
// # Using it
//
// Start one, point a client at its URL, and close it when done:
//
//	srv := vespatest.NewServer()
//	defer srv.Close()
//	resp, err := srv.Client().Get(srv.URL() + "/document/v1/ns/music/docid/1")
//
// In tests, [NewTestServer] fails the test on error, logs to t.Log and closes
// the server in t.Cleanup.
//
// # What it serves
//
// The container API on [Server.URL], HTTP/1.1 and prior-knowledge h2c on the
// same port (HTTP/2 through ALPN with [WithTLS]):
//
//   - /document/v1: the seven path patterns, single-document get, put, update
//     and remove with condition, create, dryRun, route, timeout and
//     tracelevel; visiting with selection, fieldSet, wantedDocumentCount,
//     slices, continuation, stream and JSONL; update-where, delete-where and
//     copy, with Vespa's status codes and JSON bodies as far as its source
//     and fixtures show them.
//   - /search/: a subset of the query API (see the internal search package).
//   - /state/v1/health, /status.html, /ApplicationStatus, and GET / listing
//     the handlers, as a container does.
//
// The config-server API (prepareandactivate, the session flow,
// serviceconverge, its own health) is on [Server.ConfigServerURL]; deploying a
// package replaces the schemas.
//
// # Schemas and lenient mode
//
// Document types come from [WithSchema], from an application package
// ([WithApplicationDir], or a deploy): the field names, types and indexing
// statements of schemas/*.sd, their rank profiles, and the content clusters of
// services.xml. With none, the server runs in lenient mode: every document
// type and field is accepted and stored as given. With schemas, unknown
// document types and fields get 400 as in Vespa, and values are checked
// against their types.
//
// /search/ hits show Vespa's default document summary: the fields with
// summary in their indexing statement ([Field.Indexing]; a field declared in
// Go without one is shown). In lenient mode every field is shown. A query's
// ranking.profile selects a [RankProfile], whose first-phase expression is
// evaluated over a documented subset of Vespa's rank features (bm25,
// closeness, nativeRank, attribute, query inputs, arithmetic and functions);
// an undefined profile is Vespa's 400 error, and a profile beyond the subset
// (or with a second or global phase) is refused with 501, never answered with
// a wrong score. The search package documentation has the details.
//
// # Faults
//
// [Server.AddFault] and [Server.ScriptFaults] inject Vespa's failures (429
// overload, 503, 504, 507, 500, latency, dropped connections) by rate or in
// sequence, per operation or path, reproducibly under [WithSeed];
// [Server.FaultStats] counts them. [WithMaxRequestBytes] makes large bodies
// get 413.
//
// # Keeping a test's emulator up
//
// Like -httptest.serve, the -vespatest.serve flag keeps a test's emulator
// running so that Vespa's own CLI, curl or a browser can be pointed at it. Run
// one test with it, in the package's directory:
//
//	go test -run TestX -timeout 0 -vespatest.serve=127.0.0.1:8080
//
// The first [NewServer], [NewTestServer] or [Start] of that test then listens
// on 127.0.0.1:8080, prints the URL and a few commands to stderr, and blocks
// until the process is interrupted:
//
//	vespa config set target http://127.0.0.1:8080
//	curl http://127.0.0.1:8080/state/v1/health
//
// The server has the schemas and application package its options gave it; the
// test's code after the call does not run. -timeout 0 stops go test from
// ending the test after its default ten minutes. The flag is registered only
// in binaries built by go test and only when it is on the command line, so
// programs that import vespatest have no such flag.
//
// # Visiting and continuation tokens
//
// Documents live in buckets chosen by a hash of their location, as in Vespa,
// and a visit reads whole buckets in order. A continuation token holds the
// next bucket, so every document present for a whole visit is returned
// exactly once across pages and slices, even while others are fed. Slice i of
// n holds the buckets b with b mod n = i.
//
// # Independence from govespa
//
// This package imports no other govespa package. Document-ID parsing, path
// decoding, and JSON encoding are written again here, on purpose: a bug shared
// by the SDK and its test double would be invisible to the tests. The
// repetition is deliberate.
//
// # Storage
//
// Each document is kept as its compact JSON bytes in sharded maps. Dense
// tensors are stored in the short form {"type":…,"values":[…]}, cells
// rounded to the cell type. /search/ keeps the vectors it parsed for
// nearestNeighbor across queries, until the document changes or goes away.
//
// # Mistakes answered as Vespa answers them
//
// What a user gets wrong most often is answered as Vespa does, not with a
// plausible success (each case's test names the Vespa source it follows):
//
//   - /search/: a YQL condition on a field the schemas lack, sorting by a
//     field that is not an attribute, an unknown searchChain or rank profile
//     are 400 with code 4; a restrict naming no schema searches nothing (200,
//     no error); an unknown source beside a known one is a code-4 error next
//     to the known one's hits.
//   - /document/v1: a remove of a type no cluster holds is dropped with 200
//     and X-Vespa-Ignored-Operation: true (a put or update of it is a 400);
//     a get of such a type, or with a fieldSet naming an unknown type or
//     field, is the content node's 500 when the document's bucket has a
//     replica and 404 when not; a visit whose selection names an unknown
//     type is a 500 once the cluster has buckets; a timeout below 5 ms is a
//     504 "Timeout after <n>ms"; fromTimestamp and toTimestamp are unsigned,
//     and fromTimestamp above a given toTimestamp (0 too) is a 400.
//   - A streamed visit whose selection does not parse gets no answer, as
//     on Vespa (its handler commits 200 but never writes or ends it); the
//     emulator cuts the connection at the request's timeout, so no client
//     mistakes anything for an answer.
//   - The config server refuses a package with a field of an unknown type
//     (400 INVALID_APPLICATION_PACKAGE), and [FaultInvalidApplicationPackage]
//     makes any deploy fail so; [FaultSoftTimeout] is a content node whose
//     soft timeout cut matching short (200, partial hits, coverage degraded
//     by timeout). A [FaultRule] needs a Rate in (0, 1]: one of 0 would
//     never fire and is refused.
//
// # Differences from Vespa's own handlers
//
// The integration suite's differential test (integration/differential_test.go)
// sends the same 77 requests to this emulator and to Vespa's own
// DocumentV1ApiHandler and search container (the JDisc harness, Vespa
// 8.700.24) and compares status, X-Vespa-* headers, body and message. These
// answers differ, for the reasons given; everything else it sends is
// answered alike, and any new difference fails the test:
//
//   - a content node's texts: a failed or unparseable condition, or a field
//     set that does not parse, is worded as the C++ content node's ReturnCode
//     ("[UNKNOWN(251005) @ tcp/...]: ReturnCode(ILLEGAL_PARAMETERS, ...)");
//     the harness's storage is Java, so it does not settle these;
//   - update values are type-checked when they are applied, not when the
//     request is parsed, so such a 400 carries the document's "id";
//   - error texts of parsers: JSON bodies (Vespa's are Jackson's), document
//     selections (JavaCC's), and the column of a YQL syntax error;
//   - continuation tokens are this package's own format, so a bad one is
//     refused with another message (and tokens are not Vespa's bytes);
//   - where the harness stands in for what is not container code, the
//     emulator follows Vespa's source and the harness differs: its storage
//     has no messagebus routing (no X-Vespa-Ignored-Operation on a remove of
//     an unknown type), no buckets (a get of an unknown type whose bucket
//     has a replica: 404 there), no typed selection parser (a visit naming
//     an unknown type: 200 there); its search container federates to a
//     local provider that reports no unresolved source.
//
// Beyond those, the emulator does not model query profiles' other settings,
// streaming search or document summaries (see "What it does not do"), and
// rank features other than those the search package lists are refused (501)
// in expressions, summary-features and match-features alike.
package vespatest
