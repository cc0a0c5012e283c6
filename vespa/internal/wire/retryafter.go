package wire

import (
	"net/http"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

// MaxRetryAfter is the longest Retry-After the SDK obeys: a larger value
// (a day, say, or a number too large for a Duration) counts as this much.
// A retry policy caps it further at its own longest wait.
const MaxRetryAfter = retries.MaxRetryAfter

// ParseRetryAfter reads a Retry-After value: delay seconds (digits only) or
// an HTTP date, relative to now. A negative or malformed value is no hint
// (false); a date in the past is 0; anything above [MaxRetryAfter] is
// MaxRetryAfter, so that no value overflows.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		var secs int64
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			if secs <= int64(MaxRetryAfter/time.Second) { // stop counting once past the cap: no overflow
				secs = secs*10 + int64(c-'0')
			}
		}
		return min(time.Duration(secs)*time.Second, MaxRetryAfter), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	switch {
	case d < 0:
		d = 0
	case d > MaxRetryAfter:
		d = MaxRetryAfter
	}
	return d, true
}

// RetryAfterOf returns the Retry-After hint of h, if any.
func RetryAfterOf(h http.Header) (time.Duration, bool) {
	vs := h["Retry-After"]
	if len(vs) == 0 {
		return 0, false
	}
	return ParseRetryAfter(vs[0], time.Now())
}
