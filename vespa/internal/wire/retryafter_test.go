package wire

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	cases := []struct {
		name string
		in   string
		want time.Duration
		ok   bool
	}{
		{"seconds", "5", 5 * time.Second, true},
		{"spaces around seconds", "  7 ", 7 * time.Second, true},
		{"zero", "0", 0, true},
		{"the cap itself", "60", MaxRetryAfter, true},
		{"a day is cut to the cap", "86400", MaxRetryAfter, true},
		{"a number too large for any integer is cut, not overflowed", "99999999999999999999999999999", MaxRetryAfter, true},
		{"negative is no hint", "-5", 0, false},
		{"a fraction is no hint", "1.5", 0, false},
		{"text is no hint", "soon", 0, false},
		{"empty is no hint", "", 0, false},
		{"an HTTP date 10 s ahead", date(10 * time.Second), 10 * time.Second, true},
		{"an HTTP date in the past is 0", date(-time.Hour), 0, true},
		{"an HTTP date a year ahead is cut to the cap", date(365 * 24 * time.Hour), MaxRetryAfter, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseRetryAfter(c.in, now)
			if got != c.want || ok != c.ok {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
			}
		})
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"5", "-1", "99999999999999999999", "Wed, 21 Oct 2015 07:28:00 GMT", "", " 3"} {
		f.Add(s)
	}
	now := time.Now()
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseRetryAfter(s, now)
		if d < 0 || d > MaxRetryAfter || (!ok && d != 0) {
			t.Fatalf("ParseRetryAfter(%q) = %v, %v: out of [0, %v]", s, d, ok, MaxRetryAfter)
		}
	})
}
