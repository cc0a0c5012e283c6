package retries

import (
	"errors"
	"slices"
)

// TransientConflictCodes are the error-codes of a config server's 409 replies
// that say "not yet" rather than "no": another deployment holds the
// application's lock, the services have not converged on the config
// generation, or a load balancer or parent host is not ready. Vespa's config
// server sends them (HttpErrorResponse in configserver); waiting and asking
// again can succeed. Every other 409, such as ACTIVATION_CONFLICT, is final.
//
// It is a copy for reading: [IsTransientConflict] and the policies use their
// own list ([TransientConflicts]), so a program that changes this slice
// changes nothing the SDK does and races nothing.
var TransientConflictCodes = TransientConflicts()

// transientConflictCodes is the list the SDK reads; nothing modifies it.
var transientConflictCodes = [...]string{
	"APPLICATION_LOCK_FAILURE",
	"CONFIG_NOT_CONVERGED",
	"LOAD_BALANCER_NOT_READY",
	"PARENT_HOST_NOT_READY",
}

// TransientConflicts returns a new slice of the error-codes of
// [TransientConflictCodes], as this package defines them.
func TransientConflicts() []string { return slices.Clone(transientConflictCodes[:]) }

// ErrorCoder is implemented by errors that carry a server's error-code, such
// as a config server's "APPLICATION_LOCK_FAILURE".
type ErrorCoder interface {
	ErrorCode() string
}

// IsTransientConflict reports whether err carries status 409 (through
// [StatusCoder]) and one of the [TransientConflictCodes] (through
// [ErrorCoder]), whatever a program did to that variable. The policies of status polls and reads ([ControlPlane])
// retry such an error; uploads ([Upload]) never do.
func IsTransientConflict(err error) bool {
	if errStatus(err) != 409 {
		return false
	}
	var ec ErrorCoder
	return errors.As(err, &ec) && slices.Contains(transientConflictCodes[:], ec.ErrorCode())
}
