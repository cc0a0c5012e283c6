package h2

import (
	"encoding/binary"
	"errors"
	"net"
	"time"
)

// A connection learns that its server is gone in two ways: it receives
// nothing for [Transport.ReadIdleTimeout], or a stream ends by its deadline
// with nothing received since the stream was sent (a silent timeout). Either
// sends a PING; one not answered within [Transport.PingTimeout] closes the
// connection. And after maxSilentTimeouts silent timeouts in a row, with no
// response in between, the connection takes no new stream (it closes once
// its streams end): a server that answers PINGs but nothing else is left for
// a fresh connection.

// idleReader is what the buffered reader reads from: the socket, under a
// read deadline that sends a PING when it passes idle and ends the
// connection when a PING goes unanswered. It counts the reads that brought
// bytes.
type idleReader struct{ c *conn }

func (r idleReader) Read(p []byte) (int, error) {
	c := r.c
	for {
		c.armReadDeadline()
		n, err := c.nc.Read(p)
		if n > 0 {
			c.reads.Add(1)
			if isTimeout(err) {
				err = nil // the next Read sees the deadline again
			}
			return n, err
		}
		if !isTimeout(err) {
			return n, err
		}
		if err := c.readIdle(); err != nil {
			return 0, err
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return err != nil && errors.As(err, &ne) && ne.Timeout()
}

// armReadDeadline sets the socket's read deadline for the next read: the
// PING's, when one is unanswered, else ReadIdleTimeout from now, else none.
// It is set under mu, as timedOut sets it, so that neither undoes the other.
// An idle deadline set less than an eighth of ReadIdleTimeout ago is kept
// (reads come by the thousand a second when busy): the PING may then go out
// up to an eighth early.
func (c *conn) armReadDeadline() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var dl time.Time
	switch d := c.t.ReadIdleTimeout; {
	case c.pingOut:
		dl = c.pingAt.Add(c.t.pingTimeout())
		c.idleArmedAt = time.Time{}
	case d > 0:
		now := time.Now()
		if !c.idleArmedAt.IsZero() && now.Sub(c.idleArmedAt) < d/8 {
			return
		}
		dl, c.idleArmedAt = now.Add(d), now
	}
	if !dl.IsZero() || c.deadlineSet {
		_ = c.nc.SetReadDeadline(dl)
		c.deadlineSet = !dl.IsZero()
	}
}

// readIdle handles a read deadline that passed with nothing read: the PING
// went unanswered (ErrPingTimeout ends the connection), or the connection
// was idle for ReadIdleTimeout and sends one.
func (c *conn) readIdle() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	switch {
	case c.pingOut:
		if now.Sub(c.pingAt) >= c.t.pingTimeout() {
			return ErrPingTimeout
		}
	case c.t.ReadIdleTimeout > 0:
		c.startPingLocked(now)
	}
	return nil
}

// startPingLocked queues a PING of ours; the caller holds mu.
func (c *conn) startPingLocked(now time.Time) {
	if c.closed {
		return
	}
	c.pings++
	binary.BigEndian.PutUint64(c.pingData[:], c.pings)
	c.pingOut, c.pingAt = true, now
	c.queueCtrl(ctrlFrame{kind: ctrlPing, data: c.pingData})
	c.signal()
}

// onPingAck handles the server's answer to a PING.
func (c *conn) onPingAck(data [8]byte) {
	c.mu.Lock()
	if c.pingOut && data == c.pingData {
		c.pingOut = false
	}
	c.mu.Unlock()
}

// timedOut notes that s ended by its deadline. If nothing was read on the
// connection since s was sent, the server may be gone: a PING goes out now
// (its deadline replaces the idle one). And if no response came since s was
// sent, the timeout counts as silent: after maxSilentTimeouts of them in a
// row (a response resets the count), the connection is retired.
func (c *conn) timedOut(s *stream) {
	c.mu.Lock()
	retire := false
	if s.id != 0 && !s.done && !c.closed {
		if c.reads.Load() == s.readsAtOpen && !c.pingOut {
			c.startPingLocked(time.Now())
			_ = c.nc.SetReadDeadline(c.pingAt.Add(c.t.pingTimeout()))
			c.deadlineSet, c.idleArmedAt = true, time.Time{}
		}
		if c.responses == s.responsesAtOpen {
			c.silent++
		}
		if c.silent >= maxSilentTimeouts && !c.retired {
			c.retired, retire = true, true
		}
	}
	c.mu.Unlock()
	if retire {
		c.t.forget(c)
	}
}
