package query

import (
	"errors"
	"net/http"
	"strings"

	"github.com/govespa/govespa/vespa/retries"
)

// Option configures a [Client] at [New]. Options are sealed: only this
// package's With* functions make them.
type Option interface {
	apply(*Client) error
}

// WithRetryPolicy replaces the policy every query runs under. The default is
// [retries.Query]: a query is retried only when no answer came back (a
// transport failure); any HTTP response is a result.
func WithRetryPolicy(p retries.Policy) Option {
	return optionFunc(func(c *Client) error {
		if err := p.Err(); err != nil {
			return err
		}
		c.policy = p
		return nil
	})
}

// WithHTTPClient sends queries through hc instead of the core client's
// shared [vespa.Client.HTTPClient], for instance one from
// [vespa.Client.NewHTTPClient] to give queries their own connection pool.
// hc must carry the same credentials; a nil hc is an error.
func WithHTTPClient(hc *http.Client) Option {
	return optionFunc(func(c *Client) error {
		if hc == nil {
			return errors.New("query: WithHTTPClient: nil client")
		}
		c.hc = hc
		return nil
	})
}

// WithPath sets the path of the search handler, below the endpoint's own
// path. The default is "/search/"; it must start with '/'.
func WithPath(path string) Option {
	return optionFunc(func(c *Client) error {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#") {
			return errors.New("query: WithPath: the path must start with '/' and have no query or fragment")
		}
		c.path = path
		return nil
	})
}

type optionFunc func(*Client) error

func (f optionFunc) apply(c *Client) error { return f(c) }
