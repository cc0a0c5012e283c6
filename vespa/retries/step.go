package retries

import (
	"context"
	"fmt"
	"time"

	retry "github.com/sethvargo/go-retry"
)

// Stepper is the step-wise form of a policy, or of policies nested inside one
// another, for a scheduler that parks an operation between attempts instead
// of sleeping in place: after each attempt it hands the outcome to
// [Stepper.Next] and learns "retry after d" or "stop". It decides exactly as
// [Run] does (nested Run calls, for nested policies), attempt by attempt:
// the same predicate, the same waits (Retry-After included, within the cap),
// the same attempt limits and the same observer calls.
//
// Each level's waits come from a github.com/sethvargo/go-retry Backoff of its
// own, built at that level's first retry and asked with Next(), as Run's are;
// an operation whose first attempt is final builds none.
//
// A Stepper serves one operation at a time and is not safe for concurrent
// use. Its zero value makes one attempt and retries nothing; [Stepper.Reset]
// starts it over for a new operation, so that one Stepper (and its memory)
// can serve many operations in turn.
type Stepper struct {
	policies []Policy // outermost first; shared, never modified
	levels   []stepLevel
	inline   [2]stepLevel // storage for the common one or two levels
}

// stepLevel is the state of one policy's current invocation.
type stepLevel struct {
	attempt int           // attempts made in this invocation, the last included
	backoff retry.Backoff // built at this invocation's first retry
	last    Outcome       // the outcome being decided, for the backoff's wait
}

// NewStepper returns a Stepper for policies nested outermost first: with
// (DocV1, Throttle) it decides as Run(ctx, DocV1, func(ctx) { return
// Run(ctx, Throttle, op) }) would. No policy at all makes one attempt.
func NewStepper(policies ...Policy) *Stepper {
	s := &Stepper{}
	s.Reset(policies...)
	return s
}

// Reset starts the Stepper over, for a new operation under policies
// (outermost first). The slice is kept, not copied: it must not change
// while the Stepper uses it.
func (s *Stepper) Reset(policies ...Policy) {
	s.policies = policies
	if len(policies) <= len(s.inline) {
		s.levels = s.inline[:len(policies)]
	} else {
		s.levels = make([]stepLevel, len(policies))
	}
	for i := range s.levels {
		s.levels[i] = stepLevel{attempt: 1}
	}
}

// Err returns the first error of the policies ([Policy.Err]): an invalid
// value given to an adapting method. A caller should not make even the first
// attempt then, as [Run] makes none.
func (s *Stepper) Err() error {
	for _, p := range s.policies {
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// Attempts returns the number of attempts made so far under the outermost
// policy's invocation, as counted by the last call to Next (1 before any).
// With nested policies the total number of attempts is the caller's to count.
func (s *Stepper) Attempts() int {
	if len(s.levels) == 0 {
		return 1
	}
	return s.levels[0].attempt
}

// Next decides on o, the outcome of the attempt just made (its Attempt field
// is set by Next), and returns the wait before the next attempt and true, or
// false when the operation ends with o. It never retries when ctx is done or
// when o's error is a cancellation (see [Run]); the caller's own
// deadline is what ends a policy without an attempt limit.
//
// As with nested Run calls, the innermost policy decides first; an outcome
// it does not retry, or retries no more (its attempts ran out), goes to the
// policy around it, and so on outwards. A policy that retries starts the
// policies inside it over (fresh invocations, fresh Backoffs).
func (s *Stepper) Next(ctx context.Context, o Outcome) (time.Duration, bool) {
	if ctx.Err() != nil || o.Err != nil && isCancellation(ctx, o.Err) {
		return 0, false
	}
	for i := len(s.levels) - 1; i >= 0; i-- {
		p, l := &s.policies[i], &s.levels[i]
		o.Attempt = l.attempt
		if p.err != nil || !p.ShouldRetry(o) {
			continue // final for this level: its Run returns o to the level around it
		}
		l.last = o
		if l.backoff == nil {
			l.backoff = s.newBackoff(i)
		}
		d, stop := l.backoff.Next()
		if stop {
			continue // attempts ran out: the last outcome goes outwards as it was
		}
		l.attempt++
		for j := i + 1; j < len(s.levels); j++ {
			s.levels[j] = stepLevel{attempt: 1}
		}
		return d, true
	}
	return 0, false
}

// newBackoff returns the go-retry Backoff of level i's invocation: the
// policy's wait for the attempt that failed, stretched to a Retry-After
// within the cap, reported to the observer, and stopped by the attempt limit
// (go-retry's WithMaxRetries counts the retries inside itself).
func (s *Stepper) newBackoff(i int) retry.Backoff {
	p, l := &s.policies[i], &s.levels[i]
	var b retry.Backoff = retry.BackoffFunc(func() (time.Duration, bool) {
		return p.retryWait(l.attempt, l.last), false
	})
	if p.maxAttempts > 0 {
		b = retry.WithMaxRetries(uint64(p.maxAttempts-1), b) //nolint:gosec // maxAttempts ≥ 1 here
	}
	return b
}

// String describes the Stepper's policies, outermost first.
func (s *Stepper) String() string {
	return fmt.Sprintf("retries.Stepper%v", s.policies)
}
