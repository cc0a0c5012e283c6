package main

import (
	"fmt"
	"io"
	"time"
)

// report prints one line per step and remembers whether any step failed.
type report struct {
	w      io.Writer
	failed []string
}

// ok prints a step that went as expected.
func (r *report) ok(step, format string, args ...any) {
	fmt.Fprintf(r.w, "%-9s %s\n", step, fmt.Sprintf(format, args...))
}

// fail prints a step that did not, and marks the run failed.
func (r *report) fail(step, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(r.w, "%-9s FAILED: %s\n", step, msg)
	r.failed = append(r.failed, step+": "+msg)
}

// check prints a step as ok or failed depending on good.
func (r *report) check(good bool, step, format string, args ...any) {
	if good {
		r.ok(step, format, args...)
	} else {
		r.fail(step, format, args...)
	}
}

// perSecond returns n/d as a rate, 0 for an empty duration.
func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// ms rounds d for printing.
func ms(d time.Duration) time.Duration {
	if d < 10*time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
