package ctlplane

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ParseBaseURL parses an http(s) base URL and drops a trailing slash. Its
// errors never repeat user information (a password in the URL): they show
// the scheme and host, or, for a URL that does not parse, what follows its
// last '@'.
func ParseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the whole URL
		}
		return nil, fmt.Errorf("invalid URL %q: %w", withoutUserInfo(s), err)
	}
	// The errors below show the scheme and host only: the user information,
	// path, query and fragment are what might hold a secret.
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid URL %q: want http(s)://host[:port]", u.Scheme+"://"+u.Host)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("invalid URL %q…: want no user, query or fragment", u.Scheme+"://"+u.Host)
	}
	for len(u.Path) > 0 && u.Path[len(u.Path)-1] == '/' {
		u.Path = u.Path[:len(u.Path)-1]
	}
	u.RawPath = ""
	return u, nil
}

// withoutUserInfo returns s from its last '@' on ("…@host"), or s.
func withoutUserInfo(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		return "…" + s[i:]
	}
	return s
}
