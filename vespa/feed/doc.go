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
// Single operations go through [Feeder.Put], [Feeder.Update],
// [Feeder.Remove] and [Feeder.Enqueue]; any stream of operations through
// [Feeder.Feed].
//
// # Tuning
//
// A zero [Config] works. Its knobs: the number of connections, the bounds of
// the adaptive in-flight limit, the pending-operation bound (back-pressure),
// the per-operation deadline, the route, compression, the circuit breaker,
// what to do with malformed lines, and a resume [Journal].
//
// # Guarantees
//
//   - Every accepted operation ends in exactly one [Outcome]: success,
//     failure (with the HTTP status, Vespa's message, the attempts and the
//     input line) or cancellation. Nothing is dropped on cancellation or
//     Close.
//   - Operations on one document never overlap and run in input order.
//   - Retries follow [retries.DocV1] wrapping [retries.Throttle], and end at
//     [Config.OperationTimeout].
//   - Memory is bounded: enqueuing blocks while [Config.MaxPending]
//     operations are unfinished, and the [Reader] streams its input.
//
// # Feed files
//
// A feed file is a JSON array of operations or JSONL (objects one after
// another), as Vespa's own feed clients read them: {"put": id, "fields":
// {...}}, {"update": id, "fields": {...}, "create": true}, {"remove": id},
// with an optional "condition", and the legacy "id" key for put.
package feed
