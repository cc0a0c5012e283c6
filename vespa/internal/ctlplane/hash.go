package ctlplane

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
)

// EmptyContentHash is the X-Content-Hash of a request without a body: the
// standard base64 of the SHA-256 of zero bytes.
const EmptyContentHash = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="

// HashBody returns the standard base64 of the SHA-256 of what write writes,
// and its length.
func HashBody(write func(io.Writer) error) (string, int64, error) {
	h := sha256.New()
	cw := &countingWriter{w: h}
	if write != nil {
		if err := write(cw); err != nil {
			return "", 0, err
		}
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil)), cw.n, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
