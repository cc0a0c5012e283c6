// Package cli is the plumbing that govespa's example programs share, so that
// each program's own files show only its flags and its use of the SDK: the
// exit statuses, a flag set's usage and its parse turned into one, the
// -endpoint flag, and a main whose context ends on interrupt.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// Exit statuses of the example programs.
const (
	// ExitOK is success, and the status of -h.
	ExitOK = 0
	// ExitFailed is the status of a program whose work failed.
	ExitFailed = 1
	// ExitUsage is the status of bad flags or arguments.
	ExitUsage = 2
)

// Usage makes fs's usage message head followed by the defaults of its
// flags (fs.PrintDefaults), both written to fs.Output().
func Usage(fs *flag.FlagSet, head string) {
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), head)
		fs.PrintDefaults()
	}
}

// Parse parses args with fs, which should be made with
// flag.ContinueOnError (fs then prints what is wrong and the usage). It
// reports whether the program goes on; when not, code is its exit status:
// [ExitOK] when -h asked for the usage, [ExitUsage] for bad flags.
func Parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return ExitOK, true
	case errors.Is(err, flag.ErrHelp):
		return ExitOK, false
	default:
		return ExitUsage, false
	}
}

// UsageError returns the exit status of a program whose flags did not
// parse into its options: [ExitOK] when err is flag.ErrHelp (the usage was
// asked for, and printed), else [ExitUsage] after writing "prog: err" to
// stderr.
func UsageError(stderr io.Writer, prog string, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	return ExitUsage
}

// Failed writes "prog: err" to stderr and returns [ExitFailed], the status
// of a program whose work failed.
func Failed(stderr io.Writer, prog string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	return ExitFailed
}

// DefaultEndpoint is the default of -endpoint when $VESPA_ENDPOINT is unset:
// a Vespa container on this machine.
const DefaultEndpoint = "http://localhost:8080"

// EndpointVar defines -endpoint on fs, stored in p: the URL of the Vespa
// container, by default $VESPA_ENDPOINT, else [DefaultEndpoint].
func EndpointVar(fs *flag.FlagSet, p *string) {
	def := os.Getenv("VESPA_ENDPOINT")
	if def == "" {
		def = DefaultEndpoint
	}
	fs.StringVar(p, "endpoint", def, "Vespa container `URL` ($VESPA_ENDPOINT when set)")
}

// Main runs a program's run function with a context that ends on the first
// of signals (os.Interrupt when none are given), then exits with the status
// run returns — [ExitInterrupted] (130, the shell's convention) when a
// signal ended the context and run did not succeed. A second signal, once
// the context has ended, kills the program as usual.
func Main(run func(ctx context.Context) int, signals ...os.Signal) {
	if len(signals) == 0 {
		signals = []os.Signal{os.Interrupt}
	}
	ctx, stop := signal.NotifyContext(context.Background(), signals...)
	// Until stop, signal.NotifyContext keeps taking the signals: stop as soon
	// as ctx ends, so that a second one finds the default behaviour.
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		stop()
	}()
	code := run(ctx)
	interrupted := ctx.Err() != nil
	stop()
	<-stopped
	os.Exit(exitCode(code, interrupted))
}

// ExitInterrupted is the status of a program that a signal stopped before it
// was done: 128 + SIGINT's number, as shells report it.
const ExitInterrupted = 130

// exitCode returns the status Main exits with: run's, or ExitInterrupted
// for a run that failed after a signal.
func exitCode(code int, interrupted bool) int {
	if interrupted && code != ExitOK {
		return ExitInterrupted
	}
	return code
}
