package ctlplane

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/wire"
)

// This package's own sentinels, for its tests; deploy registers the public
// ones (deploy.ErrUnauthorized, deploy.ErrOutcomeUnknown), which its errors
// match too. The others of a status are the SDK's (vespa.ErrNotFound and so
// on), so that one test serves every package; ErrUnauthorized matches 401
// and 403 both.
var (
	ErrUnauthorized = errors.New("vespa control plane: unauthorized")
	// ErrOutcomeUnknown matches the error of an upload whose request went
	// out but whose reply was lost.
	ErrOutcomeUnknown = errors.New("vespa control plane: outcome unknown")
)

// Failure is what the error of a reply with a non-2xx status from a config
// server or from Vespa Cloud's control plane holds. Its public type is
// deploy.Error, declared in package deploy so that go doc shows it; deploy
// imports this package, so this package cannot name it: deploy registers
// it ([Register]) when it is initialised, and every such error is made
// through [NewError] and read through [FailureOf]. Packages deploy and
// cloud (which imports deploy) are this package's only users, so at run
// time the error is a *deploy.Error; failureError stands in only in this
// package's own tests. See deploy.Error for the fields.
type Failure struct {
	Op, Method, Path string
	Status           int
	Code, Message    string
	Err              *vespa.Error
	Pkg              string // "deploy" or "cloud", the start of its text
}

// Text returns "<package>: <op>: <status> <code>: <message>" (the op left
// out where it is the package's name), with a hint where the cause is known.
func (f *Failure) Text() string {
	var b strings.Builder
	pkg := f.Pkg
	if pkg == "" {
		pkg = "vespa"
	}
	if f.Op == "" || f.Op == pkg {
		fmt.Fprintf(&b, "%s: %d", pkg, f.Status) // "deploy: deploy:" says nothing more
	} else {
		fmt.Fprintf(&b, "%s: %s: %d", pkg, f.Op, f.Status)
	}
	if f.Code != "" {
		b.WriteString(" " + f.Code)
	} else if t := http.StatusText(f.Status); t != "" {
		b.WriteString(" " + t)
	}
	if f.Message != "" {
		b.WriteString(": " + f.Message)
	}
	if f.Status == http.StatusNotFound && strings.Contains(f.Message, "No request handler bound to") && strings.HasPrefix(f.Path, "/application/v2/") {
		// JDisc's own 404 for a path no handler serves: a container (8080),
		// not the config server (19071), answered.
		b.WriteString(" (a Vespa container answered, not a config server: give the config server's URL, port 19071 by default)")
	}
	return b.String()
}

// StatusIs reports whether target is [ErrUnauthorized] and status 401 or
// 403, or the SDK's sentinel of status (vespa.ErrNotFound for 404, and so on).
func StatusIs(status int, target error) bool {
	if target == ErrUnauthorized || target == errorType.Unauthorized && target != nil { //nolint:errorlint // sentinel identity
		return status == http.StatusUnauthorized || status == http.StatusForbidden
	}
	return (&vespa.Error{Status: status}).Is(target)
}

// errorType is the registered public error type (see [Failure]). Until
// package deploy's init registers its own, replies are *failureError. Set
// once, before any request can be made; read-only after.
var errorType = ErrorType{Make: newFailureError, Read: readFailureError}

// ErrorType is the public error type of replies and its sentinels.
type ErrorType struct {
	Make func(Failure) error         // the error of a reply
	Read func(error) (Failure, bool) // the failure of the first such error in a chain
	// Unauthorized and OutcomeUnknown are the public sentinels that
	// [ErrUnauthorized] and [ErrOutcomeUnknown] stand for.
	Unauthorized, OutcomeUnknown error
}

// Register makes t, whose Make and Read are both set, the way this package
// makes and reads the errors of replies. Package deploy calls it from its
// init.
func Register(t ErrorType) { errorType = t }

// NewError returns the error of the reply f: a *deploy.Error.
func NewError(f Failure) error { return errorType.Make(f) }

// FailureOf returns the failure of the first error in err's chain that is
// the error of a reply (a *deploy.Error), and whether there is one.
func FailureOf(err error) (Failure, bool) { return errorType.Read(err) }

func newFailureError(f Failure) error { return &failureError{f} }

func readFailureError(err error) (f Failure, ok bool) {
	var fe *failureError
	if ok = errors.As(err, &fe); ok {
		f = fe.f
	}
	return f, ok
}

// failureError is the error of a reply where package deploy is not linked
// in (see [Failure]).
type failureError struct{ f Failure }

func (e *failureError) Error() string        { return e.f.Text() }
func (e *failureError) StatusCode() int      { return e.f.Status }
func (e *failureError) ErrorCode() string    { return e.f.Code }
func (e *failureError) Is(target error) bool { return StatusIs(e.f.Status, target) }
func (e *failureError) Unwrap() error {
	if e.f.Err == nil {
		return nil
	}
	return e.f.Err
}

// maxErrorBody is how much of a non-JSON error body is kept as the message.
const maxErrorBody = 512

// ParseReply returns the failure of a reply with status and body; pkg
// ("deploy", "cloud") starts its text. Its Err is the same failure as a
// *vespa.Error, with the Retry-After hint given.
func ParseReply(pkg, op, method, path string, status int, body []byte, retryAfter time.Duration, hasRetryAfter bool) Failure {
	f := Failure{Pkg: pkg, Op: op, Method: method, Path: path, Status: status}
	var env struct {
		ErrorCode string `json:"error-code"`
		Message   string `json:"message"`
	}
	if json.Unmarshal(body, &env) == nil && (env.Message != "" || env.ErrorCode != "") {
		f.Code, f.Message = env.ErrorCode, env.Message
	} else {
		msg := strings.TrimSpace(string(body))
		if len(msg) > maxErrorBody {
			msg = msg[:maxErrorBody] + "…"
		}
		f.Message = msg
	}
	f.Err = vespaError(op, path, status, f.Message, retryAfter, hasRetryAfter)
	return f
}

// outcomeError is an upload whose request went out and whose reply was lost.
type outcomeError struct {
	pkg, op, check string
	err            error
}

func (e *outcomeError) Error() string {
	prefix := e.pkg + ": " + e.op
	if e.op == e.pkg {
		prefix = e.pkg // "deploy: deploy:" says nothing more
	}
	return fmt.Sprintf("%s: the request was sent but no reply came (%v): it may or may not have taken effect, and it was not sent again; %s",
		prefix, e.err, e.check)
}

func (e *outcomeError) Unwrap() error { return e.err }

func (e *outcomeError) Is(target error) bool {
	return target == ErrOutcomeUnknown || target == errorType.OutcomeUnknown && target != nil //nolint:errorlint // sentinel identity
}

// vespaError returns the SDK's error of a reply (package vespa's Error,
// made through package wire so that its Retry-After is set).
func vespaError(op, path string, status int, message string, retryAfter time.Duration, hasRetryAfter bool) *vespa.Error {
	err := wire.NewError(wire.Failure{Op: op, Path: path, Status: status, Message: message,
		RetryAfter: retryAfter, HasRetryAfter: hasRetryAfter})
	ve, _ := err.(*vespa.Error) //nolint:errorlint // package vespa, imported, made it unwrapped
	return ve
}
