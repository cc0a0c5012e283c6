package deploy

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// The internal control-plane package makes its errors through the type this
// package registers: *Error, wrapping a *vespa.Error with the Retry-After.
func TestCtlplaneMakesError(t *testing.T) {
	err := ctlplane.NewError(ctlplane.ParseReply("deploy", "activate", "PUT", "/application/v2/x", 403,
		[]byte(`{"error-code":"FORBIDDEN","message":"no"}`), 2*time.Second, true))
	e, ok := err.(*Error) //nolint:errorlint // the very type
	if !ok {
		t.Fatalf("ctlplane.NewError made %T, want *deploy.Error", err)
	}
	var ve *vespa.Error
	if e.Code != "FORBIDDEN" || e.Message != "no" || e.Method != http.MethodPut || !errors.Is(err, ErrUnauthorized) || !errors.Is(err, vespa.ErrForbidden) ||
		!errors.As(err, &ve) || ve.Status != 403 || err.Error() != "deploy: activate: 403 FORBIDDEN: no" {
		t.Errorf("got %+v: %v", e, err)
	}
	if d, ok := e.RetryAfter(); !ok || d != 2*time.Second {
		t.Errorf("RetryAfter %v, %v", d, ok)
	}
	if f, ok := ctlplane.FailureOf(err); !ok || f.Code != "FORBIDDEN" || f.Pkg != "deploy" {
		t.Errorf("FailureOf: %+v, %v", f, ok)
	}
}
