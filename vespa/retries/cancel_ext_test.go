package retries_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa/retries"
)

// allPolicies is every policy of the package, as the SDK reads them.
func allPolicies() []retries.Policy {
	return []retries.Policy{
		retries.QueryPolicy(), retries.DocV1Policy(), retries.ThrottlePolicy(), retries.FeedPolicy(),
		retries.SyncRequestPolicy(), retries.VisitPolicy(), retries.ControlPlanePolicy(), retries.UploadPolicy(),
		retries.URLValidationPolicy(), retries.EmbedderPolicy(),
	}
}

// TestCancellation_NeverRetriedNorShownToPredicate: the seed's rule for the
// retrying embedder, for every policy: an operation that returns
// context.Canceled (wrapped, as a delegate whose own call was cancelled
// does) while the caller's context is alive is not retried, not delayed, and
// the retry predicate never sees it, through Run and through a Stepper.
// Before, the predicate was consulted and the Embedder policy retried it
// (3 calls and two waits).
func TestCancellation_NeverRetriedNorShownToPredicate(t *testing.T) {
	cancelled := fmt.Errorf("provider: %w", context.Canceled)
	for _, p := range allPolicies() {
		t.Run(p.Name(), func(t *testing.T) {
			shown := 0
			p := p.WithRetryIf(func(retries.Outcome) bool { shown++; return true }).
				WithWait(retries.WaitFunc(time.Hour, func(int) time.Duration { return time.Hour }))
			calls := 0
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second) // bounds the test before the fix
			defer cancel()
			_, err := retries.Run(ctx, p, func(context.Context) (int, error) {
				calls++
				return 0, cancelled
			})
			if !errors.Is(err, context.Canceled) || calls != 1 || shown != 0 || time.Since(start) > time.Second {
				t.Fatalf("Run: err %v after %d calls, predicate shown %d outcomes; want context.Canceled after 1 call, 0 shown", err, calls, shown)
			}
			s := retries.NewStepper(p)
			if d, again := s.Next(context.Background(), retries.Outcome{Err: cancelled}); again || shown != 0 {
				t.Fatalf("Stepper.Next: retry after %v (%v), predicate shown %d outcomes; want stop, 0 shown", d, again, shown)
			}
		})
	}
}

// TestCancellation_DefaultPredicates: each policy as it is (its own
// predicate) makes one call for a delegate's context.Canceled.
func TestCancellation_DefaultPredicates(t *testing.T) {
	for _, p := range allPolicies() {
		calls := 0
		ctx, cancel := context.WithTimeout(context.Background(), time.Second) // bounds Feed's endless retries before the fix
		_, err := retries.Run(ctx, p.WithWait(retries.WaitNone()), func(context.Context) (int, error) {
			calls++
			return 0, context.Canceled
		})
		cancel()
		if calls != 1 || !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %d calls, %v; want 1 call and context.Canceled", p.Name(), calls, err)
		}
	}
}

// TestPolicies_AssigningTheVariablesRacesNothing: a program that assigns
// to the exported policy variables and to TransientConflictCodes while the
// SDK's policies run changes nothing the package reads (run with -race:
// before, the SDK read those variables).
func TestPolicies_AssigningTheVariablesRacesNothing(t *testing.T) {
	// Other tests read the variables: leave them as they were. (Read them
	// before the goroutine that writes them starts.)
	cp, codes := retries.ControlPlane, retries.TransientConflictCodes
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			retries.ControlPlane = retries.UploadPolicy()
			retries.TransientConflictCodes = nil
		}
	})
	defer func() {
		close(stop)
		wg.Wait()
		retries.ControlPlane, retries.TransientConflictCodes = cp, codes
	}()
	for range 100 {
		if p := retries.ControlPlanePolicy(); p.Name() != "ControlPlane" || p.MaxAttempts() != 3 {
			t.Fatalf("ControlPlanePolicy() = %v", p)
		}
		if !retries.IsTransientConflict(conflict{"CONFIG_NOT_CONVERGED"}) {
			t.Fatal("CONFIG_NOT_CONVERGED is no longer transient")
		}
	}
	if got := retries.TransientConflicts(); len(got) != 4 {
		t.Fatalf("TransientConflicts() = %v", got)
	}
}

type conflict struct{ code string }

func (c conflict) Error() string     { return "409 " + c.code }
func (conflict) StatusCode() int     { return 409 }
func (c conflict) ErrorCode() string { return c.code }
