package configserver

import (
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestRequestTimeout follows HttpHandler.getRequestTimeout (configserver
// http/HttpHandler.java): Duration.ofMillis((long)
// (Double.parseDouble(timeout) * 1000)), and the default when the parameter
// is absent or Double.parseDouble throws.
func TestRequestTimeout(t *testing.T) {
	const def = 7 * time.Second
	for q, want := range map[string]time.Duration{
		"":                   def,
		"?timeout=":          def, // parseDouble("") throws
		"?timeout=90":        90 * time.Second,
		"?timeout=2.5":       2500 * time.Millisecond,
		"?timeout=1e1":       10 * time.Second, // a decimal number: not the query API's "1e1s" = 1 s
		"?timeout=1e-1":      100 * time.Millisecond,
		"?timeout=0.0005":    0, // (long) truncates to whole milliseconds
		"?timeout=%201.5%20": 1500 * time.Millisecond,
		"?timeout=3d":        3 * time.Second, // Java's type suffixes
		"?timeout=.5f":       500 * time.Millisecond,
		"?timeout=0x1p2":     4 * time.Second, // hexadecimal with its p exponent
		"?timeout=0x10":      def,             // ... which is mandatory
		"?timeout=-1":        -time.Second,
		"?timeout=NaN":       0, // (long) NaN is 0
		"?timeout=Infinity":  math.MaxInt64,
		"?timeout=1e400":     math.MaxInt64, // Infinity too
		"?timeout=-Infinity": math.MinInt64,
		"?timeout=inf":       def, // Go's ParseFloat would take these
		"?timeout=1_0":       def,
		"?timeout=10s":       def,             // no units: the deploy CLI's "10s" silently means 360 s
		"?timeout=%2B-1":     def,             // one sign at most
		"?timeout=+2":        2 * time.Second, // "+" in a query is a space, trimmed
		"?timeout=1.":        time.Second,
		"?timeout=.":         def,
		"?timeout=1e":        def,
	} {
		r := httptest.NewRequest(http.MethodPost, "/application/v2/tenant/default/prepareandactivate"+q, nil)
		if got := requestTimeout(r, def); got != want {
			t.Errorf("requestTimeout(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestParamsTimeout follows PrepareParams.getTimeout: the multipart deploy
// parameters' "timeout" is Duration.ofSeconds(asLong()), and Slime's asLong
// of a string is 0.
func TestParamsTimeout(t *testing.T) {
	const def = 7 * time.Second
	for params, want := range map[string]time.Duration{
		`{}`:                 def,
		`{"timeout":null}`:   def,
		`{"timeout":30}`:     30 * time.Second,
		`{"timeout":2.9}`:    2 * time.Second, // truncated
		`{"timeout":"30"}`:   0,
		`{"timeout":1e300}`:  math.MaxInt64,
		`{"timeout":-1e300}`: math.MinInt64,
		`not json`:           def,
		`{"timeout":-3}`:     -3 * time.Second,
		`{"timeout":[1, 2]}`: 0,
	} {
		if got := paramsTimeout([]byte(params), def); got != want {
			t.Errorf("paramsTimeout(%s) = %v, want %v", params, got, want)
		}
	}
}

// TestJavaDuration follows java.time.Duration.toString, which the prepare
// timeout message prints.
func TestJavaDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                          "PT0S",
		200 * time.Millisecond:     "PT0.2S",
		time.Second:                "PT1S",
		90 * time.Second:           "PT1M30S",
		360 * time.Second:          "PT6M",
		2 * time.Hour:              "PT2H",
		3723500 * time.Millisecond: "PT1H2M3.5S",
		-time.Second:               "PT-1S",
		-500 * time.Millisecond:    "PT-0.5S",
		-1500 * time.Millisecond:   "PT-1.5S",
		-90 * time.Second:          "PT-1M-30S",
		1001 * time.Millisecond:    "PT1.001S",
	} {
		if got := javaDuration(d); got != want {
			t.Errorf("javaDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
