package models

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/wire"
	"github.com/govespa/govespa/vespa/retries"
)

// URLCheckTimeout bounds each HTTP request [ModelConfig.Validate] makes.
const URLCheckTimeout = 10 * time.Second

// ErrURLUnreachable is matched (errors.Is) by every [*URLError].
var ErrURLUnreachable = errors.New("models: model URL check failed")

// URLError reports a model or tokenizer URL that did not answer with a 2xx
// status. Its text names the URL (with any password and query string
// redacted) and the status; it never contains a token.
type URLError struct {
	// Field is the configuration field the URL came from, such as "ModelURL".
	Field string
	// URL is the URL that was checked, redacted.
	URL string
	// Status is the final HTTP status, or 0 when no response came back.
	Status int
	// Method is the method of the request that got the final answer.
	Method string
	// Err is the transport error when Status is 0.
	Err error
}

// Error returns "models: <field> <url>: <method> status <n>", or the
// transport error.
func (e *URLError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("models: %s %s: %v", e.Field, e.URL, e.Err)
	}
	msg := fmt.Sprintf("models: %s %s: %s returned status %d %s", e.Field, e.URL, e.Method, e.Status, http.StatusText(e.Status))
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		msg += " (a private or gated Hugging Face model needs a token: WithHuggingFaceToken or HF_TOKEN)"
	}
	return msg
}

// Unwrap returns the transport error.
func (e *URLError) Unwrap() error { return e.Err }

// Is makes every URLError match [ErrURLUnreachable].
func (e *URLError) Is(target error) bool { return target == ErrURLUnreachable }

// StatusCode returns the HTTP status (0 for a transport error), so that
// retries.URLValidation can tell a final 4xx from a blip.
func (e *URLError) StatusCode() int { return e.Status }

// ValidateOption configures [ModelConfig.Validate].
type ValidateOption interface{ applyValidate(*validateConfig) }

// WithHuggingFaceToken sets the Hugging Face access token sent, as a bearer
// token, to Hugging Face hosts only (see [WithHuggingFaceHosts]). It overrides
// the HF_TOKEN environment variable; an empty token sends none.
func WithHuggingFaceToken(token string) ValidateOption {
	return validateOptionFunc(func(c *validateConfig) { c.token, c.tokenSet = token, true })
}

// WithHuggingFaceHosts replaces the predicate that decides which hosts are
// Hugging Face's and may receive the token. The default is
// [IsHuggingFaceHost]. It is called with the host name only (no port). A nil
// f restores the default.
func WithHuggingFaceHosts(f func(host string) bool) ValidateOption {
	return validateOptionFunc(func(c *validateConfig) { c.isHF = f })
}

// WithValidationHTTPClient sets the HTTP client whose transport and redirect
// policy the checks use; nil (the default) means http.DefaultTransport. Its
// redirect policy is kept, after the token has been removed from requests to
// other hosts; its Timeout is not (each request has [URLCheckTimeout]).
func WithValidationHTTPClient(hc *http.Client) ValidateOption {
	return validateOptionFunc(func(c *validateConfig) { c.hc = hc })
}

// WithValidationPolicy replaces retries.URLValidation, the retry policy of
// each URL's check.
func WithValidationPolicy(p retries.Policy) ValidateOption {
	return validateOptionFunc(func(c *validateConfig) { c.policy, c.policySet = p, true })
}

// WithValidationLogger logs each request at debug level: method, URL and
// status, never a token. Nil (the default) logs nothing.
func WithValidationLogger(l *slog.Logger) ValidateOption {
	return validateOptionFunc(func(c *validateConfig) { c.logger = l })
}

// IsHuggingFaceHost reports whether host (without a port) is huggingface.co,
// hf.co or one of their subdomains, such as cdn-lfs.huggingface.co.
func IsHuggingFaceHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, d := range []string{"huggingface.co", "hf.co"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

type validateOptionFunc func(*validateConfig)

func (f validateOptionFunc) applyValidate(c *validateConfig) { f(c) }

type validateConfig struct {
	token     string
	tokenSet  bool
	isHF      func(host string) bool
	hc        *http.Client
	policy    retries.Policy
	policySet bool
	logger    *slog.Logger
}

// Validate checks the configuration ([ModelConfig.Check]) and then that every
// URL in it (ModelURL, TokenizerURL) answers with a 2xx status, so that a
// deployment does not fail on them ten minutes later. Paths and model-hub ids
// are not checked.
//
// Each URL gets a HEAD request, followed by a GET (whose body is not read)
// when the server refuses HEAD with 405 or 501; redirects are followed. Each
// request is bounded by [URLCheckTimeout]. Each URL's check runs under
// retries.URLValidation: a transport error or a 5xx, 408 or 429 is retried,
// a 404 or any other final 4xx is not.
//
// A Hugging Face token ([WithHuggingFaceToken], else the HF_TOKEN environment
// variable) is sent only to Hugging Face hosts, also across redirects, and
// never appears in errors or logs. Failures are [*URLError] values, one per
// failed URL, joined; a cancelled ctx returns its error at once.
func (c ModelConfig) Validate(ctx context.Context, opts ...ValidateOption) error {
	cfg := validateConfig{}
	for _, o := range opts {
		if o != nil {
			o.applyValidate(&cfg)
		}
	}
	if !cfg.tokenSet {
		cfg.token = os.Getenv("HF_TOKEN")
	}
	if cfg.isHF == nil {
		cfg.isHF = IsHuggingFaceHost
	}
	if !cfg.policySet {
		cfg.policy = retries.URLValidationPolicy()
	}
	if err := c.Check(); err != nil {
		return err
	}
	x := cfg.exchange()
	var errs []error
	for _, u := range []struct{ field, url string }{{"ModelURL", c.ModelURL}, {"TokenizerURL", c.TokenizerURL}} {
		if u.url == "" {
			continue
		}
		err := cfg.policy.Do(ctx, func(ctx context.Context) error {
			return cfg.checkURL(ctx, x, u.field, u.url)
		})
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// exchange returns the one HTTP exchange of the SDK (vespa/internal/wire)
// on the configured client's transport, with a redirect policy that puts the
// token on requests to Hugging Face hosts and removes it from all others,
// then applies the configured client's own policy (or stops after 10 hops).
func (cfg *validateConfig) exchange() *wire.Exchange {
	var rt http.RoundTripper
	var inner func(*http.Request, []*http.Request) error
	if cfg.hc != nil {
		rt, inner = cfg.hc.Transport, cfg.hc.CheckRedirect
	}
	return wire.New(wire.Config{Transport: rt, UserAgent: vespa.UserAgent, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		cfg.authorize(req.URL, req.Header)
		if inner != nil {
			return inner(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}})
}

// authorize sets or removes the token in h according to u's host.
func (cfg *validateConfig) authorize(u *url.URL, h http.Header) {
	if cfg.token != "" && u != nil && cfg.isHF(u.Hostname()) {
		h.Set("Authorization", "Bearer "+cfg.token)
	} else {
		h.Del("Authorization")
	}
}

// checkURL makes one attempt at checking rawURL: HEAD, then GET when HEAD is
// refused.
func (cfg *validateConfig) checkURL(ctx context.Context, x *wire.Exchange, field, rawURL string) error {
	status, err := cfg.request(ctx, x, http.MethodHead, rawURL)
	method := http.MethodHead
	if err == nil && (status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented) {
		method = http.MethodGet
		status, err = cfg.request(ctx, x, http.MethodGet, rawURL)
	}
	switch {
	case err != nil:
		return &URLError{Field: field, URL: redactURL(rawURL), Method: method, Err: err}
	case status < 200 || status > 299:
		return &URLError{Field: field, URL: redactURL(rawURL), Method: method, Status: status}
	}
	return nil
}

// request sends one request, bounded by URLCheckTimeout, through the
// exchange and returns the final status (a redirect the policy did not
// follow included); the body is closed unread. A transport failure is its
// cause, without the *url.Error that repeats the unredacted URL.
func (cfg *validateConfig) request(ctx context.Context, x *wire.Exchange, method, rawURL string) (int, error) {
	h := http.Header{}
	u, _ := url.Parse(rawURL) // Check has parsed it
	cfg.authorize(u, h)
	resp, err := x.Do(ctx, &wire.Request{Op: "model URL check", Path: redactURL(rawURL), Method: method, URL: rawURL,
		Header: h, Timeout: URLCheckTimeout, SkipBody: true})
	if err != nil {
		var we *vespa.Error
		if errors.As(err, &we) && we.Status != 0 {
			cfg.log(ctx, method, rawURL, we.Status, nil)
			return we.Status, nil
		}
		if we != nil && we.Err != nil {
			err = we.Err
		}
		err = stripURL(err)
		cfg.log(ctx, method, rawURL, 0, err)
		return 0, err
	}
	cfg.log(ctx, method, rawURL, resp.Status, nil)
	return resp.Status, nil
}

func (cfg *validateConfig) log(ctx context.Context, method, rawURL string, status int, err error) {
	if cfg.logger == nil {
		return
	}
	attrs := []any{"method", method, "url", redactURL(rawURL), "status", status}
	if err != nil {
		attrs = append(attrs, "error", stripURL(err).Error())
	}
	cfg.logger.DebugContext(ctx, "models: checked URL", attrs...)
}

// stripURL drops the *url.Error wrapper, whose text repeats the unredacted
// URL, keeping its cause (a *net.OpError, a context error, ...).
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}
