package ctlplane

import (
	"fmt"
	"net/url"
)

// ParseBaseURL parses an http(s) base URL and drops a trailing slash.
func ParseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid URL %q: want http(s)://host[:port]", s)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("invalid URL %q: want no user, query or fragment", u.Redacted())
	}
	for len(u.Path) > 0 && u.Path[len(u.Path)-1] == '/' {
		u.Path = u.Path[:len(u.Path)-1]
	}
	u.RawPath = ""
	return u, nil
}
