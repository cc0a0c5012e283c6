package wire

import (
	"io"
	"net/http"
)

// Body is a request body read from memory: an io.ReadCloser and
// io.WriterTo over bytes the caller keeps unchanged until the request is
// done. Its UnreadBytes method lets a transport that knows it (govespa's
// HTTP/2 transport) take the bytes without a copy.
type Body struct {
	b   []byte
	off int
}

// NewBody returns a body reading b.
func NewBody(b []byte) *Body { return &Body{b: b} }

// SetBody makes b the body of req, with its ContentLength and a GetBody
// that starts it again (for a transport that re-sends a request it had not
// written). An empty b is no body.
func SetBody(req *http.Request, b []byte) {
	if len(b) == 0 {
		req.Body, req.GetBody, req.ContentLength = http.NoBody, nil, 0
		return
	}
	req.Body = NewBody(b)
	req.ContentLength = int64(len(b))
	req.GetBody = func() (io.ReadCloser, error) { return NewBody(b), nil }
}

// Read implements io.Reader.
func (r *Body) Read(p []byte) (int, error) {
	if r.off >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.off:])
	r.off += n
	return n, nil
}

// WriteTo writes the unread bytes to w in one Write.
func (r *Body) WriteTo(w io.Writer) (int64, error) {
	rest := r.b[r.off:]
	if len(rest) == 0 {
		return 0, nil
	}
	n, err := w.Write(rest)
	r.off += n
	if err == nil && n < len(rest) {
		err = io.ErrShortWrite
	}
	return int64(n), err
}

// UnreadBytes returns the bytes not yet read, and marks them read: the
// caller sends them itself.
func (r *Body) UnreadBytes() []byte {
	b := r.b[r.off:]
	r.off = len(r.b)
	return b
}

// Close implements io.Closer; the bytes stay the caller's.
func (r *Body) Close() error { return nil }
