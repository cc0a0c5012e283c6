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
// (default 10, at most 400); offset/start (at most 1000); timeout (seconds, or with ms/s/m; default
// 500 ms); ranking/ranking.profile and presentation.summary (accepted and ignored: there is one
// relevance and one summary); sorting (+f -f); sources/restrict; trace.level (adds a short trace);
// presentation.timing; input.query(x), ranking.features.query(x), rankfeature.query(x).
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
// Relevance is the emulator's own, not nativeRank: each matched term or phrase adds tf/(1+tf)
// (tf: its occurrences in the field), each nearestNeighbor adds its closeness, and filters (=, <,
// range, true, …) add nothing. nearestNeighbor is exact: it matches the targetHits nearest
// documents (within distanceThreshold) under the field's metric, pre-filtered by its siblings
// when it sits directly in the top-level and. Distances: euclidean, angular (the angle),
// prenormalized-angular (1 - dot), dotproduct (-dot) and hamming; closeness is 1/(1+distance),
// and the dot product itself for dotproduct. Hits are ordered by relevance, then document ID, or
// by the order by / sorting keys (numbers numerically, strings by bytes, missing values last).
//
// # Results and errors
//
// root.id "toplevel", relevance 1.0, fields.totalCount, coverage (100 %, documents = the corpus
// size, one node), children with id (the document ID), relevance, source (the document type) and
// fields (sddocname, documentid, then the document fields in schema order; with a select list
// only the listed fields). Dense tensors are written in the short form {"type","values"}. Errors
// carry Vespa's codes and HTTP statuses: a YQL syntax error is 400, code 3 ("Could not
// instantiate query from YQL: query:L1:0 mismatched input …"); a missing query is 400, code 3
// "No query"; hits/offset limits 400 (code 3, code 4 for YQL limit/offset); maxHits and friends
// as parameters 500, code 5; an unknown source 400, code 4. A timeout below 5 ms always expires
// (504, code 12, "No time left after waiting for 1ms to execute query"), as it does on a real
// Vespa; a longer timeout given by the request is checked while the corpus is scanned (Vespa's
// 500 ms default is not enforced, so that a large corpus does not time out).
//
// What the emulator does not implement is answered with HTTP 501 and error code 501 ("Not
// implemented", a web-service code), with a message saying so; never with a silently wrong
// result: grouping (the | part of YQL), the JSON query language (select.where and
// select.grouping), formats other than JSON, near, onear, equiv, uri, fuzzy, wand, weightedSet,
// dotProduct, predicate, geoLocation, matches, sort functions, and other query types.
package search
