package testutil

import (
	"context"
	"errors"
	"log/slog"
	"sync"
)

// MultiHandler returns a handler that passes every record to each of hs, as
// Go 1.26's slog.NewMultiHandler does; the module's go line is 1.25.
func MultiHandler(hs ...slog.Handler) slog.Handler { return multiHandler(hs) }

type multiHandler []slog.Handler

func (m multiHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range m {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (m multiHandler) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range m {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (m multiHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(multiHandler, len(m))
	for i, h := range m {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (m multiHandler) WithGroup(name string) slog.Handler {
	out := make(multiHandler, len(m))
	for i, h := range m {
		out[i] = h.WithGroup(name)
	}
	return out
}

// LogRecorder is a slog.Handler that keeps every record at Debug level and
// above, for tests to read; it is safe for concurrent use.
type LogRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

// Enabled implements slog.Handler: every level from Debug.
func (*LogRecorder) Enabled(context.Context, slog.Level) bool { return true }

// Handle implements slog.Handler.
func (l *LogRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.records = append(l.records, r.Clone())
	l.mu.Unlock()
	return nil
}

// WithAttrs implements slog.Handler; the attributes are dropped.
func (l *LogRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup implements slog.Handler; the group is dropped.
func (l *LogRecorder) WithGroup(string) slog.Handler { return l }

// Records returns the records with message msg, in order.
func (l *LogRecorder) Records(msg string) []slog.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []slog.Record
	for _, r := range l.records {
		if r.Message == msg {
			out = append(out, r)
		}
	}
	return out
}
