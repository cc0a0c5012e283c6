package h2

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// headerBlock is the header block being decoded (HEADERS and its
// CONTINUATIONs), reader-only. The Framer hands over the frames raw, and
// the connection's HPACK decoder emits into fields, reused from block to
// block: decoding costs no allocation but the strings of literal fields.
// The checks are those of the Framer's own MetaHeadersFrame.
type headerBlock struct {
	dec       *hpack.Decoder
	streamID  uint32 // 0: no block open
	ended     bool   // the HEADERS had END_STREAM
	fields    []hpack.HeaderField
	remain    uint32 // header list bytes still allowed
	truncated bool   // the list exceeded MaxResponseHeaderBytes
	invalid   error  // a malformed field: the stream fails
	regular   bool   // a regular field was seen
}

// newHeaderDecoder readies the decoding of header blocks whose lists may
// hold maxList bytes.
func (c *conn) newHeaderDecoder(maxList uint32) {
	c.hb.dec = hpack.NewDecoder(4096, c.emitField)
	c.hb.dec.SetMaxStringLength(int(min(maxList, 1<<30)))
	c.maxHeaderList = maxList
}

// emitField takes one decoded field.
func (c *conn) emitField(hf hpack.HeaderField) {
	b := &c.hb
	if b.invalid != nil || b.truncated {
		return
	}
	switch {
	case !httpguts.ValidHeaderFieldValue(hf.Value):
		b.invalid = fmt.Errorf("invalid value of header field %q", hf.Name)
	case strings.HasPrefix(hf.Name, ":"):
		if b.regular {
			b.invalid = errors.New("pseudo header field after a regular one")
		}
	default:
		b.regular = true
		if !validWireName(hf.Name) {
			b.invalid = fmt.Errorf("invalid header field name %q", hf.Name)
		}
	}
	if b.invalid != nil {
		b.dec.SetEmitEnabled(false)
		return
	}
	size := hf.Size()
	if size > b.remain {
		b.dec.SetEmitEnabled(false)
		b.truncated, b.remain = true, 0
		return
	}
	b.remain -= size
	b.fields = append(b.fields, hf)
}

// validWireName reports whether name is a valid lowercase field name.
func validWireName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !httpguts.IsTokenRune(r) || 'A' <= r && r <= 'Z' {
			return false
		}
	}
	return true
}

// onHeadersFrame starts a header block.
func (c *conn) onHeadersFrame(f *http2.HeadersFrame) error {
	b := &c.hb
	clear(b.fields)
	b.fields = b.fields[:0]
	b.streamID, b.ended = f.StreamID, f.StreamEnded()
	b.remain, b.truncated, b.invalid, b.regular = c.maxHeaderList, false, nil, false
	b.dec.SetEmitEnabled(true)
	return c.headerFragment(f.HeaderBlockFragment(), f.HeadersEnded())
}

// onContinuation goes on with the block (the Framer checks that it
// follows its HEADERS on the same stream).
func (c *conn) onContinuation(f *http2.ContinuationFrame) error {
	return c.headerFragment(f.HeaderBlockFragment(), f.HeadersEnded())
}

// headerFragment decodes one fragment of the block and, at its end, hands
// the fields to onHeaders.
func (c *conn) headerFragment(frag []byte, last bool) error {
	b := &c.hb
	// A block far beyond the limit is not decoded at all, nor anything
	// after a malformed field: the connection ends (as the Framer does).
	if int64(len(frag)) > 2*int64(b.remain) || b.invalid != nil {
		detail := fmt.Errorf("h2: header block of stream %d is far above the limit of %d bytes", b.streamID, c.maxHeaderList)
		if b.invalid != nil {
			detail = fmt.Errorf("h2: header block of stream %d goes on after a malformed field: %w", b.streamID, b.invalid)
		}
		return c.protocolError(http2.ConnectionError(http2.ErrCodeProtocol), detail)
	}
	if _, err := b.dec.Write(frag); err != nil {
		return c.protocolError(http2.ConnectionError(http2.ErrCodeCompression), err)
	}
	if !last {
		return nil
	}
	id := b.streamID
	b.streamID = 0
	if err := b.dec.Close(); err != nil {
		return c.protocolError(http2.ConnectionError(http2.ErrCodeCompression), err)
	}
	if b.invalid == nil {
		b.invalid = checkResponsePseudos(b.fields)
	}
	if b.invalid != nil {
		c.resetStream(http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol, Cause: b.invalid})
		return nil //nolint:nilerr // a stream error: the connection goes on
	}
	return c.onHeaders(id, b.fields, b.ended, b.truncated)
}

// checkResponsePseudos checks the pseudo fields of a response: at most
// one :status and nothing else.
func checkResponsePseudos(fields []hpack.HeaderField) error {
	seen := false
	for _, hf := range fields {
		if !hf.IsPseudo() {
			break // they all come first
		}
		if hf.Name != ":status" {
			return fmt.Errorf("pseudo header field %q in a response", hf.Name)
		}
		if seen {
			return errors.New("duplicate :status")
		}
		seen = true
	}
	return nil
}
