package fault

import "testing"

// TestMessageOf: a fault's own Message wins; without one, the statuses Vespa
// answers get the texts of the named faults, any other the injected status.
func TestMessageOf(t *testing.T) {
	for _, c := range []struct {
		f    Fault
		want string
	}{
		{Fault{Status: 503, Message: "mine"}, "mine"},
		{Fault{Status: 429}, "Rejecting execution due to overload: 256 requests already enqueued"},
		{Fault{Status: 503}, "Service Unavailable: no available handler threads"},
		{Fault{Status: 504}, "Timed out waiting for the content backend"},
		{Fault{Status: 507}, "[INSUFFICIENT_STORAGE @ localhost]: External feed is blocked due to resource exhaustion: disk on node 0 [vespatest] is above limit (0.900 > 0.800)"},
		{Fault{Status: 500}, "[FATAL_ERROR @ localhost]: injected fault"},
		{Fault{Status: 418}, "vespatest: injected I'm a teapot"},
	} {
		if got := MessageOf(c.f); got != c.want {
			t.Errorf("MessageOf(%+v) = %q, want %q", c.f, got, c.want)
		}
	}
}
