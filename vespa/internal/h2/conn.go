package h2

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Windows and sizes of this side of a connection.
const (
	// streamRecvWindow is the flow-control window granted to the server per
	// stream (SETTINGS_INITIAL_WINDOW_SIZE).
	streamRecvWindow = 1 << 20
	// connRecvWindow is the connection's receive window.
	connRecvWindow = 16 << 20
	// bufSize is the size of the buffered reader and writer.
	bufSize = 64 << 10
	// maxReadFrame is the largest frame the server may send: the default
	// SETTINGS_MAX_FRAME_SIZE, which we do not change.
	maxReadFrame = 16384
	// maxStreamsBeforeSettings bounds the streams opened before the
	// server's first SETTINGS arrives (RFC 9113 6.5.2 recommends assuming
	// no more than 100).
	maxStreamsBeforeSettings = 100
	// maxReservations bounds the streams ever opened on one connection,
	// well below the 2^31 stream identifiers.
	maxReservations = 1 << 29
	// defaultWindow is HTTP/2's initial window before SETTINGS say otherwise.
	defaultWindow = 65535
	// maxSilentTimeouts is how many streams in a row may end by their
	// deadline with nothing read on the connection since they were sent
	// before the connection takes no new stream.
	maxSilentTimeouts = 3
)

// conn is one HTTP/2 connection: a reader goroutine, a writer goroutine and
// the state they share under mu.
type conn struct {
	t    *Transport
	key  connKey
	addr string
	nc   net.Conn
	bw   *bufio.Writer
	br   *bufio.Reader
	fr   *http2.Framer
	wg   sync.WaitGroup // reader and writer

	// Writer-only state.
	henc          *hpack.Encoder
	hbuf          headerBuffer
	lower         map[string]string // canonical header name -> lowercase
	encoded       []encodedField    // fields encoded as indexes, see field
	tableGen      uint64            // changes whenever the encoder's table may have
	scratch       writeBatch
	canon         map[string]string // lowercase -> canonical, reader-only
	pending       []*stream         // to signal once the buffered frames are handled, reader-only
	hb            headerBlock       // reader-only
	maxHeaderList uint32
	wake          chan struct{} // cap 1: the writer has work
	done          chan struct{} // closed by shutdown
	doneOnce      sync.Once
	reads         atomic.Uint64 // reads from the socket that brought bytes

	mu             sync.Mutex
	streams        map[uint32]*stream
	queue          []*stream // waiting for their HEADERS to be written
	ctrl           []ctrlFrame
	sending        []*stream // body left to send
	nextID         uint32
	reservations   int
	active         int    // streams reserved, queued or open
	maxStreams     uint32 // the server's MAX_CONCURRENT_STREAMS
	peerWindow     int32  // the server's SETTINGS_INITIAL_WINDOW_SIZE
	maxFrame       uint32 // the server's SETTINGS_MAX_FRAME_SIZE
	sendWindow     int64  // connection send window
	recvWindow     int64  // connection receive window left
	recvUnacked    int64  // consumed, not yet credited to the server
	gotSettings    bool
	goAway         *GoAway
	closed         bool
	err            error // why the connection ended
	lastActiveDone time.Time
	retired        bool      // takes no new stream: it only timed out (see timedOut)
	silent         int       // streams timed out in a row with no response since they were sent
	responses      uint64    // responses received
	pingOut        bool      // a PING of ours is unanswered
	pingAt         time.Time // when it was queued
	pingData       [8]byte
	pings          uint64
	deadlineSet    bool      // the socket has a read deadline
	idleArmedAt    time.Time // when the idle deadline was set; zero if it is not the one set
}

// ctrlFrame is a control frame for the writer.
type ctrlFrame struct {
	kind     ctrlKind
	streamID uint32
	n        uint32 // window increment, error code or table size
	data     [8]byte
}

type ctrlKind uint8

const (
	ctrlSettingsAck ctrlKind = iota
	ctrlPingAck
	ctrlRST
	ctrlWindowUpdate
	ctrlTableSize
	ctrlPing
)

// newConn writes the preface and this side's settings and starts the
// reader and writer.
func newConn(t *Transport, nc net.Conn, addr string) (*conn, error) {
	c := &conn{
		t:              t,
		addr:           addr,
		nc:             nc,
		bw:             bufio.NewWriterSize(nc, bufSize),
		streams:        map[uint32]*stream{},
		nextID:         1,
		maxStreams:     maxStreamsBeforeSettings,
		peerWindow:     defaultWindow,
		maxFrame:       16384,
		sendWindow:     defaultWindow,
		lastActiveDone: time.Now(),
		recvWindow:     connRecvWindow,
		lower:          map[string]string{},
		canon:          map[string]string{},
		wake:           make(chan struct{}, 1),
		done:           make(chan struct{}),
	}
	c.br = bufio.NewReaderSize(idleReader{c}, bufSize)
	c.fr = http2.NewFramer(c.bw, c.br)
	maxHeader := t.MaxResponseHeaderBytes
	if maxHeader == 0 {
		maxHeader = 1 << 20
	}
	c.fr.SetMaxReadFrameSize(maxReadFrame)
	c.fr.SetReuseFrames()         // a DataFrame is done with before the next read
	c.newHeaderDecoder(maxHeader) // header blocks are decoded by the connection (conn_headers.go)
	c.henc = hpack.NewEncoder(&c.hbuf)

	if _, err := c.bw.WriteString(http2.ClientPreface); err != nil {
		return nil, err
	}
	err := c.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: streamRecvWindow},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: maxHeader},
	)
	if err != nil {
		return nil, err
	}
	if err := c.fr.WriteWindowUpdate(0, connRecvWindow-defaultWindow); err != nil {
		return nil, err
	}
	if err := c.bw.Flush(); err != nil {
		return nil, err
	}
	c.wg.Add(2)
	t.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
	return c, nil
}

// reserve takes a stream slot, if the connection has one, and reports
// whether the connection takes new streams at all.
func (c *conn) reserve() (ok, usable bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.goAway != nil || c.retired || c.reservations >= maxReservations {
		return false, false
	}
	if uint32(c.active) >= c.maxStreams { //nolint:gosec // active is never negative
		return false, true
	}
	c.active++
	c.reservations++
	return true, true
}

// idle reports whether c has no stream.
func (c *conn) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.active == 0
}

// signal wakes the writer.
func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// roundTrip sends req on the slot reserved for it and waits for the
// response headers.
func (c *conn) roundTrip(ctx context.Context, req *http.Request, body []byte) (*http.Response, error) {
	s := &stream{c: c, req: req, ctx: ctx, body: body, wake: make(chan struct{}, 1)}
	s.rbuf = s.small[:0]
	if len(body) == 0 {
		s.written.Store(true)
	}
	c.mu.Lock()
	if c.closed || c.goAway != nil || c.retired {
		err := c.notProcessed(nil)
		c.active--
		c.mu.Unlock()
		c.t.signalFree()
		return nil, err
	}
	c.queue = append(c.queue, s)
	c.mu.Unlock()
	c.signal()

	for {
		select {
		case <-s.wake:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				c.timedOut(s)
			}
			c.cancel(s)
			s.releaseBody()
			return nil, ctx.Err()
		}
		c.mu.Lock()
		switch {
		case s.err != nil && s.res == nil:
			err := s.err
			c.mu.Unlock()
			s.releaseBody()
			return nil, err
		case s.res != nil && (s.ended || s.done || s.written.Load()):
			// The body went out, or the server has answered in full or
			// reset the stream: the rest of the body will not go out, and
			// once released the caller's bytes are free.
			res := s.res
			c.mu.Unlock()
			s.releaseBody()
			return res, nil
		}
		c.mu.Unlock()
	}
}

// notProcessed returns the error of a request the server did not process.
func (c *conn) notProcessed(cause error) error {
	return &ConnError{Addr: c.addr, Cause: cause, GoAway: c.goAway, NotProcessed: true}
}

// cancel ends s after its context ended: RST_STREAM(CANCEL) if its headers
// went out.
func (c *conn) cancel(s *stream) {
	c.mu.Lock()
	if !s.done {
		if s.id != 0 {
			c.queueCtrl(ctrlFrame{kind: ctrlRST, streamID: s.id, n: uint32(http2.ErrCodeCancel)})
		}
		s.setErr(context.Cause(s.ctx))
		c.finish(s)
	}
	c.mu.Unlock()
	c.signal()
	c.t.signalFree()
}

// maxQueuedControlFrames bounds the control frames waiting for the writer,
// as x/net's server bounds its own (maxQueuedControlFrames): a server that
// floods PINGs or SETTINGS and never reads the answers would otherwise
// grow them without end.
const maxQueuedControlFrames = 10000

// errTooManyControlFrames is the Cause of the *ConnError of a connection
// closed for it.
var errTooManyControlFrames = errors.New("h2: the server sends frames that need an answer faster than it reads the answers")

// queueCtrl queues a control frame; the caller holds mu and signals. Past
// maxQueuedControlFrames the connection is closed.
func (c *conn) queueCtrl(f ctrlFrame) {
	if c.closed {
		return
	}
	if len(c.ctrl) >= maxQueuedControlFrames {
		c.closeLocked(errTooManyControlFrames)
		return
	}
	c.ctrl = append(c.ctrl, f)
}

// finish retires s: its slot is free. The caller holds mu and calls
// t.signalFree after unlocking.
func (c *conn) finish(s *stream) {
	if s.done {
		return
	}
	s.done = true
	if s.id != 0 {
		delete(c.streams, s.id)
	}
	c.active--
	if len(c.queue) > 0 {
		c.signal() // a stream may now open
	}
	if c.active == 0 {
		c.lastActiveDone = time.Now()
		if c.t.IdleConnTimeout > 0 {
			c.signal() // the writer arms its idle timer
		}
		if (c.goAway != nil || c.retired) && !c.closed {
			c.closeLocked(nil)
		}
	}
	s.signal()
}

// shutdown closes the connection: every stream not finished fails with err
// (nil: the connection was idle or drained).
func (c *conn) shutdown(err error) {
	c.mu.Lock()
	c.closeLocked(err)
	c.mu.Unlock()
	c.t.signalFree()
}

// closeLocked is shutdown with mu held.
func (c *conn) closeLocked(cause error) {
	if c.closed {
		return
	}
	c.closed = true
	c.err = cause
	for _, s := range c.queue {
		if !s.done {
			s.setErr(c.notProcessed(cause))
			c.finish(s)
		}
	}
	c.queue = nil
	for _, s := range c.streams {
		if c.goAway != nil && s.id > c.goAway.LastStreamID {
			s.setErr(c.notProcessed(cause))
		} else {
			s.setErr(&ConnError{Addr: c.addr, Cause: cause, GoAway: c.goAway})
		}
		c.finish(s)
	}
	c.sending = nil
	c.ctrl = nil
	c.doneOnce.Do(func() { close(c.done) })
	_ = c.nc.Close()
}

// fail closes the connection after a read or write error and removes it
// from the pool.
func (c *conn) fail(err error) {
	c.shutdown(err)
	c.t.forget(c)
}
