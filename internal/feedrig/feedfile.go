package feedrig

import (
	"bufio"
	"errors"
	"os"
	"strconv"
)

// smallFields are the fields of a document of about 150 bytes.
const smallFields = `{"title":"A Head Full of Dreams","artist":"Coldplay","year":2015,"album":"A Head Full of Dreams (Deluxe)"}`

// SmallFields returns the fields of a document of about 150 bytes: a
// title, an artist, a year and an album.
func SmallFields() []byte { return []byte(smallFields) }

// LargeFields returns the fields of a document of about 4 KB: a title and
// a 384-float embedding.
func LargeFields() []byte {
	b := []byte(`{"title":"A Head Full of Dreams","embedding":{"values":[`)
	for i := range 384 {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(i%97)/97-0.5, 'f', 6, 64)
	}
	return append(b, "]}}"...)
}

// AppendPut appends to dst the JSONL line of a put of document
// id:ns:music::d<i> with the given fields (a JSON object), newline
// included.
func AppendPut(dst []byte, i int64, fields []byte) []byte {
	dst = append(dst, `{"put":"id:ns:music::d`...)
	dst = strconv.AppendInt(dst, i, 10)
	dst = append(dst, `","fields":`...)
	dst = append(dst, fields...)
	return append(dst, "}\n"...)
}

// WriteFeed writes a JSONL feed file to path, streamed: puts of documents
// d0, d1, … (see [AppendPut]) whose fields are fields(i), until it has
// written docs documents or at least size bytes, whichever comes first. A
// limit of 0 or less is no limit; with neither, WriteFeed writes nothing.
// It returns the bytes and the documents it wrote.
func WriteFeed(path string, docs, size int64, fields func(i int64) []byte) (written, n int64, err error) {
	fh, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriterSize(fh, 1<<20)
	var line []byte
	for (docs > 0 || size > 0) && (docs <= 0 || n < docs) && (size <= 0 || written < size) {
		line = AppendPut(line[:0], n, fields(n))
		if _, err := w.Write(line); err != nil {
			return 0, 0, errors.Join(err, fh.Close())
		}
		written += int64(len(line))
		n++
	}
	if err := w.Flush(); err != nil {
		return 0, 0, errors.Join(err, fh.Close())
	}
	return written, n, fh.Close()
}
