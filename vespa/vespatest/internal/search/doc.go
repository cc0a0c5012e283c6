// Package search is the /search/ handler of the vespatest emulator: a faithful subset of Vespa's
// query API, evaluated over an in-memory [Corpus] and rendered exactly as Vespa's default JSON
// renderer writes results and errors.
//
// The emulator core mounts [NewHandler] at /search/. Like the rest of vespatest it imports no
// govespa package: it is an independent implementation, so that a bug shared with the SDK cannot
// hide. The repetition this causes is deliberate.
//
// # Requests
//
// GET and POST. A POST body is a JSON object flattened into dotted names as Vespa does
// ({"ranking":{"profile":"p"}} is ranking.profile=p); objects under input.* stay raw JSON, arrays
// stay JSON text, and URL parameters override the body. Parameters: yql; query (model.queryString)
// with type (model.type: weakAnd, the default, any, all, phrase, raw) and default-index; hits/count
// (default 10, at most 400); offset/start (at most 1000); timeout (read as Vespa's
// ParameterParser does: a number and an optional unit ks, s, ms or µs, any other unit meaning
// seconds, so 1e1s is 1 s; default 500 ms); ranking/ranking.profile (see Rank profiles); presentation.summary (accepted and
// ignored: hits show the default summary); sorting (+f -f); sources/restrict; trace.level (adds a
// short trace); presentation.timing; input.query(x), ranking.features.query(x),
// rankfeature.query(x).
//
// # YQL
//
// select <* | f1, f2> from <sources * | sources a, b | type> where <cond> [order by f [asc|desc], …]
// [limit n] [offset n] [timeout ms] [;]. Conditions: true, false, f contains "w" (also
// ({prefix:true, substring:true, suffix:true}"w")), contains phrase("a","b"), contains
// sameElement(…), = < <= > >= (also number op field), in (…), range(f, lo, hi) with Infinity and
// {bounds:…}, and, or, !, parentheses, weakAnd(…), rank(…), nonEmpty(…), userQuery(),
// userInput(@p | "text") with grammar, defaultIndex and allowEmpty, and
// {targetHits:k, distanceThreshold:d}nearestNeighbor(f, q). Strings take "…" or '…' with
// backslash escapes (\" \' \\ \n \t \uXXXX). As in Vespa, limit is an end index: limit 15 offset 5
// returns ten hits.
//
// # Matching and relevance
//
// String fields declared Indexed match by token, case-insensitively (the text is lower-cased and
// split on anything but letters and digits); a term of several tokens is a phrase. Attribute
// fields (Indexed false) match the whole value, case-insensitively, as Vespa's default uncased
// attribute matching. Arrays match on any element, weighted sets on their keys, maps through
// f.key and f.value. The default index is a field named "default" if there is one, else every
// indexed string field. A field no schema declares matches nothing, as in Vespa.
//
// The default relevance is the emulator's own, not nativeRank: each matched term or phrase adds
// tf/(1+tf) (tf: its occurrences in the field), each nearestNeighbor adds its closeness, and
// filters (=, <, range, true, …) add nothing; rank profiles can replace it. nearestNeighbor is exact: it matches the targetHits nearest
// documents (within distanceThreshold) under the field's metric, pre-filtered by its siblings
// when it sits directly in the top-level and. Distances: euclidean, angular (the angle),
// prenormalized-angular (1 - dot), dotproduct (-dot) and hamming; closeness is 1/(1+distance),
// and the dot product itself for dotproduct. Parsed document vectors are kept across queries
// (float32 when exact), each valid for the document bytes it was read from, so a
// nearestNeighbor over 10,000 384-cell vectors takes milliseconds. Hits are ordered by
// relevance, then document ID, or by the order by / sorting keys (numbers numerically, strings
// by bytes, missing values last).
//
// # Rank profiles
//
// A query's ranking.profile (or ranking) selects a rank profile of the searched schemas; without
// one, "default". Every schema has the implicit profiles "default" (the default relevance above,
// unless the schema declares its own default) and "unranked" (relevance 0). A profile no
// searched type declares is Vespa's error (VespaBackend): 400, code 4, source the cluster, "schema
// 'music' does not contain requested rank profile 'x'" (the first type lacking it). As in Vespa, when
// several types are searched without sources or restrict and only some declare it, the others
// rank by their default profile. In lenient mode (no schemas), and for a schema whose
// RankProfiles is nil (profiles not modelled), any name is accepted and ranks by the default
// relevance.
//
// A profile's first-phase expression is evaluated per hit over this subset of Vespa's rank
// expressions: numbers; + - * / with the usual precedence; unary minus; parentheses; the features
//
//   - bm25(f): standard BM25 with k1 = 1.2 and b = 0.75 over f's tokens, summed over the query
//     terms searching f (directly or through the default index; a phrase is one term, negated
//     terms do not count): idf × tf × (k1+1) / (tf + k1 × (1 − b + b × len/avglen)) with
//     idf = ln(1 + (N − n + 0.5)/(n + 0.5)), where N, n and avglen come from the searched
//     documents that have the field, at query time;
//   - closeness(field, f): the closeness of the document to the nearestNeighbor items over f,
//     0 for a document they did not retrieve;
//   - nativeRank: the default relevance; nativeRank(f, …): its text-match part in those fields;
//   - attribute(f): the field's number (the first, for a collection; 1 or 0 for a bool; 0 when
//     missing);
//   - query(x): the request's input.query(x), else the default the profile's inputs declare,
//     else 0 (a scalar);
//
// and the profile's functions without arguments, called as name or name(). inherits applies the
// parents' first phase, functions and inputs where the profile sets none. Any other expression,
// a function with arguments, a feature output such as fieldMatch(title).completeness, or a
// profile with a second or global phase is refused when a query names the profile: 501, code 501,
// "the vespatest emulator does not implement …"; never a silently wrong score. Other profile
// settings (rank-score-drop-limit, match-phase, keep-rank-count) are ignored.
//
// A profile's summary-features and match-features (inherited when it lists none) are computed
// for each hit from the same features, plus firstPhase (the hit's relevance), and rendered as
// Vespa renders them: fields.matchfeatures first, fields.summaryfeatures last with
// "vespa.summaryFeatures.cached": 0.0 added, each an object of feature name (in name order) to
// value. A profile listing any other feature is refused with 501.
//
// # Mistakes
//
// As Vespa's search container: a YQL condition on a field that no searched schema has as a field
// or field set is 400, code 4, "Could not create query from YQL: Field 'x' does not exist."
// (YqlParser.getIndex; "default", sddocname and documentid always exist here); sorting (order
// by or sorting) by a field that is not an attribute is 400, code 4, "Cluster 'c' has no sortable
// attribute named 'f'" (ValidateSortingSearcher); an unknown searchChain is 400, code 4, "No
// search chain named 'x' was found"; a restrict naming no known schema searches nothing (200, no
// coverage, no error); a source that resolves to no schema or cluster is a code 4 error "Could not
// resolve source ref 'x'. Valid source refs are …" beside the other sources' hits (400 when there
// are none). A content node's soft timeout is injected with vespatest.FaultSoftTimeout: 200 with
// the hits of the part covered and coverage degraded by timeout, or, with
// ranking.softtimeout.enable=false, the hard timeout (504, code 12).
//
// # Results and errors
//
// root.id "toplevel", relevance 1.0, fields.totalCount, coverage (100 %, documents = the corpus
// size, one node; less and degraded under a soft-timeout fault), children with id (the document ID), relevance, source (the document type) and
// fields: sddocname, documentid, then the fields of Vespa's default document summary in schema
// order, that is the fields with summary in their indexing statement ([Field.InSummary];
// an attribute without summary, such as an embedding declared "attribute | index", is not
// shown); with a select list only the listed summary fields. In lenient mode every stored field
// is shown, in stored order. Document summaries declared with document-summary are not
// modelled. Dense tensors are written in the short form {"type","values"}. Errors
// carry Vespa's codes and HTTP statuses: a YQL syntax error is 400, code 3 ("Could not
// instantiate query from YQL: query:L1:0 mismatched input …"); a missing query is 400, code 3
// "No query"; hits/offset limits 400 (code 3, code 4 for YQL limit/offset); maxHits and friends
// as parameters 500, code 5; an unknown source 400, code 4. A timeout below 5 ms always expires
// (504, code 12, "No time left after waiting for 1ms to execute query"), as it does on a real
// Vespa; a longer timeout given by the request is checked while the corpus is scanned (Vespa's
// 500 ms default is not enforced, so that a large corpus does not time out).
//
// # Grouping
//
// The | all(...) and | each(...) steps of YQL are lexed as Vespa's VESPA_GROUPING token (the
// text up to the bracket that balances the first, strings not looked at) and parsed as
// GroupingParser.jj does, for this subset, evaluated over every match of the query: all and
// each, nested to any level; group(attribute) on long, double, string and bool attributes (a
// document with several values is in several groups) and group(predefined(attribute,
// bucket(from, to), …)) with half-open numeric buckets (group:long_bucket:from:to, limits);
// max(n) and max(inf) (default 10 groups and 10 hits, or grouping.defaultMaxGroups and
// grouping.defaultMaxHits); precision (accepted; the emulator is exact); order(±aggregate, …);
// output of count(), sum(x), avg(x), min(x), max(x) (x an attribute or relevance()), labelled
// with as(label); each(output(summary())) [as(label)] for the hits of a group, in the query's
// hit order. Groups are ordered by their best hit's relevance (then by first appearance), or by
// the order expressions; their relevance is the best hit's, or (n-i)/n under order, as Vespa's
// ResultBuilder sets it. count() is a long, sum(x) has x's type, avg(x) is a double. Output is
// rendered after the hits as root groups group:root:<i>, with grouplist:<label> and
// hitlist:<label> nodes, keys in JsonRenderer's order. A grouping attribute no searched schema
// declares as an attribute (an indexing statement without attribute; a Go field without one
// counts as an attribute) is refused before anything else of the
// grouping, as GroupingValidator refuses it: 400, code 17, "Invalid request [<path and query>]:
// Grouping request references attribute 'x' which is not available in cluster 'c'."; a
// grouping that does not parse is 400, code 3 (the message is the emulator's own).
// Before the corpus is scanned, the size of each grouping is bounded as RequestBuilder bounds
// it: a group or hit list without a limit (max(inf), or no max() with grouping.defaultMaxGroups
// or grouping.defaultMaxHits at -1) or a theoretical total of groups and summaries above
// grouping.globalMaxGroups (10000, or the default query profile's value; -1 turns the check
// off) is 400, code 4, with Vespa's message; grouping.globalMaxGroups as a request parameter is
// 400, code 17 ("... must be specified in a query profile.").
// Everything else of the grouping language (other functions and clauses, arithmetic, aliases,
// where, map lookups, string or infinite buckets, named summaries, a matched document without
// a value for a single-value grouping attribute, continuations for paging groups) is 501.
//
// What the emulator does not implement is answered with HTTP 501 and error code 501 ("Not
// implemented", a web-service code), with a message saying so; never with a silently wrong
// result: the grouping beyond the subset above, the JSON query language (select.where and
// select.grouping), formats other than JSON, near, onear, equiv, uri, fuzzy, wand, weightedSet,
// dotProduct, predicate, geoLocation, matches, sort functions, and other query types.
package search
