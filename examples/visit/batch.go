package main

import (
	"fmt"
	"io"

	"github.com/govespa/govespa/vespa"
)

// batchBytes is the size at which a batch of documents is written out.
const batchBytes = 64 << 10

// batchWriter writes a visit's documents to out, one feed operation a line,
// in batches of about batchBytes, and keeps the resume token that goes with
// what was written: after each successful write, the visitor's token, which
// then covers exactly the documents written. When a write fails, the token
// stays at the last good one, so a resumed visit loses nothing; the failed
// batch may have been written in part, and those documents come again.
type batchWriter struct {
	out     io.Writer
	visitor *vespa.Visitor
	batch   []byte
	pending int64  // documents in batch
	written int64  // documents written to out
	token   string // resumes after the documents written
	failed  bool   // add failed: the batch no longer matches the visitor's token
}

// newBatchWriter returns a batchWriter for v, whose token is v's starting
// point until a batch is written.
func newBatchWriter(out io.Writer, v *vespa.Visitor) *batchWriter {
	return &batchWriter{out: out, visitor: v, token: v.ResumeToken(), batch: make([]byte, 0, batchBytes+4<<10)}
}

// add appends doc to the batch, and writes the batch when it is full. Call
// it from the loop body that received doc, where the visitor's token covers
// doc and the documents before it. After an error, the writer writes nothing
// more.
func (w *batchWriter) add(doc *vespa.Document) error {
	if w.failed {
		return nil
	}
	b, err := doc.MarshalJSON()
	if err != nil {
		// doc is not in the batch but the visitor's token counts it: only
		// the last token of a written batch is safe from here on.
		w.failed = true
		return fmt.Errorf("encoding %s: %w", doc.ID, err)
	}
	w.batch = append(append(w.batch, b...), '\n')
	w.pending++
	if len(w.batch) < batchBytes {
		return nil
	}
	return w.write()
}

// flush writes what is left in the batch. Call it once the visit's loop is
// over, when the visitor's token covers every document it yielded. After an
// error from add it does nothing.
func (w *batchWriter) flush() error {
	if w.failed {
		return nil
	}
	return w.write()
}

// write writes the batch and, when that worked, takes the visitor's token.
func (w *batchWriter) write() error {
	token := w.visitor.ResumeToken()
	if len(w.batch) > 0 {
		if _, err := w.out.Write(w.batch); err != nil {
			w.failed = true
			return fmt.Errorf("writing %d documents: %w", w.pending, err)
		}
		w.written += w.pending
		w.pending, w.batch = 0, w.batch[:0]
	}
	w.token = token
	return nil
}
