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
// with resty's own retries and debug output off. The document hot path
// ([vespa.Client.SendOnce], used by the feeder) goes straight to the same
// *http.Client and applies the same policies through [Finish].
package wire
