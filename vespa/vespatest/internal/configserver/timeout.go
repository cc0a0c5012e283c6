package configserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The config server's default timeouts (configserver http/v2): a prepare
// (POST prepareandactivate, PUT session/<id>/prepared) defaults to the
// ZooKeeper barrier timeout, zookeeper.barrierTimeout in configserver.def,
// 360 s; an activation of a prepared session (PUT session/<id>/active, PUT
// prepareandactivate/<id>) to two minutes (SessionActiveHandler's
// DEFAULT_ACTIVATE_TIMEOUT, ApplicationApiHandler.handlePUT).
const (
	defaultPrepareTimeout  = 360 * time.Second
	defaultActivateTimeout = 2 * time.Minute
)

// requestTimeout reads the timeout parameter as HttpHandler.getRequestTimeout
// does: seconds, read by Double.parseDouble, kept as whole milliseconds
// ((long) (seconds * 1000)); a parameter that does not parse, even an empty
// one, silently gives def.
func requestTimeout(r *http.Request, def time.Duration) time.Duration {
	v, ok := r.URL.Query()["timeout"]
	if !ok {
		return def
	}
	secs, ok := parseJavaDouble(v[0])
	if !ok {
		return def
	}
	return saturated(javaLong(secs*1000), time.Millisecond)
}

// paramsTimeout reads "timeout" of a multipart deploy's prepareParams JSON as
// PrepareParams.getTimeout does: Slime's asLong, so a whole number of
// seconds, a fraction truncated, and a string or any other non-number 0.
func paramsTimeout(params []byte, def time.Duration) time.Duration {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return def
	}
	raw, ok := p["timeout"]
	if !ok || string(raw) == "null" {
		return def
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0 // asLong of a string, bool, array or object
	}
	return saturated(javaLong(f), time.Second)
}

// saturated is the Duration of n units, saturated at Duration's range (about
// 292 years), which is as unbounded as Vespa's.
func saturated(n int64, unit time.Duration) time.Duration {
	switch {
	case n > math.MaxInt64/int64(unit):
		return math.MaxInt64
	case n < math.MinInt64/int64(unit):
		return math.MinInt64
	}
	return time.Duration(n) * unit
}

// javaLong converts as Java's (long) cast of a double does: NaN is 0, values
// beyond the range saturate, the rest truncate toward zero.
func javaLong(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// parseJavaDouble reads s as Java's Double.parseDouble does
// (FloatingDecimal.readJavaFormatString): surrounding characters up to ' '
// trimmed, an optional sign, then NaN, Infinity, a decimal number (digits
// with an optional point and exponent) or a hexadecimal one (0x, digits, an
// optional point, a mandatory p exponent), either number optionally ending in
// f, F, d or D. Go's ParseFloat accepts more (inf, underscores, hex without
// p) and less (the suffixes), so the grammar is checked here first.
func parseJavaDouble(s string) (float64, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false
	}
	neg := strings.HasPrefix(s, "-")
	switch body {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(body); n > 0 && strings.ContainsRune("fFdD", rune(body[n-1])) {
		body = body[:n-1]
	}
	if !javaNumber(body) {
		return 0, false
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil && !isRange(err) { // out of range: ±Inf or 0, as Java gives
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

func isRange(err error) bool { return errors.Is(err, strconv.ErrRange) }

// javaNumber reports whether s (no sign, no suffix) is a decimal or
// hexadecimal floating-point literal of Java's grammar.
func javaNumber(s string) bool {
	digits := func(s string, hex bool) (rest string, n int) {
		for n < len(s) && (s[n] >= '0' && s[n] <= '9' || hex && strings.ContainsRune("abcdefABCDEF", rune(s[n]))) {
			n++
		}
		return s[n:], n
	}
	hex := len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	if hex {
		s = s[2:]
	}
	rest, whole := digits(s, hex)
	frac := 0
	if strings.HasPrefix(rest, ".") {
		rest, frac = digits(rest[1:], hex)
	}
	if whole+frac == 0 {
		return false
	}
	exp := "eE"
	if hex {
		exp = "pP"
	}
	if rest == "" {
		return !hex // a hexadecimal number needs its p exponent
	}
	if !strings.ContainsRune(exp, rune(rest[0])) {
		return false
	}
	rest = strings.TrimPrefix(strings.TrimPrefix(rest[1:], "+"), "-")
	rest, n := digits(rest, false)
	return n > 0 && rest == ""
}

// javaDuration writes d as Java's Duration.toString does: PT8H6M12.345S,
// PT0S for zero, seconds with only the digits needed, PT-0.5S.
func javaDuration(d time.Duration) string {
	if d == 0 {
		return "PT0S"
	}
	secs := int64(d / time.Second)
	nanos := int64(d % time.Second)
	if nanos < 0 { // Java keeps 0 <= nanos < 1e9 and floors the seconds
		nanos += int64(time.Second)
		secs--
	}
	eff := secs
	if secs < 0 && nanos > 0 {
		eff++
	}
	var b strings.Builder
	b.WriteString("PT")
	if h := eff / 3600; h != 0 {
		fmt.Fprintf(&b, "%dH", h)
	}
	if m := eff % 3600 / 60; m != 0 {
		fmt.Fprintf(&b, "%dM", m)
	}
	s := eff % 60
	if s == 0 && nanos == 0 && b.Len() > 2 {
		return b.String()
	}
	if secs < 0 && nanos > 0 && s == 0 {
		b.WriteString("-0")
	} else {
		fmt.Fprintf(&b, "%d", s)
	}
	if nanos > 0 {
		frac := nanos + int64(time.Second)
		if secs < 0 {
			frac = 2*int64(time.Second) - nanos
		}
		b.WriteString("." + strings.TrimRight(strconv.FormatInt(frac, 10)[1:], "0"))
	}
	b.WriteString("S")
	return b.String()
}

// budget is Vespa's TimeoutBudget: a start, an end, and the steps measured
// by hasTimeLeft(step) for the message of a prepare that timed out.
type budget struct {
	start, end time.Time
	timeout    time.Duration
	steps      []step
}

type step struct {
	at    time.Time
	label string
}

func newBudget(timeout time.Duration) *budget {
	now := time.Now()
	end := now.Add(timeout) // Add saturates at Duration's range
	return &budget{start: now, end: end, timeout: timeout}
}

// hasTimeLeft records step and reports whether the budget has time left
// (now is before the end).
func (b *budget) hasTimeLeft(label string) bool {
	now := time.Now()
	b.steps = append(b.steps, step{now, label})
	return now.Before(b.end)
}

// timesUsed is TimeoutBudget.timesUsed: "[preprocess: 0 ms, build models:
// 1203 ms, total: 1203 ms]".
func (b *budget) timesUsed() string {
	var s strings.Builder
	s.WriteString("[")
	prev := b.start
	for _, m := range b.steps {
		if m.label != "" {
			s.WriteString(m.label + ": ")
		}
		fmt.Fprintf(&s, "%d ms, ", m.at.Sub(prev).Milliseconds())
		prev = m.at
	}
	fmt.Fprintf(&s, "total: %d ms]", time.Since(b.start).Milliseconds())
	return s.String()
}
