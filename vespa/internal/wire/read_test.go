package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// endless yields 'x' for ever, counting what was read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	return len(p), nil
}

func TestReadBody(t *testing.T) {
	t.Run("a body within the limit is read whole", func(t *testing.T) {
		for _, n := range []int{0, 1, 511, 512, 513, 100_000} {
			in := bytes.Repeat([]byte("a"), n)
			got, err := ReadBody(bytes.NewReader(in), -1, 100_000)
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("n=%d: got %d bytes, %v", n, len(got), err)
			}
		}
	})
	t.Run("a body of exactly the limit is read, one byte more is an error", func(t *testing.T) {
		if _, err := ReadBody(strings.NewReader("12345"), 5, 5); err != nil {
			t.Fatal(err)
		}
		_, err := ReadBody(strings.NewReader("123456"), 6, 5)
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != 5 || !errors.Is(err, ErrResponseTooLarge) {
			t.Fatalf("got %v, want a LimitError of 5 matching ErrResponseTooLarge", err)
		}
	})
	t.Run("an endless body stops at the limit", func(t *testing.T) {
		e := &endless{}
		_, err := ReadBody(e, -1, 1<<20)
		if !errors.Is(err, ErrResponseTooLarge) {
			t.Fatalf("got %v", err)
		}
		if e.n > 2<<20 {
			t.Errorf("read %d bytes for a limit of 1 MiB", e.n)
		}
	})
	t.Run("a lying Content-Length does not size the buffer", func(t *testing.T) {
		got, err := ReadBody(strings.NewReader("tiny"), 1<<30, 1<<31)
		if err != nil || string(got) != "tiny" {
			t.Fatal(got, err)
		}
		if cap(got) > maxInitial+1 {
			t.Errorf("allocated %d bytes for a 4-byte body claiming 1 GiB", cap(got))
		}
	})
	t.Run("a read error is returned", func(t *testing.T) {
		_, err := ReadBody(io.MultiReader(strings.NewReader("ab"), errReader{}), -1, 10)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatal(err)
		}
	})
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	if got := Excerpt([]byte(long)); len(got) > MaxExcerpt || !strings.HasPrefix(long, got) {
		t.Errorf("excerpt of %d bytes, or cut inside a rune: %q", len(got), got)
	}
	if got := Excerpt([]byte("<html>\n\t<body>Login\x00</body>")); got != "<html> <body>Login </body>" {
		t.Errorf("got %q", got)
	}
}
