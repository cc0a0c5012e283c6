package vespatest

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// params are the query parameters of a request; the last value of a repeated
// parameter wins, as in Vespa.
type params map[string]string

func parseParams(raw string) params {
	p := params{}
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		dk, err := url.QueryUnescape(k)
		if err != nil {
			dk = k
		}
		dv, err := url.QueryUnescape(v)
		if err != nil {
			dv = v
		}
		p[dk] = dv
	}
	return p
}

// paramError is a 400 raised while reading parameters.
type paramError struct{ msg string }

func (e *paramError) Error() string { return e.msg }

func badParam(format string, a ...any) error { return &paramError{fmt.Sprintf(format, a...)} }

// get returns a parameter; present but empty is an error.
func (p params) get(name string) (string, bool, error) {
	v, ok := p[name]
	if !ok {
		return "", false, nil
	}
	if v == "" {
		return "", false, badParam("Expected non-empty value for request property '%s'", name)
	}
	return v, true, nil
}

func (p params) require(name, pathID string) (string, error) {
	v, ok, err := p.get(name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", badParam("Must specify '%s' at '%s'", name, pathID)
	}
	return v, nil
}

func (p params) disallow(pathID string, names ...string) error {
	for _, n := range names {
		if _, ok := p[n]; ok {
			return badParam("May not specify '%s' at '%s'", n, pathID)
		}
	}
	return nil
}

// boolean reads a flag as Java's Boolean.parseBoolean does.
func (p params) boolean(name string) (bool, error) {
	v, ok, err := p.get(name)
	if err != nil || !ok {
		return false, err
	}
	return strings.EqualFold(v, "true"), nil
}

func (p params) integer(name string) (int64, bool, error) {
	v, ok, err := p.get(name)
	if err != nil || !ok {
		return 0, ok, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false, badParam("Failed parsing '%s': For input string: \"%s\"", v, v)
	}
	return n, true, nil
}

// timeout reads a time string: a number with an optional unit of ks, s, ms or
// µs; a bare number, or any other unit, means seconds.
func (p params) duration(name string, def time.Duration) (time.Duration, error) {
	v, ok, err := p.get(name)
	if err != nil || !ok {
		return def, err
	}
	d, err := parseVespaDuration(v)
	if err != nil {
		// Vespa's text for a value that is not a number (see integration/differential_test.go).
		return 0, badParam("Failed parsing '%s': Error parsing '%s': Invalid number '%s'", v, v, v)
	}
	return d, nil
}

func parseVespaDuration(v string) (time.Duration, error) {
	s := strings.TrimSpace(v)
	mult := float64(time.Second)
	end := len(s)
	for end > 0 && !(s[end-1] >= '0' && s[end-1] <= '9') && s[end-1] != '.' {
		end--
	}
	unit := s[end:]
	num := s[:end]
	// An exponent such as 1e1s ends in a digit; its 'e' belongs to the number.
	switch unit {
	case "ks":
		mult = float64(1000 * time.Second)
	case "ms":
		mult = float64(time.Millisecond)
	case "µs", "us":
		mult = float64(time.Microsecond)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a number")
	}
	return time.Duration(f * mult), nil
}

func millis(d time.Duration) string {
	return strconv.FormatInt(d.Milliseconds(), 10)
}
