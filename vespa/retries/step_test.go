package retries

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"
)

// scripted returns the outcome of attempt i (0-based) of a script of
// statuses; 0 is a transport error.
func scripted(script []int, i int) (*response, error) {
	if i >= len(script) {
		return &response{status: 200}, nil
	}
	if script[i] == 0 {
		return nil, errors.New("connection reset")
	}
	return &response{status: script[i]}, nil
}

// stepAttempts runs script through a Stepper and returns the attempts made
// and the waits asked for.
func stepAttempts(ctx context.Context, script []int, ps ...Policy) (int, []time.Duration) {
	s := NewStepper(ps...)
	var waits []time.Duration
	for n := 0; ; n++ {
		r, err := scripted(script, n)
		o := Outcome{Result: r, Err: err}
		if r == nil {
			o.Result = nil
		}
		d, again := s.Next(ctx, o)
		if !again {
			return n + 1, waits
		}
		waits = append(waits, d)
	}
}

// runAttempts runs script through Run calls nested as ps are, and returns the
// attempts made and the waits observed.
func runAttempts(ctx context.Context, script []int, ps ...Policy) (int, []time.Duration) {
	n := 0
	var waits []time.Duration
	obs := func(_ Outcome, d time.Duration) { waits = append(waits, d) }
	op := func(context.Context) (*response, error) {
		r, err := scripted(script, n)
		n++
		return r, err
	}
	for i := len(ps) - 1; i >= 0; i-- {
		p, inner := ps[i].WithOnRetry(obs), op
		op = func(ctx context.Context) (*response, error) { return Run(ctx, p, inner) }
	}
	_, _ = op(ctx)
	return n, waits
}

func TestStepper_DecidesAsNestedRunCallsDo(t *testing.T) {
	fixed := func(p Policy) Policy {
		return p.WithWait(WaitFunc(0, func(n int) time.Duration { return time.Duration(n) * time.Millisecond }))
	}
	docV1, throttle, feed := fixed(DocV1), fixed(Throttle), fixed(Feed)
	cases := []struct {
		name     string
		policies []Policy
		script   []int
	}{
		{"a first success", []Policy{docV1, throttle}, nil},
		{"429s stay inside Throttle", []Policy{docV1, throttle}, []int{429, 429, 429, 429, 429}},
		{"a 503 restarts Throttle's count", []Policy{docV1, throttle}, []int{429, 429, 503, 429, 429}},
		{"three 503s exhaust DocV1", []Policy{docV1, throttle}, []int{503, 429, 503, 503, 200}},
		{"transport errors count in DocV1", []Policy{docV1, throttle}, []int{0, 0, 0, 0}},
		{"a final 400 ends at once", []Policy{docV1, throttle}, []int{429, 400}},
		{"Feed rides out a long 503 burst", []Policy{feed}, []int{503, 503, 503, 503, 503, 504, 0, 429}},
		{"Feed stops at a 412", []Policy{feed}, []int{503, 412}},
		{"three levels", []Policy{docV1.WithMaxAttempts(2), fixed(Query).WithMaxAttempts(3), throttle}, []int{0, 429, 0, 0, 503, 0}},
		{"no policy is one attempt", nil, []int{503}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gotN, gotW := stepAttempts(t.Context(), c.script, c.policies...)
			wantN, wantW := runAttempts(t.Context(), c.script, c.policies...)
			if gotN != wantN || fmt.Sprint(gotW) != fmt.Sprint(wantW) {
				t.Fatalf("Stepper: %d attempts, waits %v; Run: %d attempts, waits %v", gotN, gotW, wantN, wantW)
			}
		})
	}
}

func TestStepper_RandomScriptsMatchRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	statuses := []int{0, 200, 400, 412, 429, 429, 503, 503, 504}
	ps := []Policy{
		DocV1.WithWait(WaitNone()),
		Throttle.WithWait(WaitNone()).WithMaxAttempts(4),
	}
	for range 500 {
		script := make([]int, rng.IntN(12))
		for i := range script {
			script[i] = statuses[rng.IntN(len(statuses))]
		}
		gotN, _ := stepAttempts(t.Context(), script, ps...)
		wantN, _ := runAttempts(t.Context(), script, ps...)
		if gotN != wantN {
			t.Fatalf("script %v: Stepper makes %d attempts, Run %d", script, gotN, wantN)
		}
	}
}

func TestStepper_HonoursRetryAfterWithinTheCap(t *testing.T) {
	s := NewStepper(Feed)
	d, again := s.Next(t.Context(), Outcome{Result: &response{status: 503, retryAfter: time.Hour, hasRA: true}})
	if !again || d != 5*time.Second {
		t.Fatalf("got %v, %v; want the cap, 5s", d, again)
	}
}

func TestStepper_NeverRetriesACancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s := NewStepper(Feed)
	if _, again := s.Next(ctx, Outcome{Err: errors.New("reset")}); !again {
		t.Fatal("a transport error is not retried")
	}
	cancel()
	if _, again := s.Next(ctx, Outcome{Err: context.Canceled}); again {
		t.Fatal("a cancellation is retried")
	}
}

func TestStepper_FeedWaitsAreSmallFirstAndJittered(t *testing.T) {
	s := NewStepper(Feed)
	var waits []time.Duration
	for range 12 {
		d, again := s.Next(t.Context(), Outcome{Result: &response{status: 503}})
		if !again {
			t.Fatal("Feed stopped retrying a 503")
		}
		waits = append(waits, d)
	}
	if waits[0] < 10*time.Millisecond || waits[0] > 20*time.Millisecond {
		t.Fatalf("first wait %v, want within [10ms, 20ms]", waits[0])
	}
	if last := waits[len(waits)-1]; last < 2500*time.Millisecond || last > 5*time.Second {
		t.Fatalf("12th wait %v, want within [2.5s, 5s]", last)
	}
}

func TestStepper_ResetReusesTheStepper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ps := []Policy{DocV1, Throttle}
		s := NewStepper(ps...)
		for range 3 {
			s.Reset(ps...)
			n := 0
			for {
				n++
				if _, again := s.Next(t.Context(), Outcome{Err: errors.New("reset")}); !again {
					break
				}
			}
			if n != 3 {
				t.Fatalf("%d attempts after Reset, want DocV1's 3", n)
			}
		}
	})
}

func TestStepper_CapsRetryAfterAsRunDoes(t *testing.T) {
	// A policy without a cap waits at most MaxRetryAfter for a hint.
	s := NewStepper(New("nocap", RetryIfStatus(503), WaitNone(), 0))
	d, again := s.Next(t.Context(), Outcome{Result: &response{status: 503, retryAfter: 24 * time.Hour, hasRA: true}})
	if !again || d != MaxRetryAfter {
		t.Fatalf("got %v, %v; want MaxRetryAfter", d, again)
	}
}

func TestFeed_RetriesTransientOutcomesOnly(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Outcome
		want bool
	}{
		{"a 429 result", Outcome{Result: &response{status: 429}}, true},
		{"a 503 result", Outcome{Result: &response{status: 503}}, true},
		{"a 504 result", Outcome{Result: &response{status: 504}}, true},
		{"a 503 error", Outcome{Err: &statusError{status: 503}}, true},
		{"a transport error", Outcome{Err: errors.New("connection reset")}, true},
		{"a 200", Outcome{Result: &response{status: 200}}, false},
		{"a 412", Outcome{Result: &response{status: 412}}, false},
		{"a 500", Outcome{Result: &response{status: 500}}, false},
		{"a redirect error", Outcome{Err: &statusError{status: 302}}, false},
		{"a malformed 200 error", Outcome{Err: &statusError{status: 200}}, false},
	} {
		if got := Feed.ShouldRetry(c.o); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
