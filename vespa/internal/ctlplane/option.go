package ctlplane

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

// Settings are the options that packages deploy and cloud have in common.
// Each package keeps its own sealed Option type, With* functions and docs;
// the functions set these fields through the Set methods, so that a rule (a
// nil logger is an error, a poll interval must be positive) is written once.
type Settings struct {
	// HTTPClient sends the requests; nil until [Settings.Complete].
	HTTPClient *http.Client
	// Policy is the retry policy of reads and status polls.
	Policy retries.Policy
	// Logger logs retries and waits.
	Logger *slog.Logger
	// Poll is how often waits poll.
	Poll time.Duration
	// UserAgent is the User-Agent header.
	UserAgent string
}

// NewSettings returns the defaults: retries.ControlPlane, a logger that
// discards, the given poll interval and User-Agent, and no HTTP client yet
// (see [Settings.Complete]).
func NewSettings(poll time.Duration, userAgent string) Settings {
	return Settings{
		Policy:    retries.ControlPlanePolicy(),
		Logger:    slog.New(slog.DiscardHandler),
		Poll:      poll,
		UserAgent: userAgent,
	}
}

// SetNonNil sets *dst to v; a nil v is an error "nil <what>".
func SetNonNil[T any](dst **T, v *T, what string) error {
	if v == nil {
		return errors.New("nil " + what)
	}
	*dst = v
	return nil
}

// SetHTTPClient sets the HTTP client; nil is an error.
func (s *Settings) SetHTTPClient(hc *http.Client) error {
	return SetNonNil(&s.HTTPClient, hc, "client")
}

// SetRetryPolicy sets the retry policy; an invalid one is an error.
func (s *Settings) SetRetryPolicy(p retries.Policy) error {
	if err := p.Err(); err != nil {
		return err
	}
	s.Policy = p
	return nil
}

// SetLogger sets the logger; nil is an error.
func (s *Settings) SetLogger(l *slog.Logger) error { return SetNonNil(&s.Logger, l, "logger") }

// SetPollInterval sets the poll interval; one that is not positive is an
// error.
func (s *Settings) SetPollInterval(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%v is not positive", d)
	}
	s.Poll = d
	return nil
}

// SetUserAgent sets the User-Agent header; any value is accepted.
func (s *Settings) SetUserAgent(ua string) error {
	s.UserAgent = ua
	return nil
}

// Complete gives the settings an HTTP client of their own, over a clone of
// http.DefaultTransport, when none was set.
func (s *Settings) Complete() {
	if s.HTTPClient == nil {
		s.HTTPClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
}

// Transport returns a transport for package pkg over hc with these settings'
// policy, User-Agent and logger.
func (s *Settings) Transport(pkg string, hc *http.Client) *Transport {
	return NewTransport(pkg, hc, s.Policy, s.UserAgent, s.Logger)
}

// Option is a named setting of a package's config C, behind that package's
// sealed Option type: it prints as its name ("cloud.WithAPIKey") and never
// as the values it captured, and its errors start with its name.
type Option[C any] struct {
	// Pkg is the package, such as "cloud".
	Pkg string
	// Name is the function that made it, such as "WithAPIKey".
	Name string
	// Set applies it.
	Set func(*C) error
}

// Apply runs o.Set on c; an error names the option ("WithLogger: nil
// logger").
func (o Option[C]) Apply(c *C) error {
	if err := o.Set(c); err != nil {
		return fmt.Errorf("%s: %w", o.Name, err)
	}
	return nil
}

// String returns the option's name, such as "cloud.WithAPIKey": never the
// key, token or other value it was given.
func (o Option[C]) String() string { return o.Pkg + "." + o.Name }

// Format prints [Option.String] for every verb.
func (o Option[C]) Format(f fmt.State, verb rune) { FormatSafe(f, verb, o.String()) }

// ApplyOptions runs apply on each option in order; a nil option is an error
// naming its index, and every error starts with pkg ("cloud: ...").
func ApplyOptions[O any](pkg string, opts []O, apply func(O) error) error {
	for i, o := range opts {
		if any(o) == nil {
			return fmt.Errorf("%s: option %d is nil", pkg, i)
		}
		if err := apply(o); err != nil {
			return fmt.Errorf("%s: %w", pkg, err)
		}
	}
	return nil
}
