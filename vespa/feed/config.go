package feed

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Defaults of [Config]; a zero field means its default.
const (
	// DefaultConnections is the number of HTTP connections (each with its
	// own transport).
	DefaultConnections = 8
	// DefaultMinInflightPerConnection and DefaultMaxInflightPerConnection
	// bound the adaptive in-flight limit, per connection.
	DefaultMinInflightPerConnection = 8
	DefaultMaxInflightPerConnection = 128
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

// String returns "auto", "none" or "gzip".
func (c Compression) String() string {
	switch c {
	case CompressionAuto:
		return "auto"
	case CompressionNone:
		return "none"
	case CompressionGzip:
		return "gzip"
	}
	return fmt.Sprintf("Compression(%d)", int(c))
}

// ParseCompression reads "auto", "none" or "gzip".
func ParseCompression(s string) (Compression, error) {
	switch s {
	case "auto", "":
		return CompressionAuto, nil
	case "none":
		return CompressionNone, nil
	case "gzip":
		return CompressionGzip, nil
	}
	return 0, fmt.Errorf("feed: unknown compression %q (want auto, none or gzip)", s)
}

// Config tunes a [Feeder]. Its zero value is ready to use: every zero field
// means the default written beside it. [New] rejects contradictions.
type Config struct {
	// Connections is the number of HTTP connections, each its own transport
	// from [vespa.Client.NewHTTPClient]; each request goes to the least busy.
	// Default 8. Give the client vespa.WithHTTPVersion(vespa.HTTP2): over
	// HTTP/1.1 each request in flight needs a connection of its own.
	Connections int
	// MinInflight and MaxInflight bound the adaptive limit of operations in
	// flight. Defaults 8 and 128 per connection. The limit starts at
	// MinInflight and probes upwards for throughput; it backs off on 429
	// and 504.
	MinInflight int
	// MaxInflight is the most operations in flight at once; see MinInflight.
	MaxInflight int
	// MaxPending is the number of operations accepted but not yet finished
	// (in flight or queued) beyond which enqueuing blocks. Default
	// 2×MaxInflight.
	MaxPending int

	// OperationTimeout is the deadline of each operation, all attempts and
	// waits included, so that a cluster that never recovers still ends the
	// feed. Default 3 minutes. Each request asks Vespa for the time left.
	OperationTimeout time.Duration
	// Route is the /document/v1 route parameter; "" means Vespa's default.
	Route string
	// Compression says which request bodies are gzipped. Default
	// [CompressionAuto].
	Compression Compression
	// GzipMinBytes is the smallest body gzipped under CompressionAuto.
	// Default 64 KiB.
	GzipMinBytes int

	// BreakerSpan is how long nothing but failures (transport errors and
	// 5xx; a 4xx is Vespa's verdict on the operation, not a failure of the
	// cluster) may go on before the circuit breaker stops the feed. Default
	// one minute; a negative value turns the breaker off.
	BreakerSpan time.Duration

	// StopAtFirstBadLine makes [Feeder.Feed] and [Feeder.FeedReader] stop at
	// the first malformed operation, returning its [*ParseError], instead of
	// reporting it as a failure and going on.
	StopAtFirstBadLine bool

	// Journal, when set, records the operations of feed files that Vespa
	// acknowledged, and [Feeder.Feed] skips those it holds (see [Journal]).
	Journal *Journal

	// OnOutcome receives the outcome of every operation, exactly once per
	// operation, with the context it was enqueued with. It is called on a
	// feeder goroutine (the one that sent the operation) or, for
	// operations that never reached one (malformed, skipped), on the
	// goroutine that called Feed; calls happen concurrently and must be
	// safe for that. For one document ID, calls come in input order. It
	// should return quickly: the operation's in-flight slot is held until
	// it returns. Nil means outcomes are only counted in [Feeder.Stats].
	OnOutcome func(ctx context.Context, o Outcome)
}

// withDefaults returns cfg completed with defaults, or an error for a
// contradiction.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Connections <= 0 {
		cfg.Connections = DefaultConnections
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
	if cfg.Compression < CompressionAuto || cfg.Compression > CompressionGzip {
		return cfg, fmt.Errorf("feed: unknown Compression %d", int(cfg.Compression))
	}
	return cfg, nil
}

// ErrClosed is returned by enqueuing on a closed [Feeder], and is the cause of
// the cancellation of operations that Close had to give up on.
var ErrClosed = errors.New("feed: feeder closed")
