package docapi

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/vtime"
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
	return number(p, name, func(v string) (int64, error) { return strconv.ParseInt(v, 10, 64) })
}

// unsigned reads an unsigned 64-bit integer, as Long.parseUnsignedLong.
func (p params) unsigned(name string) (uint64, bool, error) {
	return number(p, name, func(v string) (uint64, error) { return strconv.ParseUint(v, 10, 64) })
}

// number reads a parameter with parse, refusing what does not parse as
// Vespa's handler does.
func number[N int64 | uint64](p params, name string, parse func(string) (N, error)) (N, bool, error) {
	v, ok, err := p.get(name)
	if err != nil || !ok {
		return 0, ok, err
	}
	n, err := parse(v)
	if err != nil {
		return 0, false, badParam("Failed parsing '%s': For input string: \"%s\"", v, v)
	}
	return n, true, nil
}

// duration reads a time parameter as Vespa does ([vtime.Parse]): timeout=1e1s
// is 1 s, an unknown unit means seconds.
func (p params) duration(name string, def time.Duration) (time.Duration, error) {
	v, ok, err := p.get(name)
	if err != nil || !ok {
		return def, err
	}
	d, err := vtime.Parse(v)
	if err != nil {
		// Vespa's text for a value that is not a number: "Failed parsing" around
		// ParameterParser's own (see integration/differential_test.go).
		return 0, badParam("Failed parsing '%s': %s", v, err.Error())
	}
	return d, nil
}

func millis(d time.Duration) string {
	return strconv.FormatInt(d.Milliseconds(), 10)
}
