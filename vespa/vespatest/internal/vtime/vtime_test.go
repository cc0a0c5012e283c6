package vtime

import (
	"testing"
	"time"
)

// TestParse follows ParameterParser.asMilliSeconds in Vespa's container-search
// (findUnitOffset, parseUnit): the fixture update-create-true-200 of
// vespa-fixtures/docv1.json sends timeout=1e1s, which Vespa reads as 1 s.
func TestParse(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"1e1s":     time.Second, // the number ends at 'e': "1", unit "e1s" → seconds
		"10":       10 * time.Second,
		"2.5s":     2500 * time.Millisecond,
		"1ks":      1000 * time.Second,
		"123ms":    123 * time.Millisecond,
		"0.5ms":    0, // truncated to whole milliseconds
		"1500µs":   time.Millisecond,
		"1500us":   1500 * time.Second, // "us" is not a unit Vespa knows: seconds
		"5m":       5 * time.Second,    // nor is "m"
		" 7 ms ":   7 * time.Millisecond,
		"3.":       3 * time.Second,
		".25s":     250 * time.Millisecond,
		"1e400000": time.Second,
	} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"abc":   "Error parsing 'abc': Invalid number 'abc'",
		"-1s":   "Error parsing '-1s': Invalid number '-1s'",
		"":      "Error parsing '': Invalid number ''",
		"1.2.3": "Error parsing '1.2.3': multiple points",
		".s":    `Error parsing '.s': For input string: "."`,
	} {
		if _, err := Parse(in); err == nil || err.Error() != want {
			t.Errorf("Parse(%q) error = %v, want %q", in, err, want)
		}
	}
	if got, _ := Parse("99999999999999999999ks"); got != 1<<63-1 {
		t.Errorf("huge timeout = %v, want the largest Duration", got)
	}
}
