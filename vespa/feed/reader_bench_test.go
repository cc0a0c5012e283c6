package feed

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/govespa/govespa/internal/feedrig"
)

// benchFeedFile returns n JSONL puts as internal/cmd/feedcmp writes them
// (feedrig's documents): about 150 bytes each, or about 4 KB with a
// 384-float embedding.
func benchFeedFile(n int, large bool) []byte {
	fields := feedrig.SmallFields()
	if large {
		fields = feedrig.LargeFields()
	}
	var b []byte
	for i := range n {
		b = feedrig.AppendPut(b, int64(i), fields)
	}
	return b
}

// cycleReader returns its data again and again, in reads of at most chunk
// bytes, as a file read through the reader's buffer would arrive.
type cycleReader struct {
	data []byte
	pos  int
}

func (c *cycleReader) Read(p []byte) (int, error) {
	if c.pos == len(c.data) {
		c.pos = 0
	}
	n := copy(p, c.data[c.pos:])
	c.pos += n
	return n, nil
}

// BenchmarkReader reads feed-file operations (one per b.N), decoded into
// [Operation] values as the feeder gets them. Run:
//
//	go test -run '^$' -bench Reader -benchmem ./vespa/feed/
//
// MB/s is the reader's throughput over the input bytes; allocs/op are per
// operation. The "framed" variants take the reader's fallback path (frame,
// then validate and decode), which is how every operation was read before the
// one-pass scanner.
func BenchmarkReader(b *testing.B) {
	for _, size := range []struct {
		name  string
		large bool
	}{{"150B", false}, {"4KB", true}} {
		data := benchFeedFile(1000, size.large)
		for _, mode := range []struct {
			name   string
			framed bool
		}{{"onepass", false}, {"framed", true}} {
			b.Run(size.name+"/"+mode.name, func(b *testing.B) {
				rd := NewReader(&cycleReader{data: data}, ReaderConfig{Source: "bench"})
				rd.framedOnly = mode.framed
				b.SetBytes(int64(len(data) / 1000))
				b.ReportAllocs()
				for b.Loop() {
					op, err := rd.Next()
					if err != nil || op.Fields == nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkOnePassScan is the one-pass scan alone over one operation object
// (validation and the operation's keys, plus the copy of its fields).
func BenchmarkOnePassScan(b *testing.B) {
	for _, size := range []struct {
		name  string
		large bool
	}{{"150B", false}, {"4KB", true}} {
		obj := bytes.TrimSpace(benchFeedFile(1, size.large))
		b.Run(size.name, func(b *testing.B) {
			var s opScanner
			b.SetBytes(int64(len(obj)))
			b.ReportAllocs()
			for b.Loop() {
				if st, _, _, _ := s.scan(obj); st != scanOK {
					b.Fatal(st)
				}
			}
		})
	}
}

// TestBenchFeedFile_IsReadWhole keeps the benchmark's input honest: every
// operation of it is read, and none fails.
func TestBenchFeedFile_IsReadWhole(t *testing.T) {
	for _, large := range []bool{false, true} {
		data := benchFeedFile(50, large)
		rd := NewReader(bytes.NewReader(data), ReaderConfig{})
		n := 0
		for {
			op, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if op.ID.String() != "id:ns:music::d"+strconv.Itoa(n) {
				t.Fatalf("op %d has ID %s", n, op.ID)
			}
			n++
		}
		if n != 50 {
			t.Fatalf("read %d operations, want 50", n)
		}
	}
}
