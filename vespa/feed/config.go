package feed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/schema"
)

// Defaults of [Config]; a zero field means its default.
const (
	// DefaultConnections is the number of connections of a feeder whose
	// client leaves [vespa.WithConnections] at its default; it is
	// [vespa.DefaultConnections].
	DefaultConnections = vespa.DefaultConnections
	// DefaultMinInflightPerConnection and DefaultMaxInflightPerConnection
	// bound the adaptive in-flight limit, per connection. The minimum is
	// that of Vespa's Java and Go feed clients (2 per connection): a server
	// of fixed capacity that answers 429 can push the limit that far down.
	DefaultMinInflightPerConnection = 2
	DefaultMaxInflightPerConnection = 128
	// DefaultStartInflightPerConnection is where the adaptive limit starts,
	// per connection (within MinInflight and MaxInflight): higher than the
	// minimum, so that a feed need not climb from it.
	DefaultStartInflightPerConnection = 8
	// DefaultOperationTimeout is the deadline of one operation, all its
	// attempts and waits included.
	DefaultOperationTimeout = 3 * time.Minute
	// DefaultBreakerSpan is how long the feeder goes on while every attempt
	// fails before its circuit breaker stops the feed.
	DefaultBreakerSpan = time.Minute
	// DefaultGzipMinBytes is the smallest body that [CompressionAuto]
	// gzips. See [Compression] for how it was chosen.
	DefaultGzipMinBytes = 64 << 10
)

// Compression says when request bodies are gzipped.
//
// CompressionAuto, the default, gzips bodies of at least
// [Config.GzipMinBytes] (default 64 KiB). Measured on loopback (see
// bench_ext_test.go), gzip costs more CPU than it saves for 150-byte and 4 KB
// documents, and halves the throughput of a 2-core client; it only pays where
// bandwidth, not CPU, is the limit. Choose [CompressionGzip] for a slow link
// to a remote cluster.
type Compression int

const (
	// CompressionAuto gzips bodies of at least Config.GzipMinBytes.
	CompressionAuto Compression = iota
	// CompressionNone never gzips.
	CompressionNone
	// CompressionGzip gzips every body.
	CompressionGzip
)

// compressionNames are the Compression values' names, for String and
// ParseCompression both.
var compressionNames = [...]string{CompressionAuto: "auto", CompressionNone: "none", CompressionGzip: "gzip"}

// String returns "auto", "none" or "gzip".
func (c Compression) String() string {
	if c >= 0 && int(c) < len(compressionNames) {
		return compressionNames[c]
	}
	return fmt.Sprintf("Compression(%d)", int(c))
}

// ParseCompression reads "auto", "none" or "gzip"; "" is auto.
func ParseCompression(s string) (Compression, error) {
	if s == "" {
		return CompressionAuto, nil
	}
	if i := slices.Index(compressionNames[:], s); i >= 0 {
		return Compression(i), nil
	}
	return 0, fmt.Errorf("feed: unknown compression %q (want auto, none or gzip)", s)
}

// Config tunes a [Feeder]. Its zero value is ready to use: every zero field
// means the default written beside it. [New] rejects contradictions.
type Config struct {
	// Connections is the number of connections the feeder opens to the
	// endpoint, each an *http.Client with its own transport from
	// [vespa.Client.NewHTTPClient]; each request goes to the least busy.
	// "Connections" means the same in vespa and feed: 0 takes the client's
	// [vespa.WithConnections] (default 8), so one setting sizes both. Each
	// connection speaks HTTP/2 by default and carries many requests at once
	// ([vespa.Client.NewFeedHTTPClient]: h2c on http://, ALPN on https://,
	// as Vespa's own feed clients do); a client built with
	// vespa.WithHTTPVersion(vespa.HTTP1) makes each one a pool that opens a
	// TCP connection per request in flight.
	Connections int
	// MinInflight and MaxInflight bound the adaptive limit of operations in
	// flight. Defaults 2 and 128 per connection. Operations waiting to be
	// retried do not count.
	//
	// How the limit moves: it starts at 8 per connection (within the
	// bounds) and first grows — it doubles every few hundred operations as
	// long as throughput doubles with it and latency stays flat, which is
	// what a far-away Vespa (another region, Vespa Cloud from elsewhere)
	// looks like: there each operation waits a round trip, and the window,
	// not the server, bounds the pace. It stops growing at the first 429 or
	// 504, when throughput stops rising or latency rises with the window (a
	// queue filling up), or at its ceiling; from there it probes around the
	// best throughput it measured (Vespa's DynamicThrottler design). A 429
	// or 504 lowers it at once to half of what was in flight, down to
	// MinInflight, and it creeps back, slowly near where it was throttled.
	// The ceiling is MaxInflight or, over HTTP/2 with govespa's transport,
	// the streams the server lets the connections open at once
	// (SETTINGS_MAX_CONCURRENT_STREAMS), if fewer.
	MinInflight int
	// MaxInflight is the most operations in flight at once; see MinInflight.
	// Set it lower for a cluster that must not take more, whatever its
	// latency: the limit never passes it.
	MaxInflight int
	// MaxPending is the number of operations accepted but not yet finished
	// (in flight or queued) beyond which enqueuing blocks. Default
	// 2×MaxInflight.
	MaxPending int

	// OperationTimeout is the deadline of each operation, all attempts and
	// waits included, so that a cluster that never recovers still ends the
	// feed. Default 3 minutes. Each request asks Vespa for the time left;
	// the feeder gives up on an attempt's answer at most 1/16 of
	// OperationTimeout (1 s at most) after the deadline.
	OperationTimeout time.Duration
	// Route is the /document/v1 route parameter; "" means Vespa's default.
	Route string
	// Compression says which request bodies are gzipped. Default
	// [CompressionAuto].
	Compression Compression
	// GzipMinBytes is the smallest body gzipped under CompressionAuto.
	// Default 64 KiB.
	GzipMinBytes int

	// Retries are the retry policies of each operation, taken step by step
	// ([retries.Stepper]) and nested outermost first, so that an operation
	// waiting for its next attempt is parked and holds no in-flight slot.
	// Default {[retries.Feed]}: 429, 503, 504 and transport errors retried
	// until OperationTimeout, with short jittered waits. {[retries.DocV1],
	// [retries.Throttle]} is the feeder's earlier, pyvespa-like behaviour (a
	// 503 or transport error retried twice, after 1 s and 2 s). An invalid
	// policy is an error of [New].
	Retries []retries.Policy
	// MayResend says which operations may be sent again after an attempt
	// that may have reached Vespa without an answer (a connection that
	// failed after the request was written, or a 504): true sends it again,
	// false ends it with an error matching [ErrNotResent]. Nil means
	// [DefaultMayResend]: puts, removes and updates without arithmetic or
	// add. A failure to connect is always retried: nothing was sent.
	MayResend func(op *Operation) bool

	// BreakerSpan is how long nothing but failures (transport errors and
	// 5xx; a 4xx is Vespa's verdict on the operation, not a failure of the
	// cluster) may go on before the circuit breaker stops the feed. Default
	// one minute; a negative value turns the breaker off. A feed whose client
	// never reached its endpoint stops sooner, after the client's connect
	// patience (vespa.WithConnectPatience, 5 s by default).
	BreakerSpan time.Duration

	// Schema, when set, checks each put and update against the
	// application's schemas before it is accepted (see
	// [schema.Application.CheckPut] and [schema.Application.CheckUpdate]),
	// and each remove's document type: an operation that does not fit (an
	// unknown field or document type, a value of the wrong type, a tensor
	// of the wrong shape, an update operation its field does not take) is
	// refused with an error matching [ErrInvalidOperation] and
	// [schema.ErrInvalidDocument] that names the document ID, the field,
	// what was expected and, from a feed file, its line; nothing is sent for
	// it and the feed goes on. Load it with [schema.ParseDir]. Nil means
	// the client's, [vespa.WithSchema] (see [vespa.Client.Schema]), if it
	// has one: a client that checks what it sends checks it through a
	// feeder too. The check reads each operation's JSON once, in place
	// (see BenchmarkFeedSchemaCheck for its share of the feeder's CPU).
	Schema *schema.Application

	// StopAtFirstBadLine makes [Feeder.Feed] and [Feeder.FeedReader] stop at
	// the first malformed operation, returning its [*ParseError], or at the
	// first one [Feeder.Enqueue] refuses ([ErrInvalidOperation]: an invalid
	// document ID, or one that does not fit [Config.Schema]), returning that
	// error, instead of reporting it as a failure and going on.
	StopAtFirstBadLine bool

	// Journal, when set, records the operations of feed files that Vespa
	// acknowledged, and [Feeder.Feed] skips those it holds (see [Journal]).
	Journal *Journal

	// OnOutcome receives the outcome of every operation, exactly once per
	// operation, with the context it was enqueued with, before the
	// operation's own [Operation.Done]. It is called on a feeder goroutine
	// (the one that sent the operation) or, for operations that never
	// reached one (malformed, skipped), on the goroutine that called Feed;
	// calls happen concurrently and must be safe for that. For one document
	// ID, calls come in input order. It holds neither an in-flight slot nor
	// a pending one, so it may enqueue (to re-feed a failed operation, say)
	// even at MaxPending without deadlock; the next operation on its
	// document waits until it returns. Nil means outcomes are only counted
	// in [Feeder.Stats].
	OnOutcome func(ctx context.Context, o Outcome)

	// Progress, when set, is called every ProgressInterval (default one
	// second) while the feeder is open, and once more by [Feeder.Close]
	// with Final set, after the last outcome. It is called on a goroutine of
	// the feeder's own, one call at a time; it must not call Close (which
	// waits for it) and should return quickly.
	Progress func(Progress)
	// ProgressInterval is the time between two Progress calls; zero means
	// one second.
	ProgressInterval time.Duration
	// ExpectedOperations, when known (the lines of a feed file, say), lets
	// [Progress] estimate the time left.
	ExpectedOperations int64
}

// withDefaults returns cfg completed with defaults, or an error for a
// contradiction.
func (cfg Config) withDefaults(client *vespa.Client) (Config, error) {
	if cfg.Connections <= 0 {
		cfg.Connections = client.Connections()
	}
	if cfg.Schema == nil {
		cfg.Schema = client.Schema()
	}
	if cfg.MinInflight <= 0 {
		cfg.MinInflight = DefaultMinInflightPerConnection * cfg.Connections
	}
	if cfg.MaxInflight <= 0 {
		cfg.MaxInflight = max(cfg.MinInflight, DefaultMaxInflightPerConnection*cfg.Connections)
	}
	if cfg.MaxInflight < cfg.MinInflight {
		return cfg, fmt.Errorf("feed: MaxInflight %d is below MinInflight %d", cfg.MaxInflight, cfg.MinInflight)
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = 2 * cfg.MaxInflight
	}
	if cfg.MaxPending < cfg.MaxInflight {
		return cfg, fmt.Errorf("feed: MaxPending %d is below MaxInflight %d", cfg.MaxPending, cfg.MaxInflight)
	}
	if cfg.OperationTimeout <= 0 {
		cfg.OperationTimeout = DefaultOperationTimeout
	}
	if cfg.BreakerSpan == 0 {
		cfg.BreakerSpan = DefaultBreakerSpan
	}
	if cfg.GzipMinBytes <= 0 {
		cfg.GzipMinBytes = DefaultGzipMinBytes
	}
	if cfg.Retries == nil {
		cfg.Retries = []retries.Policy{retries.FeedPolicy()}
	} else {
		cfg.Retries = slices.Clone(cfg.Retries)
	}
	for i, p := range cfg.Retries {
		if err := p.Err(); err != nil {
			return cfg, fmt.Errorf("feed: Retries[%d]: %w", i, err)
		}
	}
	if cfg.Compression < CompressionAuto || cfg.Compression > CompressionGzip {
		return cfg, fmt.Errorf("feed: unknown Compression %d", int(cfg.Compression))
	}
	return cfg, nil
}

// ErrClosed is returned by enqueuing on a closed [Feeder], and is the cause of
// the cancellation of operations that Close had to give up on.
var ErrClosed = errors.New("feed: feeder closed")
