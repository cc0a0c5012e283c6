package h2

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"golang.org/x/net/http2"

	"github.com/govespa/govespa/vespa/retries"
)

// stream is one request and its response. Fields without a note are
// guarded by c.mu.
type stream struct {
	c    *conn
	req  *http.Request
	ctx  context.Context
	wake chan struct{} // cap 1: the state changed

	// Request side.
	body            []byte // the request body; the caller's bytes until released
	id              uint32
	readsAtOpen     uint64 // the connection's reads when id was given
	responsesAtOpen uint64 // and its responses
	sent            int    // bytes of body planned for writing
	endSent         bool   // END_STREAM planned
	sendWindow      int64  // stream send window
	bodyMu          sync.Mutex
	released        bool        // under bodyMu: the writer must not touch body
	written         atomic.Bool // set under bodyMu: the whole request is written

	// Response side.
	resp        http.Response // res points here once the headers came
	rbody       body          // resp.Body
	res         *http.Response
	err         error  // why the stream failed
	rbuf        []byte // received body bytes not yet read
	roff        int
	ended       bool  // END_STREAM received
	rerr        error // what Read returns once rbuf is empty
	recvWindow  int64 // receive window left for the server
	recvUnacked int64 // read, not yet credited
	rwant       int64 // the response's content-length, or -1: unknown or not to be checked
	rgot        int64 // DATA bytes received, counted while rwant >= 0
	closedBody  bool
	small       [192]byte // rbuf's first storage: most answers fit
	done        bool      // retired: no longer in c.streams, slot free
}

func (s *stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// setErr records why s failed, for RoundTrip and for the body's Read.
func (s *stream) setErr(err error) {
	if s.err == nil {
		s.err = err
	}
	if s.res != nil && !s.ended && s.rerr == nil {
		s.rerr = err
	}
	s.signal()
}

// lengthError is the error of a response whose DATA does not match its
// content-length: a malformed response (RFC 9113 §8.1.1). resetStream
// names the stream and the server.
func (s *stream) lengthError() error {
	if s.rgot > s.rwant {
		return fmt.Errorf("more DATA than its content-length %d", s.rwant)
	}
	return fmt.Errorf("%d bytes of DATA, content-length %d", s.rgot, s.rwant)
}

// endedShort records that the response ended with less DATA than its
// content-length: its body's Read returns the bytes, then this error.
func (s *stream) endedShort() {
	s.rerr = fmt.Errorf("h2: stream %d from %s: %w: %w", s.id, s.c.addr, retries.ErrProtocolViolation, s.lengthError())
}

// releaseBody stops the writer from touching the caller's bytes; what was
// not yet written never will be.
func (s *stream) releaseBody() {
	s.bodyMu.Lock()
	if !s.written.Load() {
		s.released = true
	}
	s.bodyMu.Unlock()
}

// body is a response body. Reading credits the server's flow-control
// windows; Close before the end resets the stream.
type body struct {
	s *stream
}

// Read reads the response body; it returns the stream's error if it failed
// before the end, and the context's if the request's context ends.
func (b *body) Read(p []byte) (int, error) {
	s := b.s
	c := s.c
	for {
		c.mu.Lock()
		if s.closedBody {
			c.mu.Unlock()
			return 0, errBodyClosed
		}
		if s.roff < len(s.rbuf) {
			n := copy(p, s.rbuf[s.roff:])
			s.roff += n
			var err error
			if s.roff == len(s.rbuf) {
				s.rbuf, s.roff = s.rbuf[:0], 0 // the reader appends at the start again
				if s.ended {
					err = s.rerr // the end comes with the last bytes: no Read just for it
				}
			}
			wake := c.creditLocked(s, int64(n))
			c.mu.Unlock()
			if wake {
				c.signal()
			}
			return n, err
		}
		if s.rerr != nil {
			err := s.rerr
			c.mu.Unlock()
			return 0, err
		}
		c.mu.Unlock()
		if len(p) == 0 {
			return 0, nil
		}
		select {
		case <-s.wake:
		case <-s.ctx.Done():
			c.cancel(s) // sets rerr: the response had not ended
		}
	}
}

// Close discards what was not read and resets the stream if the response
// was not complete.
func (b *body) Close() error {
	s := b.s
	c := s.c
	c.mu.Lock()
	if s.closedBody {
		c.mu.Unlock()
		return nil
	}
	s.closedBody = true
	unread := int64(len(s.rbuf) - s.roff)
	s.rbuf, s.roff = nil, 0
	wake := false
	if unread > 0 {
		wake = c.creditConnLocked(unread)
	}
	if !s.done {
		if s.id != 0 {
			c.queueCtrl(ctrlFrame{kind: ctrlRST, streamID: s.id, n: uint32(http2.ErrCodeCancel)})
			wake = true
		}
		s.setErr(errBodyClosed)
		c.finish(s)
	}
	c.mu.Unlock()
	if wake {
		c.signal()
	}
	c.t.signalFree()
	return nil
}

// errBodyClosed is the error of a Read after Close, as net/http's.
var errBodyClosed = http.ErrBodyReadAfterClose

// creditLocked returns n read bytes of s to the server's windows, queueing
// WINDOW_UPDATEs once half a window is due. It reports whether the writer
// has frames to send.
func (c *conn) creditLocked(s *stream, n int64) bool {
	wake := c.creditConnLocked(n)
	if s.ended || s.done {
		return wake
	}
	s.recvUnacked += n
	if s.recvUnacked >= streamRecvWindow/2 {
		c.queueCtrl(ctrlFrame{kind: ctrlWindowUpdate, streamID: s.id, n: uint32(s.recvUnacked)}) //nolint:gosec // at most the window
		s.recvWindow += s.recvUnacked
		s.recvUnacked = 0
		wake = true
	}
	return wake
}

// creditConnLocked returns n bytes to the connection window.
func (c *conn) creditConnLocked(n int64) bool {
	c.recvUnacked += n
	if c.recvUnacked >= connRecvWindow/2 {
		c.queueCtrl(ctrlFrame{kind: ctrlWindowUpdate, n: uint32(c.recvUnacked)}) //nolint:gosec // at most the window
		c.recvWindow += c.recvUnacked
		c.recvUnacked = 0
		return true
	}
	return false
}
