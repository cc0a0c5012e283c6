// Package query is the client of Vespa's query API (/search/): a safe YQL
// builder, typed results with Vespa's error codes, and batches of queries
// with adaptive concurrency.
//
// One query, on top of a core client:
//
//	vc, err := vespa.NewClient("http://localhost:8080")
//	...
//	qc, err := query.New(vc)
//	yql, err := query.Select("title", "artist").From("music").
//		Where(query.Contains("title", userText)).YQL()
//	res, err := qc.Search(ctx, &query.Request{YQL: yql, Hits: 10})
//	songs, err := query.DecodeHits[Song](res)
//
// The query client shares the core client's endpoint, credentials, TLS and
// logger. To change what is its own, pass options to [New]: [WithPath] for a
// search handler other than /search/, [WithRetryPolicy] to replace
// [retries.Query], [WithHTTPClient] for a connection pool of its own.
//
// # YQL
//
// [Select] starts a [Builder]; conditions ([Contains], [And], [Range],
// [NearestNeighbor], [UserInput], [WeightedSet], [Wand], [GeoLocation],
// [Fuzzy], ...) render every value as an escaped YQL literal and validate
// every name against Vespa's grammar, so user input cannot change the
// statement. The rendering keeps the tree's meaning by construction: an
// [And] or [Or] of one condition is that condition, and every nested and/or
// chain is parenthesised, so however many conditions a user's choices make,
// and binds as the tree says. Grouping is built with package grouping and
// [Builder.GroupingOf], or given as raw expression text with
// [Builder.Grouping]. Values that should not be part of the statement at all
// travel as parameters: [Param] in the statement, the value in
// [Request.Params].
//
// # Requests and results
//
// A [Request] holds the parameters of one query; zero fields are not sent.
// It is POSTed as JSON by default, or sent as a GET. [Client.Search] runs it
// under [retries.Query]: only a failed transport is retried; every HTTP
// answer is a result. Parameters are encoded as Vespa reads them, the same
// for GET and POST (see [Request.Params]). A 2xx answer gives a [Result]:
// hits with raw fields (decode with [Hits], which keeps each hit's ID,
// relevance, source and match-features, or [Hit.Decode] and [DecodeHits]),
// grouping output ([Result.Groups], [Hit.List], [Hit.Aggregate],
// [GroupHits]), coverage, errors, timing and trace. A 200 result may carry errors next to its hits; [Result.Err]
// returns them as an error.
//
// # Coverage and degraded results
//
// A 200 result can hold fewer hits than the corpus has: with the soft
// timeout (ranking.softtimeout.enable, on by default) a content node that
// runs out of time answers with the hits it found so far, and Vespa answers
// 200 with no error but with root.coverage.degraded.timeout set. The other
// reasons are a rank profile's match-phase limit (match-phase), the
// adaptive timeout that stops waiting for slow nodes (adaptive-timeout), an
// approximate nearest-neighbor search out of time (anntimeout), and a
// content cluster not in its ideal state (non-ideal-state: less than 100 %
// covered and no other reason). [Result.Coverage] holds root.coverage (nil
// when no content node was asked), [Coverage.Degraded] its degraded object
// (nil when Vespa wrote none) and [Coverage.IsDegraded] reports either a
// reason or coverage that is not full, so that
//
//	if r.Coverage.IsDegraded() { /* partial: retry, widen the timeout, or tell the user */ }
//
// is the check for "these hits may not be all". [Result.Err] does not report
// degradation: it is not an error in Vespa's answer. A hard timeout (soft
// timeout off, or nothing found in time) is a 504 with code 12 instead.
//
// # Errors
//
// Any other status gives an *[Error] with the status, the result's
// [ErrorMessage] entries (each with its [ErrorCode]) and the decoded result.
// errors.Is matches it with the core sentinels ([vespa.ErrBadRequest] for
// 400, [vespa.ErrUnavailable] for 503, [vespa.ErrTimeout] for 504, ...) and
// with [ErrServerError], [ErrUnauthorized], [ErrForbidden],
// [ErrPartialResult] and [ErrMalformedResponse]; [CodeOf] reads the code,
// and errors.As (or errors.AsType[*query.Error] on Go 1.26) the whole error.
//
// # Many queries
//
// [Client.SearchBatch] runs many requests and returns their responses in
// input order; [Client.SearchEach] yields them as they complete. Both adapt
// the number of queries in flight ([BatchConfig]): it grows while answers
// succeed and halves on 429, 503 and 504.
//
// A [Client] is safe for concurrent use; create it once and reuse it.
package query
