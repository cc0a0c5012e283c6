// Package wire is the one HTTP exchange of govespa: every package of the SDK
// (documents, visits, health, queries, the control plane, model URLs) sends
// its requests through it, so that a limit or a rule changes in one place.
//
// One exchange builds the request, applies its deadline, sends it on a
// transport that never retries on its own, refuses redirects it was not told
// to follow, reads the answer within a limit (never allocating from an
// untrusted Content-Length), parses Retry-After once, and makes the error:
// one [Error] type with one status→sentinel table, which package vespa
// exports as vespa.Error.
//
// [Exchange.Do] is built on resty (request building, response handling),
// with resty's own retries and debug output off: health checks, visit pages,
// the control plane and model URLs use it. The hot paths go straight to the
// same *http.Client and apply the same rules through [Finish]: queries with
// [Exchange.Send], document operations (vespa.Client.SendOnce, which the
// feeder uses) with [ReadAnswer]. resty costs about 15 allocations per
// request, which the benchmarks of those two paths would show.
package wire
