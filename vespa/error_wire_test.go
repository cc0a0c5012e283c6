package vespa

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/internal/wire"
)

// The internal package that sends requests makes its errors through the type
// this package registers: they are *Error, with every field and the
// Retry-After hint, and they read back the same.
func TestWireMakesError(t *testing.T) {
	cause := errors.New("boom")
	err := wire.NewError(wire.Failure{Status: 429, Message: "slow down", ID: "id:a:b::c", Op: "put", Path: "/p",
		Err: cause, RetryAfter: 3 * time.Second, HasRetryAfter: true})
	e, ok := err.(*Error) //nolint:errorlint // the very type
	if !ok {
		t.Fatalf("wire.NewError made %T, want *vespa.Error", err)
	}
	if e.Status != 429 || e.Message != "slow down" || e.ID != "id:a:b::c" || e.Op != "put" || e.Path != "/p" || !errors.Is(err, cause) || !errors.Is(err, ErrTooManyRequests) {
		t.Errorf("got %+v", e)
	}
	if d, ok := e.RetryAfter(); !ok || d != 3*time.Second {
		t.Errorf("RetryAfter %v, %v", d, ok)
	}
	kept := wire.KeptCause(context.DeadlineExceeded, err)
	var k *Error
	if !errors.As(kept, &k) || k.Status != 429 || !errors.Is(kept, context.DeadlineExceeded) || !errors.Is(kept, cause) {
		t.Fatalf("KeptCause: %v", kept)
	}
	if d, ok := k.RetryAfter(); !ok || d != 3*time.Second {
		t.Errorf("KeptCause lost Retry-After: %v, %v", d, ok)
	}
	if f, ok := wire.FailureOf(kept); !ok || f.Status != 429 || f.ID != "id:a:b::c" {
		t.Errorf("FailureOf: %+v, %v", f, ok)
	}
}

// The public defaults are the ones the internal package applies.
func TestDefaultLimitsAreWire(t *testing.T) {
	if DefaultDocumentLimit != wire.DefaultDocumentLimit || DefaultVisitPageLimit != wire.DefaultVisitLimit {
		t.Errorf("DefaultDocumentLimit %d, DefaultVisitPageLimit %d; wire applies %d, %d",
			DefaultDocumentLimit, DefaultVisitPageLimit, wire.DefaultDocumentLimit, wire.DefaultVisitLimit)
	}
}
