// Package feed is govespa's asynchronous data plane: a [Feeder] that sends
// many document operations to Vespa's /document/v1 at once, over several
// connections, and accounts for every one of them; and a [Reader] for Vespa
// feed files.
//
// Feeding a file takes a client, a feeder and one call:
//
//	client, err := vespa.NewClient(endpoint, vespa.WithHTTPVersion(vespa.HTTP2))
//	f, err := feed.New(client, feed.Config{OnOutcome: func(ctx context.Context, o feed.Outcome) {
//		if !o.OK() {
//			log.Printf("line %d: %v", o.Operation.Line, o.Err)
//		}
//	}})
//	err = f.FeedReader(ctx, "docs.jsonl", file)
//	err = f.Close(ctx)
//	fmt.Println(f.Stats().Succeeded)
//
// Single operations go through [Feeder.Put] (any value encoding/json turns
// into the fields object, or the raw JSON), [Feeder.Update] (a
// [*vespa.Update] from the builder, or the raw field updates),
// [Feeder.Remove] and [Feeder.Enqueue]; any stream of operations through
// [Feeder.Feed]. Each operation may carry the caller's [Operation.Meta] and
// its own completion, [Operation.Done], called with its [Outcome] (to commit
// a message offset once its document is acknowledged, say).
//
// # Tuning
//
// A zero [Config] works. Its knobs: the number of connections (the client's
// [vespa.WithConnections] by default), the bounds of the adaptive in-flight
// limit, the pending-operation bound (back-pressure), the per-operation
// deadline, the retry policies, which operations may be sent again after a
// failure that may have reached Vespa, the route, compression, the circuit
// breaker, what to do with malformed lines, and a resume [Journal].
//
// # Guarantees
//
//   - Every accepted operation ends in exactly one [Outcome]: success,
//     failure (with the HTTP status, Vespa's message, the attempts and the
//     input line) or cancellation. Nothing is dropped on cancellation or
//     Close. An operation that cannot be sent (an invalid document ID,
//     fields that are not a JSON object) is refused when it is enqueued
//     ([ErrInvalidOperation]), before any attempt.
//   - Operations on one document never overlap and run in input order, also
//     while one of them waits to be retried.
//   - Retries follow [Config.Retries], by default [retries.Feed]: 429, 503,
//     504 and transport errors are retried until [Config.OperationTimeout],
//     with short jittered waits. A waiting operation is parked on a timer and
//     holds no in-flight slot, so that faults do not idle the window; a 429
//     lowers the in-flight target instead. The circuit breaker stops a feed
//     whose cluster is gone ([Config.BreakerSpan]).
//   - An update with arithmetic or add is not sent twice after a failure
//     that may have reached Vespa: it fails with [ErrNotResent] (see
//     [DefaultMayResend] and [Config.MayResend]).
//   - Memory is bounded: enqueuing blocks while [Config.MaxPending]
//     operations are unfinished, and the [Reader] streams its input.
//   - The [Journal] never skips an operation it did not see acknowledged:
//     its records are bound to each operation's content.
//
// # Feed files
//
// A feed file is a JSON array of operations or JSONL (objects one after
// another), as Vespa's own feed clients read them: {"put": id, "fields":
// {...}}, {"update": id, "fields": {...}, "create": true}, {"remove": id},
// with an optional "condition", and the legacy "id" key for put. A leading
// UTF-8 byte order mark is skipped; a key given twice in one operation is an
// error naming its line.
package feed
