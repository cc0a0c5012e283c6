package h2

import (
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// writeBatch is what the writer took from the connection in one go.
type writeBatch struct {
	ctrl     []ctrlFrame
	hdrs     []*stream
	data     []dataChunk
	maxFrame int
}

// dataChunk is a part of a stream's body cleared by flow control.
type dataChunk struct {
	s      *stream
	off, n int
	end    bool
}

func (b *writeBatch) empty() bool { return len(b.ctrl) == 0 && len(b.hdrs) == 0 && len(b.data) == 0 }

// frameHeaderLen is the size of an HTTP/2 frame header.
const frameHeaderLen = 9

// batchBudget bounds the body bytes planned in one batch, so that control
// frames and new streams are not held behind a large body.
const batchBudget = 256 << 10

// writeLoop is the writer goroutine: it takes everything queued, writes it
// into the buffered writer, and flushes once nothing more is queued.
func (c *conn) writeLoop() {
	defer c.t.wg.Done()
	defer c.wg.Done()
	var tmr *time.Timer
	defer func() {
		if tmr != nil {
			tmr.Stop()
		}
	}()
	dirty, yielded := false, false
	b := &c.scratch
	for {
		c.mu.Lock()
		c.takeLocked(b)
		closed, idle := c.closed, c.active == 0
		c.mu.Unlock()
		if closed {
			return
		}
		if !b.empty() {
			if err := c.writeBatch(b); err != nil {
				c.fail(err)
				return
			}
			dirty = true
			continue
		}
		if dirty && !yielded {
			// Let the goroutines that are ready to send (woken by the
			// responses just read, say) queue their requests first: they
			// go out in the same write.
			yielded = true
			runtime.Gosched()
			continue
		}
		yielded = false
		if dirty {
			if err := c.bw.Flush(); err != nil {
				c.fail(err)
				return
			}
			dirty = false
			continue // more may have come while the flush ran
		}
		var idleC <-chan time.Time
		if d := c.t.IdleConnTimeout; d > 0 && idle {
			if tmr == nil {
				tmr = time.NewTimer(d)
			} else {
				tmr.Reset(d)
			}
			idleC = tmr.C
		}
		select {
		case <-c.wake:
		case <-c.done:
			return
		case <-idleC:
			c.closeIfIdle(c.t.IdleConnTimeout)
		}
	}
}

// closeIfIdle closes c if it has had no stream for d.
func (c *conn) closeIfIdle(d time.Duration) {
	c.mu.Lock()
	idle := c.active == 0 && time.Since(c.lastActiveDone) >= d
	if idle {
		c.closeLocked(nil)
	}
	c.mu.Unlock()
	if idle {
		c.t.forget(c)
	}
}

// takeLocked moves the queued work into b: control frames, new streams
// (which get their identifiers here, in the order their HEADERS are
// written), and body chunks that the flow-control windows allow.
func (c *conn) takeLocked(b *writeBatch) {
	clear(b.hdrs)
	clear(b.data)
	b.ctrl = append(b.ctrl[:0], c.ctrl...)
	c.ctrl = c.ctrl[:0]
	b.hdrs = b.hdrs[:0]
	b.data = b.data[:0]
	// A body frame must fit the buffered writer, so that it is copied
	// there, never written to the socket under the stream's bodyMu.
	b.maxFrame = min(int(c.maxFrame), bufSize-frameHeaderLen)
	if c.closed {
		return
	}
	// Open streams while the server's MAX_CONCURRENT_STREAMS allows; the
	// rest wait in the queue (they were reserved before its SETTINGS came).
	open := uint32(len(c.streams)) //nolint:gosec // bounded by maxReservations
	taken := 0
	for _, s := range c.queue {
		if s.done {
			taken++
			continue
		}
		if open >= c.maxStreams {
			break
		}
		open++
		taken++
		s.id = c.nextID
		s.readsAtOpen = c.reads.Load()
		s.responsesAtOpen = c.responses
		c.nextID += 2
		c.streams[s.id] = s
		s.sendWindow = int64(c.peerWindow)
		s.recvWindow = streamRecvWindow
		if len(s.body) == 0 {
			s.endSent = true
		} else {
			c.sending = append(c.sending, s)
		}
		b.hdrs = append(b.hdrs, s)
	}
	n := copy(c.queue, c.queue[taken:])
	clear(c.queue[n:])
	c.queue = c.queue[:n]

	if !c.gotSettings {
		// Go's server, for one, enforces its windows from the start, not
		// after its SETTINGS: send no body before they are known.
		return
	}
	budget := batchBudget
	keep := c.sending[:0]
	for _, s := range c.sending {
		if s.done {
			continue
		}
		for budget > 0 && s.sent < len(s.body) {
			n := min(int64(len(s.body)-s.sent), s.sendWindow, c.sendWindow, int64(b.maxFrame), int64(budget))
			if n <= 0 {
				break
			}
			end := s.sent+int(n) == len(s.body)
			b.data = append(b.data, dataChunk{s: s, off: s.sent, n: int(n), end: end})
			s.sent += int(n)
			s.sendWindow -= n
			c.sendWindow -= n
			budget -= int(n)
			if end {
				s.endSent = true
			}
		}
		if s.sent < len(s.body) {
			keep = append(keep, s)
		}
	}
	clear(c.sending[len(keep):])
	c.sending = keep
}

// writeBatch writes b's frames into the buffered writer.
func (c *conn) writeBatch(b *writeBatch) error {
	for _, f := range b.ctrl {
		var err error
		switch f.kind {
		case ctrlSettingsAck:
			err = c.fr.WriteSettingsAck()
		case ctrlPingAck:
			err = c.fr.WritePing(true, f.data)
		case ctrlPing:
			err = c.fr.WritePing(false, f.data)
		case ctrlRST:
			err = c.fr.WriteRSTStream(f.streamID, http2.ErrCode(f.n))
		case ctrlWindowUpdate:
			err = c.fr.WriteWindowUpdate(f.streamID, f.n)
		case ctrlTableSize:
			c.henc.SetMaxDynamicTableSizeLimit(f.n)
			c.tableGen++
		}
		if err != nil {
			return err
		}
	}
	for _, s := range b.hdrs {
		if err := c.writeHeaders(s, b.maxFrame); err != nil {
			return err
		}
	}
	for _, d := range b.data {
		s := d.s
		if c.bw.Available() < frameHeaderLen+d.n {
			// Flush now, outside bodyMu: a server that stops reading
			// must not keep RoundTrip from releasing the caller's bytes.
			if err := c.bw.Flush(); err != nil {
				return err
			}
		}
		s.bodyMu.Lock()
		if s.released {
			s.bodyMu.Unlock()
			if d.end {
				// The caller took its bytes back before the last of
				// them went out: end our side of the stream.
				if err := c.fr.WriteRSTStream(s.id, http2.ErrCodeCancel); err != nil {
					return err
				}
			}
			continue
		}
		err := c.fr.WriteData(s.id, d.end, s.body[d.off:d.off+d.n])
		if d.end {
			s.written.Store(true)
		}
		s.bodyMu.Unlock()
		if err != nil {
			return err
		}
		if d.end {
			s.signal()
		}
	}
	return nil
}

// writeHeaders encodes s's request headers and writes them as HEADERS and,
// if they exceed a frame, CONTINUATION frames.
func (c *conn) writeHeaders(s *stream, maxFrame int) error {
	c.encodeHeaders(s)
	blk := c.hbuf.b
	endStream := len(s.body) == 0
	first := true
	for first || len(blk) > 0 {
		n := min(len(blk), maxFrame)
		frag := blk[:n]
		blk = blk[n:]
		var err error
		if first {
			err = c.fr.WriteHeaders(http2.HeadersFrameParam{
				StreamID: s.id, BlockFragment: frag, EndStream: endStream, EndHeaders: len(blk) == 0,
			})
			first = false
		} else {
			err = c.fr.WriteContinuation(s.id, len(blk) == 0, frag)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// encodeHeaders HPACK-encodes s's request into c.hbuf. Fields that repeat
// from request to request go into the dynamic table on first use; :path and
// content-length are never indexed, so that they do not evict them.
func (c *conn) encodeHeaders(s *stream) {
	req := s.req
	c.hbuf.b = c.hbuf.b[:0]
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	c.field(":method", method)
	c.field(":scheme", req.URL.Scheme)
	c.field(":authority", host)
	c.writePath(req.URL)
	for k, vs := range req.Header {
		name := c.lowerName(k)
		switch name {
		case "host", "connection", "proxy-connection", "transfer-encoding", "upgrade", "keep-alive", "content-length":
			continue
		case "te":
			// Only "trailers" may be sent over HTTP/2.
			for _, v := range vs {
				if strings.EqualFold(v, "trailers") {
					c.field("te", "trailers")
				}
			}
			continue
		}
		for _, v := range vs {
			c.field(name, v)
		}
	}
	if len(s.body) > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		var digits [20]byte
		c.hbuf.b = appendNeverIndexed(c.hbuf.b, staticContentLength, strconv.AppendInt(digits[:0], int64(len(s.body)), 10))
	}
}

// Static table indexes (RFC 7541, appendix A) of the fields written by
// appendNeverIndexed.
const (
	staticPath          = 4
	staticContentLength = 28
)

// writePath writes u's request URI as :path. Where u is opaque (vespa's
// document paths, escaped as they are to go), it is written from u's
// strings without building the URI.
func (c *conn) writePath(u *url.URL) {
	if u.Opaque == "" || strings.HasPrefix(u.Opaque, "//") {
		c.hbuf.b = appendNeverIndexed(c.hbuf.b, staticPath, []byte(u.RequestURI()))
		return
	}
	n := len(u.Opaque)
	if u.ForceQuery || u.RawQuery != "" {
		n += 1 + len(u.RawQuery)
	}
	b := appendHpackInt(c.hbuf.b, 4, 0x10, staticPath)
	b = appendHpackInt(b, 7, 0, uint64(n))
	b = append(b, u.Opaque...)
	if u.ForceQuery || u.RawQuery != "" {
		b = append(append(b, '?'), u.RawQuery...)
	}
	c.hbuf.b = b
}

// appendNeverIndexed appends a literal field never indexed (RFC 7541,
// 6.2.3) with the name of a static table entry and value, not Huffman
// coded: :path and content-length change from request to request, and must
// not evict the fields that repeat.
func appendNeverIndexed(b []byte, nameIndex uint64, value []byte) []byte {
	b = appendHpackInt(b, 4, 0x10, nameIndex)
	b = appendHpackInt(b, 7, 0, uint64(len(value)))
	return append(b, value...)
}

// appendHpackInt appends v as an HPACK integer with an n-bit prefix (RFC
// 7541, 5.1), the first byte's other bits being first.
func appendHpackInt(b []byte, n uint, first byte, v uint64) []byte {
	limit := uint64(1)<<n - 1
	if v < limit {
		return append(b, first|byte(v)) //nolint:gosec // v < limit < 256
	}
	b = append(b, first|byte(limit)) //nolint:gosec // limit < 256
	v -= limit
	for v >= 128 {
		b = append(b, byte(v&0x7f|0x80)) //nolint:gosec // 7 bits
		v >>= 7
	}
	return append(b, byte(v))
}

// field encodes one header field. A field that encodes as an index into
// the tables is kept, encoded, until the dynamic table changes: the fields
// that repeat on every request are encoded once.
func (c *conn) field(name, value string) {
	for i := range c.encoded {
		if e := &c.encoded[i]; e.gen == c.tableGen && e.name == name && e.value == value {
			c.hbuf.b = append(c.hbuf.b, e.enc...)
			return
		}
	}
	start := len(c.hbuf.b)
	_ = c.henc.WriteField(hpack.HeaderField{Name: name, Value: value})
	out := c.hbuf.b[start:]
	switch {
	case len(out) == 0:
	case out[0]&0x80 != 0: // indexed: stable while the table stays as it is
		c.keepEncoded(name, value, out)
	case out[0]&0xc0 == 0x40 || out[0]&0xe0 == 0x20:
		// An insertion or a table size update: every index may have moved.
		c.tableGen++
	}
}

// encodedField is a header field and its encoding in the table generation
// gen.
type encodedField struct {
	name, value string
	enc         []byte
	gen         uint64
}

// maxEncoded bounds the encoded fields kept per connection.
const maxEncoded = 16

func (c *conn) keepEncoded(name, value string, enc []byte) {
	for i := range c.encoded {
		if e := &c.encoded[i]; e.gen != c.tableGen {
			*e = encodedField{name: name, value: value, enc: append(e.enc[:0], enc...), gen: c.tableGen}
			return
		}
	}
	if len(c.encoded) < maxEncoded {
		c.encoded = append(c.encoded, encodedField{name: name, value: value, enc: append([]byte(nil), enc...), gen: c.tableGen})
	}
}

// lowerName returns the HTTP/2 (lowercase) form of a header name, cached.
func (c *conn) lowerName(k string) string {
	if v, ok := c.lower[k]; ok {
		return v
	}
	v := strings.ToLower(k)
	if len(c.lower) < 256 {
		c.lower[k] = v
	}
	return v
}

// headerBuffer collects the encoder's output.
type headerBuffer struct{ b []byte }

func (h *headerBuffer) Write(p []byte) (int, error) {
	h.b = append(h.b, p...)
	return len(p), nil
}
