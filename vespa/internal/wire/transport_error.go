package wire

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
)

// TransportError returns the error of a request that got no answer: Status
// 0, and err as the cause without the URL (and its query) that net/http
// repeats. The *url.Error stays in the chain, so that retry classification
// still recognises a dropped connection.
func TransportError(op, id, path string, err error) error {
	return NewError(Failure{Op: op, ID: id, Path: path, Err: HideURL(err)})
}

// LogTransportError is [TransportError], logged first at debug level on
// logger as "vespa request failed" with op, path and the error.
func LogTransportError(ctx context.Context, logger *slog.Logger, op, id, path string, err error) error {
	cause := HideURL(err)
	if logger.Enabled(ctx, slog.LevelDebug) {
		logger.DebugContext(ctx, "vespa request failed", "op", op, "path", path, "error", cause)
	}
	return NewError(Failure{Op: op, ID: id, Path: path, Err: cause})
}

// HideURL hides the text of err's *url.Error layer, which repeats the whole
// URL with its query, and keeps it in the chain.
func HideURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return &urlHiddenError{ue: ue}
	}
	return err
}

// urlHiddenError prints a transport failure without its URL and unwraps to the
// original *url.Error.
type urlHiddenError struct{ ue *url.Error }

func (e *urlHiddenError) Error() string { return e.ue.Err.Error() }
func (e *urlHiddenError) Unwrap() error { return e.ue }
