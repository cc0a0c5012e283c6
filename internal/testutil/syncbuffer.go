package testutil

import (
	"bytes"
	"io"
	"log/slog"
	"sync"
)

// SyncBuffer is a bytes.Buffer for concurrent writers, such as the loggers
// of servers under test. Its zero value is an empty buffer.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Bytes returns a copy of what was written.
func (b *SyncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// TextAndJSONLogger returns a logger at the lowest level there is that
// writes each record to w twice, as text and as JSON (which render values
// differently: %+v and json.Marshal), with the source of each call: what a
// test that looks for leaked secrets reads.
func TextAndJSONLogger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelDebug - 8, AddSource: true}
	return slog.New(MultiHandler(slog.NewTextHandler(w, opts), slog.NewJSONHandler(w, opts)))
}
