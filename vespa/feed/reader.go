package feed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"unicode/utf8"

	"github.com/govespa/govespa/vespa"
)

// DefaultMaxOperationBytes is the size limit of one operation in a feed file
// unless [ReaderConfig.MaxOperationBytes] says otherwise: Vespa itself rejects
// request bodies over 100 MiB, so a larger object is a broken file (often an
// unclosed string or object), not a document.
const DefaultMaxOperationBytes = 128 << 20

// ReaderConfig tunes a [Reader]. Its zero value is ready to use.
type ReaderConfig struct {
	// Source names the input in every [Operation] and [ParseError] read from
	// it, for messages and the resume journal; "" is allowed.
	Source string
	// MaxOperationBytes is the largest operation object accepted; a larger
	// one is reported as a [ParseError] and skipped. Zero or less means
	// [DefaultMaxOperationBytes].
	MaxOperationBytes int
}

// ParseError reports an operation of a feed file that could not be read. The
// reader skips it and goes on with the next operation.
type ParseError struct {
	// Source is the input's name from [ReaderConfig.Source].
	Source string
	// Line is the 1-based line on which the bad operation starts.
	Line int
	// Offset is the byte offset at which the bad operation starts.
	Offset int64
	// Element is the 1-based position of the bad operation in a JSON array
	// feed (several share a line in an array written on one line); 0 in a
	// JSONL feed or for what is not an element.
	Element int
	// ID is the document ID when it could be read, else "".
	ID string
	// Reason says what is wrong.
	Reason string
}

// Error returns "feed: <source>:line <n> (byte <offset>): <reason>", with
// ", element <i>" after the offset in a JSON array.
func (e *ParseError) Error() string {
	src := e.Source
	if src != "" {
		src += ":"
	}
	elem := ""
	if e.Element > 0 {
		elem = fmt.Sprintf(", element %d", e.Element)
	}
	return fmt.Sprintf("feed: %sline %d (byte %d%s): %s", src, e.Line, e.Offset, elem, e.Reason)
}

// format is the shape of a feed file, known from its first non-space byte.
type format int

const (
	formatUnknown format = iota
	formatJSONL          // objects one after another, '{'
	formatArray          // one JSON array of objects, '['
)

// arrayState is where the reader is inside a JSON array feed.
type arrayState int

const (
	arrayElement arrayState = iota // before an element (or the closing ']')
	arrayAfter                     // after an element: ',' or ']' expected
	arrayClosed                    // after the closing ']'
)

// Reader reads the operations of a Vespa feed file one at a time, in constant
// memory: a JSON array of operation objects, or JSONL (objects one after
// another, separated by whitespace), told apart by the first non-space byte.
//
// Each operation keeps the exact bytes of its "fields" object; nothing is
// decoded and encoded again. A malformed operation is reported as a
// [*ParseError] naming its line, and reading goes on at the next line that
// starts an operation, so one bad line never hides the good ones after it.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	src    io.Reader
	source string
	maxOp  int

	buf  []byte
	pos  int   // next unread byte
	end  int   // end of the data in buf
	base int64 // input offset of buf[0]
	line int   // line of buf[pos]
	eof  bool
	rerr error // a read error other than io.EOF

	format  format
	array   arrayState
	element int // the 1-based position of the array element being read
	done    bool
	bomDone bool // the start was checked for a byte order mark

	// framedOnly makes every object take the fallback path (tests and
	// benchmarks compare the two paths).
	framedOnly bool
	framings   int // objects that took the framing path
	scan       opScanner
}

const readChunk = 64 << 10

// NewReader returns a Reader of the feed file r.
func NewReader(r io.Reader, cfg ReaderConfig) *Reader {
	maxOp := cfg.MaxOperationBytes
	if maxOp <= 0 {
		maxOp = DefaultMaxOperationBytes
	}
	return &Reader{src: r, source: cfg.Source, maxOp: maxOp, buf: make([]byte, readChunk), line: 1}
}

// fill reads more input, keeping buf[pos:end]. It reports whether at least
// one new byte is available.
func (r *Reader) fill() bool {
	if r.eof {
		return false
	}
	if r.pos > 0 && (r.end == len(r.buf) || r.pos >= len(r.buf)/2) {
		n := copy(r.buf, r.buf[r.pos:r.end])
		r.base += int64(r.pos)
		r.end = n
		r.pos = 0
	}
	if r.end == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for range 100 { // io.Reader may return 0, nil; give up after many such calls
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.eof = true
			if !errors.Is(err, io.EOF) {
				r.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	r.eof = true
	r.rerr = io.ErrNoProgress
	return false
}

// skipSpace moves past whitespace and reports whether a byte is available.
func (r *Reader) skipSpace() bool {
	for {
		for r.pos < r.end {
			c := r.buf[r.pos]
			if !isSpace(c) {
				return true
			}
			if c == '\n' {
				r.line++
			}
			r.pos++
		}
		if !r.fill() {
			return false
		}
	}
}

// skipToObjectLine moves to the next line whose first non-space byte is '{'
// (without passing it), or to the end of input. It reports whether one was
// found.
func (r *Reader) skipToObjectLine() bool {
	for {
		// Finish the current line.
		for {
			i := indexByte(r.buf[r.pos:r.end], '\n')
			if i >= 0 {
				r.pos += i + 1
				r.line++
				break
			}
			r.pos = r.end
			if !r.fill() {
				return false
			}
		}
		// Look at the first non-space byte of the next line.
		for {
			if r.pos >= r.end && !r.fill() {
				return false
			}
			c := r.buf[r.pos]
			if c == '\n' {
				r.pos++
				r.line++
				continue
			}
			if isSpace(c) {
				r.pos++
				continue
			}
			if c == '{' {
				return true
			}
			break // not an operation line: skip it too
		}
	}
}

// indexByte is bytes.IndexByte without the import churn in the hot loop.
func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// errorAt returns a ParseError for the operation that starts at pos.
func (r *Reader) errorAt(line int, off int64, reason string) *ParseError {
	pe := &ParseError{Source: r.source, Line: line, Offset: off, Reason: reason}
	if r.format == formatArray && r.array != arrayClosed {
		pe.Element = r.element
	}
	return pe
}

// utf8BOM is the byte order mark some editors write at the start of UTF-8
// text.
const utf8BOM = "\xef\xbb\xbf"

// skipBOM moves past a byte order mark at the very start of the input, and
// reports whether it did. (The offsets of what follows still count it.)
func (r *Reader) skipBOM() bool {
	if r.bomDone {
		return false
	}
	r.bomDone = true
	for r.end-r.pos < len(utf8BOM) && r.fill() {
	}
	if r.base+int64(r.pos) == 0 && r.end-r.pos >= len(utf8BOM) && string(r.buf[r.pos:r.pos+len(utf8BOM)]) == utf8BOM {
		r.pos += len(utf8BOM)
		return true
	}
	return false
}

// next returns the next operation, a *ParseError for a malformed one (the
// reader then goes on), io.EOF at the end, or the read error of the input.
func (r *Reader) next() (rawOp, error) {
	for {
		if r.done {
			if r.rerr != nil {
				err := r.rerr
				r.rerr = nil
				return rawOp{}, fmt.Errorf("feed: reading %s: %w", r.sourceName(), err)
			}
			return rawOp{}, io.EOF
		}
		if !r.skipSpace() {
			r.done = true
			if r.format == formatArray && r.array != arrayClosed && r.rerr == nil {
				return rawOp{}, r.errorAt(r.line, r.base+int64(r.pos), "unexpected end of input: the JSON array is not closed")
			}
			continue
		}
		if r.format == formatUnknown && r.skipBOM() {
			continue
		}
		c := r.buf[r.pos]
		if r.format == formatUnknown {
			r.format = formatJSONL
			if c == '[' {
				r.format = formatArray
				r.pos++
				continue
			}
		}
		if r.format == formatArray {
			switch {
			case r.array == arrayClosed:
				// Report the stray content, then go on reading any operations
				// after it rather than dropping them.
				pe := r.errorAt(r.line, r.base+int64(r.pos), "unexpected content after the end of the JSON array")
				r.array = arrayElement
				if c != '{' && !r.skipToObjectLine() {
					r.done = true
				}
				return rawOp{}, pe
			case c == ']':
				r.pos++
				r.array = arrayClosed
				continue
			case c == ',' && r.array == arrayAfter:
				r.pos++
				r.array = arrayElement
				continue
			}
		}
		line, off := r.line, r.base+int64(r.pos)
		if r.format == formatArray {
			r.element++
		}
		if c != '{' {
			reason := fmt.Sprintf("expected an operation object, found %s", quoteByte(c))
			if !r.skipToObjectLine() {
				r.done = true
			}
			r.array = arrayElement
			return rawOp{}, r.errorAt(line, off, reason)
		}
		op, err := r.object(line, off)
		if err != nil {
			return rawOp{}, err
		}
		if r.format == formatArray {
			op.element = r.element
		}
		r.array = arrayAfter
		return op, nil
	}
}

// object reads the object at pos, which starts on line at offset off.
//
// The one-pass scan reads a well-formed operation whose bytes are at hand.
// Anything else is framed first (reading more input as needed) and then
// scanned; what the scan does not accept is checked by encoding/json and
// decodeOperation, which say what is wrong.
func (r *Reader) object(line int, off int64) (rawOp, error) {
	if op, ok := r.onePass(); ok {
		op.line, op.offset = line, off
		return op, nil
	}
	r.framings++
	f := r.frameObject()
	if f.status == frameOK {
		b := r.buf[r.pos : r.pos+f.n]
		if !r.framedOnly {
			if st, n, lines, op := r.scan.scan(b); st == scanOK && n == f.n {
				r.pos += n
				r.line += lines
				op.line, op.offset = line, off
				return op, nil
			}
		}
		if json.Valid(b) {
			op, err := decodeOperation(b)
			r.pos += f.n
			r.line += f.lines
			if err != nil {
				// The element is read whole: what follows is a ',' or ']'.
				pe := r.errorAt(line, off, err.Error())
				r.array = arrayAfter
				pe.ID = op.id
				return rawOp{}, pe
			}
			op.line, op.offset = line, off
			return op, nil
		}
		f.reason = syntaxReason(b)
		if f.firstNL < 0 {
			// Framed on one line: skip exactly it, and in an array go on
			// with the ',' or ']' after it.
			r.pos += f.n
			pe := r.errorAt(line, off, f.reason)
			r.array = arrayAfter
			return rawOp{}, pe
		}
	}
	// A broken object. When it spans lines, resume after its first line,
	// which may be where the next good operation starts; otherwise after the
	// line it is on.
	r.array = arrayElement
	pe := r.errorAt(line, off, f.reason)
	if f.firstNL < 0 {
		if !r.skipToObjectLine() {
			r.done = true
		}
		return rawOp{}, pe
	}
	r.pos += f.firstNL + 1
	r.line++
	if r.skipSpace() && r.buf[r.pos] != '{' && !r.skipToObjectLine() {
		r.done = true
	}
	return rawOp{}, pe
}

// onePass reads the operation object at pos in one pass over its bytes, when
// they are in the buffer or the next read brings them, and reports whether it
// could.
func (r *Reader) onePass() (rawOp, bool) {
	if r.framedOnly {
		return rawOp{}, false
	}
	for filled := false; ; filled = true {
		b := r.buf[r.pos:r.end]
		if len(b) > r.maxOp {
			b = b[:r.maxOp]
		}
		st, n, lines, op := r.scan.scan(b)
		switch {
		case st == scanOK:
			r.pos += n
			r.line += lines
			return op, true
		case st == scanMore && !filled && len(b) < r.maxOp && r.fill():
			continue
		}
		return rawOp{}, false
	}
}

// syntaxReason describes why b is not valid JSON.
func syntaxReason(b []byte) string {
	var v json.RawMessage
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d of the operation: %s", se.Offset, se.Error())
	}
	if err != nil {
		return "invalid JSON: " + err.Error()
	}
	return "invalid JSON"
}

// sourceName names the input in messages.
func (r *Reader) sourceName() string {
	if r.source == "" {
		return "input"
	}
	return r.source
}

// quoteByte renders c for a message.
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// Next returns the next operation. A malformed operation gives a
// [*ParseError], after which Next goes on with the following ones; the end of
// the input gives io.EOF; a failure to read the input gives that error
// (wrapped), and then io.EOF.
func (r *Reader) Next() (Operation, error) {
	raw, err := r.next()
	if err != nil {
		return Operation{}, err
	}
	id, err := vespa.ParseDocumentID(raw.id)
	if err != nil {
		reason := err.Error()
		var ide *vespa.DocumentIDError
		if errors.As(err, &ide) {
			reason = "invalid document ID: " + ide.Reason
		}
		return Operation{}, &ParseError{Source: r.source, Line: raw.line, Offset: raw.offset, Element: raw.element, ID: raw.id, Reason: reason}
	}
	if !utf8.ValidString(raw.condition) {
		// As an ID that is not UTF-8 is refused: Vespa would read another
		// condition than the one in the file.
		return Operation{}, &ParseError{Source: r.source, Line: raw.line, Offset: raw.offset, Element: raw.element, ID: raw.id,
			Reason: "the condition is not valid UTF-8"}
	}
	op := Operation{
		ID:        id,
		Condition: raw.condition,
		Create:    raw.create,
		Source:    r.source,
		Line:      raw.line,
		Offset:    raw.offset,
		checked:   true, // the ID is parsed, the fields are a valid object
	}
	switch raw.kind {
	case kindPut:
		op.Kind = vespa.OpPut
	case kindUpdate:
		op.Kind = vespa.OpUpdate
	default:
		op.Kind = vespa.OpRemove
	}
	if raw.body != nil {
		op.setBody(raw.body)
	}
	return op, nil
}

// All returns an iterator over the remaining operations and errors, as
// [Reader.Next] gives them, up to the end of the input.
func (r *Reader) All() iter.Seq2[Operation, error] {
	return func(yield func(Operation, error) bool) {
		for {
			op, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(op, err) {
				return
			}
		}
	}
}
