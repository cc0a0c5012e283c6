package feed

// This file frames one operation object in the reader's buffer without
// decoding it: it follows strings, escapes and nesting, counts lines, and
// notices the two signs of a broken object that let the reader resynchronise
// at a line boundary instead of swallowing the rest of the input. The reader
// frames an object only when its one-pass scan (reader_onepass.go) cannot
// read it from the bytes at hand: a large object, one cut by a short read,
// or a broken one.

// frameStatus is how framing an object ended.
type frameStatus int

const (
	frameOK       frameStatus = iota // a complete object: buf[pos:pos+n]
	frameBroken                      // a broken object; resume at the line after its first line
	frameTooLarge                    // the object exceeds the size limit
	frameEOF                         // the input ended inside the object
)

// frame is the result of framing one object that starts at r.pos.
type frame struct {
	status frameStatus
	n      int    // length of the object (frameOK)
	lines  int    // newlines inside the object (frameOK)
	reason string // why the object is broken
	// firstNL is the index, relative to r.pos, of the first newline inside the
	// object; -1 when the object did not reach a second line.
	firstNL int
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// frameObject frames the object starting at buf[r.pos], which is '{'. It reads
// more input as needed; r.pos stays at the object's first byte (the buffer may
// move, but offsets relative to r.pos do not).
//
// An object is broken when a string holds a raw newline (JSON forbids it, and
// it almost always means a missing quote), or when a line opens with '{'
// where a value cannot start — after anything but ',', ':' or '[' — which
// means the object above it was never closed.
func (r *Reader) frameObject() frame {
	depth := 0
	inString := false
	lines := 0
	firstNL := -1
	lineStart := false
	var lastSig byte
	k := 0 // offset from r.pos of the byte being looked at
	for {
		if r.pos+k >= r.end {
			if !r.fill() {
				if firstNL >= 0 {
					return frame{status: frameEOF, reason: "unexpected end of input inside the operation", firstNL: firstNL}
				}
				return frame{status: frameEOF, reason: "unexpected end of input inside the operation", firstNL: -1}
			}
			continue
		}
		if k >= r.maxOp {
			return frame{status: frameTooLarge, reason: "operation larger than the limit", firstNL: firstNL}
		}
		c := r.buf[r.pos+k]
		if inString {
			switch c {
			case '"':
				inString = false
				lastSig = '"'
			case '\\':
				k++ // the escaped byte; it may still be unread, the loop fetches it
				if r.pos+k >= r.end && !r.fill() {
					return frame{status: frameEOF, reason: "unexpected end of input inside a string", firstNL: firstNL}
				}
				if r.buf[r.pos+k] == '\n' {
					return frame{status: frameBroken, reason: "newline inside a string", firstNL: firstNLOr(firstNL, k)}
				}
			case '\n':
				return frame{status: frameBroken, reason: "newline inside a string", firstNL: firstNLOr(firstNL, k)}
			}
			k++
			continue
		}
		switch c {
		case '\n':
			lines++
			if firstNL < 0 {
				firstNL = k
			}
			lineStart = true
			k++
			continue
		case ' ', '\t', '\r':
			k++
			continue
		}
		if lineStart {
			lineStart = false
			if c == '{' && lastSig != ',' && lastSig != ':' && lastSig != '[' {
				return frame{status: frameBroken, reason: "operation not closed before the next one starts", firstNL: firstNL}
			}
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return frame{status: frameOK, n: k + 1, lines: lines, firstNL: firstNL}
			}
		}
		lastSig = c
		k++
	}
}

// firstNLOr returns firstNL, or k when no newline was seen before.
func firstNLOr(firstNL, k int) int {
	if firstNL >= 0 {
		return firstNL
	}
	return k
}
