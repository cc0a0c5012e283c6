package wire

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The default limits on an answer read into memory. Each is documented on
// the option that changes it.
const (
	// DefaultDocumentLimit bounds the answer to one document operation: a
	// get's document (Vespa's own limit on a document is far below it).
	DefaultDocumentLimit = 64 << 20
	// DefaultVisitLimit bounds one visit page.
	DefaultVisitLimit = 256 << 20
	// DefaultQueryLimit bounds one query result.
	DefaultQueryLimit = 256 << 20
	// DefaultControlLimit bounds one control-plane reply.
	DefaultControlLimit = 64 << 20
	// DefaultSmallLimit bounds answers that are small by nature (health).
	DefaultSmallLimit = 1 << 20
)

// maxInitial is the most ReadBody allocates before it has read anything:
// a Content-Length is a hint up to this size, never more, so that a lying
// header costs at most this much.
const maxInitial = 64 << 10

// LimitError is the cause of an answer larger than its limit.
type LimitError struct{ Limit int64 }

func (e *LimitError) Error() string {
	return fmt.Sprintf("the answer is larger than the limit of %d bytes", e.Limit)
}

// Is matches [ErrResponseTooLarge].
func (e *LimitError) Is(target error) bool { return target == ErrResponseTooLarge } //nolint:errorlint // sentinel identity

// ReadBody reads r up to limit bytes (limit > 0). hint is the answer's
// Content-Length (-1 when unknown): it sizes the first buffer only up to
// 64 KiB. More than limit bytes give a [*LimitError]; the rest is not read.
func ReadBody(r io.Reader, hint, limit int64) ([]byte, error) {
	size := int64(512)
	if hint > 0 {
		size = hint + 1 // +1: the read that sees EOF needs room
	}
	size = min(size, maxInitial, limit+1)
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, &LimitError{Limit: limit}
			}
			next := min(int64(cap(buf))*2, limit+1)
			buf = append(buf, make([]byte, next-int64(len(buf)))...)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, &LimitError{Limit: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// MaxExcerpt is the longest excerpt of a body put into an error.
const MaxExcerpt = 256

// Excerpt returns the start of body as valid, single-line text, for an
// error message.
func Excerpt(body []byte) string {
	if len(body) > MaxExcerpt {
		body = body[:MaxExcerpt]
		for len(body) > 0 && !utf8.Valid(body) {
			body = body[:len(body)-1]
		}
	}
	s := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(string(body), "?"))
	return strings.Join(strings.Fields(s), " ")
}
