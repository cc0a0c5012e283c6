package ctlplane

import "io"

// PipeReader reads what a goroutine writes through an [io.Pipe]; Close (or
// the end of the attempt that reads it) stops that goroutine and waits for it.
type PipeReader struct {
	pr   *io.PipeReader
	done chan struct{}
	werr error // what write returned; read after done is closed
}

// NewPipe starts a goroutine running write into a pipe and returns the
// pipe's reading end. A write error is returned by Read.
func NewPipe(write func(io.Writer) error) *PipeReader {
	pr, pw := io.Pipe()
	r := &PipeReader{pr: pr, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.werr = write(pw)
		pw.CloseWithError(r.werr)
	}()
	return r
}

func (r *PipeReader) Read(b []byte) (int, error) { return r.pr.Read(b) }

// Close stops the writer (its next write fails with io.ErrClosedPipe) and
// waits for it to end.
func (r *PipeReader) Close() error {
	r.stop(nil)
	return nil
}

// stop makes the writer's next write fail with err (io.ErrClosedPipe when
// nil) and waits for it to end. It may be called more than once.
func (r *PipeReader) stop(err error) {
	r.pr.CloseWithError(err)
	<-r.done
}

// writeErr stops the writer, waits for it, and returns the error write
// returned: nil when it wrote everything, the stop's error when it was cut
// short by the end of the attempt.
func (r *PipeReader) writeErr(stop error) error {
	r.stop(stop)
	return r.werr
}
