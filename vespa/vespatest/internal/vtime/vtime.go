// Package vtime reads time parameters (timeout, timeChunk) as Vespa does.
package vtime

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Parse reads a time string as Vespa's ParameterParser.asMilliSeconds does
// (container-search, com/yahoo/search/query/ParameterParser.java), which both
// /document/v1 and /search/ use: the longest prefix of digits and dots is the
// number, the rest (trimmed) the unit — ks, s, ms or µs; any other unit, or
// none, means seconds — and the product is truncated to whole milliseconds.
// So "1e1s" is 1 s (the number is "1", the unit "e1s"), "5m" is 5 s and
// "0.5ms" is 0. The error text is Vespa's: "Error parsing '…': …".
func Parse(v string) (time.Duration, error) {
	s := strings.TrimFunc(v, func(r rune) bool { return r <= ' ' }) // Java's String.trim
	end := 0
	for end < len(s) && (s[end] == '.' || s[end] >= '0' && s[end] <= '9') {
		end++
	}
	if end == 0 {
		return 0, fmt.Errorf("Error parsing '%s': Invalid number '%s'", s, s)
	}
	num := s[:end]
	if strings.Count(num, ".") > 1 {
		return 0, fmt.Errorf("Error parsing '%s': multiple points", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil { // "." alone
		return 0, fmt.Errorf("Error parsing '%s': For input string: \"%s\"", s, num)
	}
	mult := 1000.0 // milliseconds per unit
	switch strings.TrimFunc(s[end:], func(r rune) bool { return r <= ' ' }) {
	case "ks":
		mult = 1e6
	case "ms":
		mult = 1
	case "\u00b5s":
		mult = 1e-3
	}
	ms := f * mult
	if ms >= float64(1<<63-1)/float64(time.Millisecond) {
		return 1<<63 - 1, nil // Java's (long) saturates; a Duration saturates here
	}
	return time.Duration(int64(ms)) * time.Millisecond, nil
}
