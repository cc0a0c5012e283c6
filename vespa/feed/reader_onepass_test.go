package feed

import (
	"bytes"
	"strings"
	"testing"
)

// TestSkipPlain_MatchesBytewise checks the eight-bytes-at-a-time string scan
// against the byte loop, for every byte value at every place of a word and
// after every kind of filler (ASCII, UTF-8, bytes that borrow).
func TestSkipPlain_MatchesBytewise(t *testing.T) {
	bytewise := func(b []byte, i int) int {
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		return i
	}
	for _, filler := range []byte{'a', 0x80, 0xff, 0x21, 0x5d, 0x1f + 1, 0x01} {
		for c := range 256 {
			for pos := range 20 {
				b := bytes.Repeat([]byte{filler}, 24)
				b[pos] = byte(c)
				for start := range 3 {
					if got, want := skipPlain(b, start), bytewise(b, start); got != want {
						t.Fatalf("filler %#x, byte %#x at %d, from %d: %d, want %d", filler, c, pos, start, got, want)
					}
				}
			}
		}
	}
}

// TestScanDigits_MatchesBytewise does the same for the digit scan.
func TestScanDigits_MatchesBytewise(t *testing.T) {
	bytewise := func(b []byte, i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	for _, filler := range []byte{'0', '9', '5'} {
		for c := range 256 {
			for pos := range 20 {
				b := bytes.Repeat([]byte{filler}, 24)
				b[pos] = byte(c)
				b[pos/2] = byte(255 - c) // a second odd byte before it, sometimes
				for start := range 3 {
					if got, want := scanDigits(b, start), bytewise(b, start); got != want {
						t.Fatalf("%q from %d: %d, want %d", b, start, got, want)
					}
				}
			}
		}
	}
}

// TestOnePass_ReadsWhatTheFramingPathReads reads feeds whose operations
// cross the reader's buffer at every place, through both paths.
func TestOnePass_ReadsWhatTheFramingPathReads(t *testing.T) {
	var in strings.Builder
	for n := range 200 {
		in.WriteString(goodLine(n))
		in.WriteString(strings.Repeat(" ", n%7))
		in.WriteString("\n")
		if n%10 == 0 {
			in.WriteString(`{"put":"id:a:b::s","fields":{"s":"` + strings.Repeat("é\\\"", n) + `"}}` + "\r\n")
		}
	}
	for _, chunk := range []int{1, 7, 100, 4096, 1 << 20} {
		want := traceReader(t, strings.NewReader(in.String()), true, 0)
		got := traceReader(t, chunkReader{strings.NewReader(in.String()), chunk}, false, 0)
		if len(got.ops) != 220 || len(got.errs) != 0 {
			t.Fatalf("reads of %d: %d operations, errors %v", chunk, len(got.ops), got.errs)
		}
		for i := range got.ops {
			if string(got.ops[i].body) != string(want.ops[i].body) || got.ops[i].id != want.ops[i].id ||
				got.ops[i].line != want.ops[i].line || got.ops[i].offset != want.ops[i].offset {
				t.Fatalf("reads of %d: operation %d is %+v, want %+v", chunk, i, got.ops[i], want.ops[i])
			}
		}
	}
}

// TestOnePass_TakesNoDetourOnGoodInput checks that good operations read from
// a file-like source are read in one pass, and that one of several MB (more
// than the buffer holds) is still read whole, once framed.
func TestOnePass_TakesNoDetourOnGoodInput(t *testing.T) {
	var in strings.Builder
	for n := range 2000 {
		in.WriteString(goodLine(n) + "\n")
	}
	big := `{"put":"id:a:b::big","fields":{"v":[` + strings.Repeat("0.123456,", 500_000) + `1]}}`
	in.WriteString(big + "\n" + goodLine(2000) + "\n")
	rd := NewReader(strings.NewReader(in.String()), ReaderConfig{})
	n := 0
	for op, err := range rd.All() {
		if err != nil {
			t.Fatal(err)
		}
		if n == 2000 && string(op.Fields) != big[len(`{"put":"id:a:b::big","fields":`):len(big)-1] {
			t.Fatalf("the big operation's fields are %d bytes", len(op.Fields))
		}
		n++
	}
	if n != 2002 {
		t.Fatalf("read %d operations, want 2002", n)
	}
	// Operations crossing the end of the buffer are read after one more
	// read; only the big one is framed first.
	if rd.framings != 1 {
		t.Errorf("%d operations framed, want 1", rd.framings)
	}
	if cap(rd.buf) > 4*len(big) {
		t.Errorf("buffer of %d bytes for an operation of %d", cap(rd.buf), len(big))
	}
}
