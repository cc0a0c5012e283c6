package retries

import (
	"fmt"
	"testing"
)

// conflictError is a test double for a config server's 409 with an error-code.
type conflictError struct{ code string }

func (e *conflictError) Error() string     { return "409 " + e.code }
func (e *conflictError) StatusCode() int   { return 409 }
func (e *conflictError) ErrorCode() string { return e.code }

// codedError carries an error-code with another status.
type codedError struct {
	status int
	code   string
}

func (e *codedError) Error() string     { return fmt.Sprint(e.status, " ", e.code) }
func (e *codedError) StatusCode() int   { return e.status }
func (e *codedError) ErrorCode() string { return e.code }

func conflict(code string) outcomeFunc {
	return outcomeFunc{"a 409 " + code, func() (*response, error) { return nil, &conflictError{code: code} }}
}

func TestIsTransientConflict(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&conflictError{"APPLICATION_LOCK_FAILURE"}, true},
		{&conflictError{"CONFIG_NOT_CONVERGED"}, true},
		{&conflictError{"LOAD_BALANCER_NOT_READY"}, true},
		{&conflictError{"PARENT_HOST_NOT_READY"}, true},
		{fmt.Errorf("wrapped: %w", &conflictError{"APPLICATION_LOCK_FAILURE"}), true},
		{&conflictError{"ACTIVATION_CONFLICT"}, false},
		{&conflictError{"REQUESTED_NODES_MISSING"}, false},
		{&conflictError{""}, false},
		{&codedError{500, "APPLICATION_LOCK_FAILURE"}, false},
		{&statusError{status: 409}, false},
		{nil, false},
	} {
		if got := IsTransientConflict(c.err); got != c.want {
			t.Errorf("IsTransientConflict(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
