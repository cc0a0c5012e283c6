package wire

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// NoRedirects is the redirect policy of the data plane and of queries:
// Vespa never redirects /document/v1 or /search/, so a 3xx comes from
// something in front of it (an http→https hop, a login proxy), and following
// it would turn a write into a GET that "succeeds", or send the body and
// the credentials to another host. The 3xx answer is returned as it is and
// becomes an [Error] naming its status and Location.
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// SameOrigin is the redirect policy of the control plane: a redirect is
// followed only to the origin (scheme, host and port) of the first request,
// at most 10 times; any other 3xx is returned as it is and becomes an
// [Error]. So a body, a signature or a token never goes to another origin.
func SameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	if len(via) >= 10 || Origin(req.URL) != Origin(via[0].URL) {
		return http.ErrUseLastResponse
	}
	return nil
}

// Origin returns scheme://host:port of u, lower-cased, with the scheme's
// default port made explicit.
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// IsRedirect reports whether status is a 3xx.
func IsRedirect(status int) bool { return status >= 300 && status <= 399 }

// RedactURL returns raw without user information, query or fragment (a
// query becomes "?…"), for error messages; a URL that does not parse is
// not repeated at all.
func RedactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	q := u.RawQuery != "" || u.ForceQuery
	u.RawQuery, u.ForceQuery = "", false
	s := u.String()
	if q {
		s += "?…"
	}
	return s
}

// redirectError returns the error of a 3xx answer that was not followed.
func redirectError(op, id, path string, status int, h http.Header) error {
	return NewError(Failure{Op: op, ID: id, Path: path, Status: status, Location: RedactURL(h.Get("Location"))})
}
