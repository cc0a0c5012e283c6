package vespa

import (
	"fmt"
	"time"
)

// Defaults of [WithHealthCheck].
const (
	// DefaultReadIdleTimeout is how long an HTTP/2 connection may receive
	// nothing before it sends a PING.
	DefaultReadIdleTimeout = 10 * time.Second
	// DefaultPingTimeout is how long that PING may go unanswered before the
	// connection is closed.
	DefaultPingTimeout = 5 * time.Second
)

// WithHealthCheck sets how HTTP/2 connections find out that the server is
// gone (a hung server, a load balancer that dropped the flow): a connection
// that received nothing for readIdle sends a PING, and one that goes
// unanswered for pingTimeout closes the connection. Its requests then fail
// as on a lost connection (retried under the policy), and the next ones go
// to a new connection. The batching transport also sends a PING at once when
// a request times out with nothing received since it was sent, and stops
// using a connection whose requests only time out (three in a row). Default
// [DefaultReadIdleTimeout] and [DefaultPingTimeout]; readIdle 0 sends no
// PING on idleness; pingTimeout must be positive. It applies to net/http's
// HTTP/2 as well (its SendPingTimeout and PingTimeout); HTTP/1.1 has no
// such check.
func WithHealthCheck(readIdle, pingTimeout time.Duration) Option {
	return healthOption{readIdle, pingTimeout}
}

type healthOption struct{ readIdle, ping time.Duration }

func (o healthOption) apply(c *config) error {
	if o.readIdle < 0 || o.ping <= 0 {
		return fmt.Errorf("vespa: %v: readIdle must not be negative and pingTimeout must be positive", o)
	}
	c.readIdle, c.pingTimeout = o.readIdle, o.ping
	return nil
}

func (o healthOption) String() string {
	return fmt.Sprintf("WithHealthCheck(%v, %v)", o.readIdle, o.ping)
}
