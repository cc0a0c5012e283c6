package h2

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/textproto"
	"runtime"
	"strconv"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/govespa/govespa/vespa/retries"
)

// readLoop is the reader goroutine: it decodes frames from the buffered
// reader (every frame one read brought in is decoded before the next read)
// and dispatches them.
func (c *conn) readLoop() {
	defer c.t.wg.Done()
	defer c.wg.Done()
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				c.resetStream(se)
				continue
			}
			if ce, ok := err.(http2.ConnectionError); ok { //nolint:errorlint // the framer returns it unwrapped
				err = c.protocolError(ce, c.fr.ErrorDetail())
			} else if errors.Is(err, http2.ErrFrameTooLarge) {
				// Larger than the SETTINGS_MAX_FRAME_SIZE we announced (the
				// default): a connection error of FRAME_SIZE, as for net/http.
				err = c.protocolError(http2.ConnectionError(http2.ErrCodeFrameSize),
					fmt.Errorf("a frame larger than %d bytes from %s", maxReadFrame, c.addr))
			}
			c.fail(err)
			return
		}
		if err := c.handle(f); err != nil {
			c.wakePending()
			c.fail(err)
			return
		}
		if c.br.Buffered() == 0 {
			if len(c.pending) > 0 {
				c.wakePending()
			}
			// Let the goroutines just woken run before the next read: what
			// they send is answered meanwhile, and that read brings more
			// (measured: ~30 % fewer reads, ~8 % less CPU per document).
			runtime.Gosched()
		}
	}
}

// protocolError returns the error the streams fail with after a connection
// error of the server's: a malformed response (retries.ErrProtocolViolation),
// final for every policy. The connection is closed without a GOAWAY of
// ours: only the writer may write, and it may be blocked.
func (c *conn) protocolError(code http2.ConnectionError, detail error) error {
	if detail != nil {
		return fmt.Errorf("%w: %w: %w", retries.ErrProtocolViolation, code, detail)
	}
	return fmt.Errorf("%w: %w", retries.ErrProtocolViolation, code)
}

// resetStream fails one stream after a stream error of the server's: a
// malformed response (retries.ErrProtocolViolation), final for every
// policy.
func (c *conn) resetStream(se http2.StreamError) {
	c.mu.Lock()
	if s := c.streams[se.StreamID]; s != nil {
		c.queueCtrl(ctrlFrame{kind: ctrlRST, streamID: se.StreamID, n: uint32(se.Code)})
		s.setErr(fmt.Errorf("h2: stream %d from %s: %w: %w", se.StreamID, c.addr, retries.ErrProtocolViolation, se))
		c.finish(s)
	}
	c.mu.Unlock()
	c.signal()
	c.t.signalFree()
}

// handle dispatches one frame. A non-nil error ends the connection.
func (c *conn) handle(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.HeadersFrame:
		return c.onHeadersFrame(f)
	case *http2.ContinuationFrame:
		return c.onContinuation(f)
	case *http2.DataFrame:
		return c.onData(f)
	case *http2.SettingsFrame:
		return c.onSettings(f)
	case *http2.WindowUpdateFrame:
		return c.onWindowUpdate(f)
	case *http2.PingFrame:
		if f.IsAck() {
			c.onPingAck(f.Data)
		} else {
			c.mu.Lock()
			c.queueCtrl(ctrlFrame{kind: ctrlPingAck, data: f.Data})
			c.mu.Unlock()
			c.signal()
		}
	case *http2.RSTStreamFrame:
		c.onReset(f)
	case *http2.GoAwayFrame:
		c.onGoAway(f)
	case *http2.PushPromiseFrame:
		// We sent SETTINGS_ENABLE_PUSH 0.
		return c.protocolError(http2.ConnectionError(http2.ErrCodeProtocol), errors.New("h2: PUSH_PROMISE with push disabled"))
	}
	return nil
}

// onHeaders handles a decoded header block: a response's headers, or its
// trailers.
func (c *conn) onHeaders(id uint32, fields []hpack.HeaderField, ended, truncated bool) error {
	c.mu.Lock()
	s := c.streams[id]
	if s == nil {
		c.mu.Unlock()
		if id >= c.nextIDLoad() {
			return c.protocolError(http2.ConnectionError(http2.ErrCodeProtocol), fmt.Errorf("h2: HEADERS on stream %d, never opened", id))
		}
		return nil // a stream we reset
	}
	if truncated {
		c.mu.Unlock()
		c.resetStream(http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol,
			Cause: errors.New("response headers larger than the limit")})
		return nil
	}
	if s.res == nil {
		status := ""
		if len(fields) > 0 && fields[0].Name == ":status" {
			status = fields[0].Value
		}
		code := parseStatus(status)
		if code < 100 || code > 999 {
			c.mu.Unlock()
			c.resetStream(http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol,
				Cause: fmt.Errorf("malformed :status %q", status)})
			return nil
		}
		if code < 200 {
			c.mu.Unlock()
			if ended {
				// No final response can follow: fail now, not at the
				// deadline (net/http does the same).
				c.resetStream(http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol,
					Cause: fmt.Errorf("a %d response with END_STREAM", code)})
			}
			return nil // 1xx: the final response follows
		}
		c.silent = 0 // the server answers
		c.responses++
		res := &s.resp
		*res = http.Response{
			Status:        statusLine(code),
			StatusCode:    code,
			Proto:         "HTTP/2.0",
			ProtoMajor:    2,
			Header:        c.header(fields[1:]),
			ContentLength: -1,
			Request:       s.req,
		}
		if cl := res.Header["Content-Length"]; len(cl) == 1 {
			if n, err := strconv.ParseInt(cl[0], 10, 64); err == nil && n >= 0 {
				res.ContentLength = n
			}
		}
		s.rbody.s = s
		res.Body = &s.rbody
		s.res = res
		s.rwant = res.ContentLength
		if s.req.Method == http.MethodHead || code == http.StatusNoContent || code == http.StatusNotModified {
			s.rwant = -1 // content-length is not of this message's body
		}
		if ended {
			res.ContentLength = 0
			if s.rwant > 0 {
				s.endedShort()
			}
		}
	} else {
		// Trailers.
		if !ended || len(fields) > 0 && fields[0].IsPseudo() {
			c.mu.Unlock()
			c.resetStream(http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol,
				Cause: errors.New("trailers without END_STREAM or with pseudo fields")})
			return nil
		}
		s.res.Trailer = c.header(fields)
	}
	return c.unlockAfter(s, ended, ended && c.endLocked(s))
}

// unlockAfter ends the handling of a frame of s, with mu held: s's
// response ended (the slot is free) or not, and the writer has frames
// (wake) or not.
func (c *conn) unlockAfter(s *stream, ended, wake bool) error {
	c.mu.Unlock()
	c.wakeStream(s, ended)
	if wake {
		c.signal()
	}
	if ended {
		c.t.signalFree()
	}
	return nil
}

// wakeStream signals s's goroutine, or, for a response that has not ended
// while more frames are already buffered, leaves it for readLoop to signal
// once they are handled: its DATA is likely among them, and one wake-up
// does for both.
func (c *conn) wakeStream(s *stream, ended bool) {
	if !ended && c.br.Buffered() > 0 {
		c.pending = append(c.pending, s)
		return
	}
	s.signal()
}

// wakePending signals the streams wakeStream left.
func (c *conn) wakePending() {
	for _, s := range c.pending {
		s.signal()
	}
	clear(c.pending)
	c.pending = c.pending[:0]
}

func (c *conn) nextIDLoad() uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nextID
}

// endLocked records the end of s's response. It reports whether it
// queued a frame for the writer.
func (c *conn) endLocked(s *stream) (queued bool) {
	s.ended = true
	if s.rerr == nil {
		s.rerr = io.EOF
	}
	if !s.endSent && s.id != 0 {
		// The server answered before the whole request went out: the
		// rest will not, end our side.
		c.queueCtrl(ctrlFrame{kind: ctrlRST, streamID: s.id, n: uint32(http2.ErrCodeNo)})
		queued = true
	}
	c.finish(s)
	return queued
}

// header builds an http.Header from regular fields.
func (c *conn) header(fields []hpack.HeaderField) http.Header {
	h := make(http.Header, len(fields))
	values := make([]string, len(fields)) // one allocation for every single-value header
	for i, hf := range fields {
		name, ok := c.canon[hf.Name]
		if !ok {
			name = textproto.CanonicalMIMEHeaderKey(hf.Name)
			if len(c.canon) < 256 {
				c.canon[hf.Name] = name
			}
		}
		if vs := h[name]; vs != nil {
			h[name] = append(vs, hf.Value)
			continue
		}
		values[i] = hf.Value
		h[name] = values[i : i+1 : i+1]
	}
	return h
}

func (c *conn) onData(f *http2.DataFrame) error {
	id := f.StreamID
	n := int64(f.Length) // padding included: it counts against the window
	data := f.Data()
	c.mu.Lock()
	if n > c.recvWindow {
		c.mu.Unlock()
		return c.protocolError(http2.ConnectionError(http2.ErrCodeFlowControl), errors.New("h2: the server overran the connection window"))
	}
	c.recvWindow -= n
	s := c.streams[id]
	wake := false
	if s == nil || s.res == nil || s.closedBody {
		// A stream that is gone, or data before headers: credit it back at
		// once.
		wake = c.creditConnLocked(n)
		if s != nil && !s.done {
			c.mu.Unlock()
			if s.res == nil {
				c.resetStream(http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol, Cause: errors.New("DATA before HEADERS")})
			}
			return nil
		}
		c.mu.Unlock()
		if wake {
			c.signal()
		}
		return nil
	}
	if n > s.recvWindow {
		c.mu.Unlock()
		c.resetStream(http2.StreamError{StreamID: id, Code: http2.ErrCodeFlowControl, Cause: errors.New("the server overran the stream window")})
		return nil
	}
	s.recvWindow -= n
	if pad := n - int64(len(data)); pad > 0 {
		// Padding is never read: it is credited back, to the stream as
		// well as to the connection, as bytes read are.
		wake = c.creditLocked(s, pad)
	}
	if s.rwant >= 0 {
		s.rgot += int64(len(data))
		if s.rgot > s.rwant {
			// The bytes up to content-length are read; then the error.
			err := s.lengthError()
			c.mu.Unlock()
			c.resetStream(http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol, Cause: err})
			return nil
		}
	}
	if len(data) > 0 {
		if s.roff > 0 && s.roff >= len(s.rbuf)/2 && len(s.rbuf)+len(data) > cap(s.rbuf) {
			// Move what is unread (at most as much as was read) to the
			// front rather than grow: a reader that never quite catches up
			// keeps the buffer near the stream window, not at the size of
			// the whole body.
			n := copy(s.rbuf, s.rbuf[s.roff:])
			s.rbuf, s.roff = s.rbuf[:n], 0
		}
		s.rbuf = append(s.rbuf, data...)
	}
	ended := f.StreamEnded()
	if ended && s.rgot < s.rwant {
		s.endedShort()
	}
	if ended && c.endLocked(s) {
		wake = true
	}
	return c.unlockAfter(s, ended, wake)
}

func (c *conn) onSettings(f *http2.SettingsFrame) error {
	if f.IsAck() {
		return nil
	}
	c.mu.Lock()
	if !c.gotSettings {
		c.gotSettings = true
		if _, ok := f.Value(http2.SettingMaxConcurrentStreams); !ok {
			c.maxStreams = math.MaxUint32 // no limit from the server
		}
	}
	err := f.ForeachSetting(func(st http2.Setting) error {
		if err := st.Valid(); err != nil {
			return err
		}
		switch st.ID {
		case http2.SettingMaxConcurrentStreams:
			c.maxStreams = st.Val
		case http2.SettingInitialWindowSize:
			delta := int64(st.Val) - int64(c.peerWindow)
			for _, s := range c.streams {
				s.sendWindow += delta
			}
			c.peerWindow = int32(st.Val) //nolint:gosec // Valid() bounds it to 2^31-1
		case http2.SettingMaxFrameSize:
			c.maxFrame = st.Val
		case http2.SettingHeaderTableSize:
			c.queueCtrl(ctrlFrame{kind: ctrlTableSize, n: st.Val})
		}
		return nil
	})
	if err == nil {
		c.queueCtrl(ctrlFrame{kind: ctrlSettingsAck})
	}
	c.mu.Unlock()
	if err != nil {
		var ce http2.ConnectionError
		if errors.As(err, &ce) {
			return c.protocolError(ce, nil)
		}
		return err
	}
	c.signal()
	c.t.signalFree()
	return nil
}

func (c *conn) onWindowUpdate(f *http2.WindowUpdateFrame) error {
	c.mu.Lock()
	if f.StreamID == 0 {
		c.sendWindow += int64(f.Increment)
		if c.sendWindow > 1<<31-1 {
			c.mu.Unlock()
			return c.protocolError(http2.ConnectionError(http2.ErrCodeFlowControl), errors.New("h2: connection window over 2^31-1"))
		}
	} else if s := c.streams[f.StreamID]; s != nil {
		s.sendWindow += int64(f.Increment)
		if s.sendWindow > 1<<31-1 {
			c.mu.Unlock()
			c.resetStream(http2.StreamError{StreamID: f.StreamID, Code: http2.ErrCodeFlowControl, Cause: errors.New("stream window over 2^31-1")})
			return nil
		}
	}
	c.mu.Unlock()
	c.signal()
	return nil
}

func (c *conn) onReset(f *http2.RSTStreamFrame) {
	c.mu.Lock()
	s := c.streams[f.StreamID]
	if s == nil {
		c.mu.Unlock()
		return
	}
	switch {
	case f.ErrCode == http2.ErrCodeRefusedStream:
		s.setErr(c.notProcessed(http2.StreamError{StreamID: f.StreamID, Code: f.ErrCode, Cause: errFromPeer}))
	case f.ErrCode == http2.ErrCodeNo && s.ended:
		// The server asks us to stop sending a body it has answered.
	default:
		s.setErr(fmt.Errorf("h2: stream %d from %s: %w", f.StreamID, c.addr,
			http2.StreamError{StreamID: f.StreamID, Code: f.ErrCode, Cause: errFromPeer}))
	}
	c.finish(s)
	c.mu.Unlock()
	c.t.signalFree()
}

func (c *conn) onGoAway(f *http2.GoAwayFrame) {
	c.mu.Lock()
	g := &GoAway{LastStreamID: f.LastStreamID, Code: f.ErrCode, Debug: string(f.DebugData())}
	c.goAway = g
	for _, s := range c.queue {
		if !s.done {
			s.setErr(c.notProcessed(nil))
			c.finish(s)
		}
	}
	clear(c.queue)
	c.queue = c.queue[:0]
	for id, s := range c.streams {
		if id > f.LastStreamID {
			s.setErr(c.notProcessed(nil))
			c.finish(s)
		}
	}
	if c.active == 0 && !c.closed {
		c.closeLocked(nil)
	}
	c.mu.Unlock()
	c.t.forget(c)
}

// statusLines holds "200 OK" and the like, built once.
var statusLines = func() [600]string {
	var a [600]string
	for i := range a {
		if t := http.StatusText(i); t != "" {
			a[i] = strconv.Itoa(i) + " " + t
		}
	}
	return a
}()

func statusLine(code int) string {
	if code < len(statusLines) && statusLines[code] != "" {
		return statusLines[code]
	}
	return strconv.Itoa(code)
}

// parseStatus returns the code in a :status value, or -1.
func parseStatus(s string) int {
	code, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return code
}
