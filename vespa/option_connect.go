package vespa

import (
	"errors"
	"fmt"
	"time"
)

// DefaultConnectPatience is how long a client that has never reached its
// endpoint retries refused connections and unknown hosts (see
// [WithConnectPatience]).
const DefaultConnectPatience = 5 * time.Second

// WithConnectPatience sets how long a client that has not yet connected to
// its endpoint goes on while every dial is refused or the host does not
// resolve, before it takes the endpoint for a wrong one: its requests then
// fail at once with an error matching [ErrUnreachable] (no policy of the
// data plane retries it, and a feeder stops with it), and it keeps dialing,
// at most once a second per connection, so that it recovers when the
// endpoint comes up. Once a dial succeeded, refused connections are retried
// as any connection error. Default [DefaultConnectPatience]; a negative d
// never gives up (for a client made before its Vespa starts, say), and d
// must not be 0.
//
// Whatever the patience, a failed dial is not repeated at once: each
// connection waits 50 ms after its first failure, doubling up to 1 s, and
// its requests fail with the last dial error meanwhile (nothing was sent).
func WithConnectPatience(d time.Duration) Option { return patienceOption(d) }

type patienceOption time.Duration

func (o patienceOption) apply(c *config) error {
	if o == 0 {
		return errors.New("vespa: WithConnectPatience(0): use a positive duration, or a negative one never to give up")
	}
	c.patience = time.Duration(o)
	return nil
}

func (o patienceOption) String() string {
	return fmt.Sprintf("WithConnectPatience(%v)", time.Duration(o))
}
