package vespa

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

// Dial backoff of each transport: after a failed dial the transport does
// not dial again for dialBackoffMin·2^(n−1), at most dialBackoffMax; until
// then its requests fail at once with the last dial error, as nothing was
// sent. So a closed port costs at most 1/dialBackoffMin dials a second per
// connection, not one per attempt of every operation in flight.
const (
	dialBackoffMin = 50 * time.Millisecond
	dialBackoffMax = time.Second
)

// reach is what a client knows of its endpoint's reachability, shared by
// all its transports (the shared one and each feeder connection's): whether
// a dial ever succeeded, and since when, if not, every dial was refused.
type reach struct {
	patience  time.Duration // WithConnectPatience; < 0: never give up
	logger    *slog.Logger
	connected atomic.Bool

	mu        sync.Mutex
	firstFail time.Time // the first refused dial, while never connected
	warned    bool
}

// failed returns the error of a dial that failed with err: err itself, or,
// once a client that never connected has met only refused connections and
// unknown hosts for its patience, an error matching
// [retries.ErrUnreachable] that no policy retries.
func (r *reach) failed(addr string, err error) error {
	if r.patience < 0 || r.connected.Load() || !unreachable(err) {
		return err
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstFail.IsZero() {
		r.firstFail = now
	}
	if now.Sub(r.firstFail) < r.patience {
		return err
	}
	if !r.warned {
		r.warned = true
		r.logger.Warn("vespa: the endpoint was never reached; requests fail at once until a dial succeeds",
			"addr", addr, "patience", r.patience, "error", err)
	}
	return fmt.Errorf("%w: no connection to %s in %v (WithConnectPatience): %w", retries.ErrUnreachable, addr, r.patience, err)
}

// unreachable reports whether err shows that the endpoint is not there: a
// refused connection, an unreachable host or network, or a host name that
// does not resolve (not a lookup that timed out).
func unreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

// dialer dials for one transport, with its backoff: after a failure, one
// dial at a time probes the endpoint, and requests fail at once with the
// last error until the backoff has passed.
type dialer struct {
	reach *reach
	net   net.Dialer

	mu      sync.Mutex
	fails   int
	until   time.Time // no dial before, while fails > 0
	last    error
	probing bool // a dial is under way while fails > 0
}

func newDialer(r *reach) *dialer {
	return &dialer{reach: r, net: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
}

// DialContext dials addr, or returns the last dial's error while its
// backoff lasts.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	if d.fails > 0 && (d.probing || time.Now().Before(d.until)) {
		err := d.last
		d.mu.Unlock()
		return nil, err
	}
	d.probing = d.fails > 0
	d.mu.Unlock()
	nc, err := d.net.DialContext(ctx, network, addr)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.probing = false
	switch {
	case err == nil:
		d.fails, d.last = 0, nil
		d.reach.connected.Store(true)
	case ctx.Err() != nil:
		// Cut by the caller: nothing learnt of the endpoint.
	default:
		err = d.reach.failed(addr, err)
		d.fails++
		wait := min(dialBackoffMin<<min(d.fails-1, 16), dialBackoffMax)
		d.until = time.Now().Add(wait)
		d.last = err
		if d.reach.logger.Enabled(ctx, slog.LevelDebug) {
			d.reach.logger.DebugContext(ctx, "vespa: dial failed", "addr", addr, "failures", d.fails, "next dial after", wait, "error", err)
		}
	}
	return nc, err
}
