package models_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/vespa/models"
	"github.com/govespa/govespa/vespa/retries"
)

var errFlaky = errors.New("provider: 503 overloaded")

// flaky is a delegate that fails its first `failures` calls with err and
// records when each call came, relative to the start of the bubble.
type flaky struct {
	start    time.Time
	failures int
	err      error
	calls    []time.Duration
	texts    [][]string
}

func (f *flaky) call(texts []string) error {
	f.calls = append(f.calls, time.Since(f.start))
	f.texts = append(f.texts, texts)
	if len(f.calls) <= f.failures {
		return f.err
	}
	return nil
}

func (f *flaky) Embed(_ context.Context, text string) ([]float32, error) {
	if err := f.call([]string{text}); err != nil {
		return nil, err
	}
	return []float32{float32(len(text))}, nil
}

func (f *flaky) EmbedAll(_ context.Context, texts []string) ([][]float32, error) {
	if err := f.call(texts); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t))}
	}
	return out, nil
}

// waits returns the gaps between consecutive calls.
func (f *flaky) waits() []time.Duration {
	var w []time.Duration
	for i := 1; i < len(f.calls); i++ {
		w = append(w, f.calls[i]-f.calls[i-1])
	}
	return w
}

func mustRetrying(t *testing.T, d models.Embedder, p retries.Policy) models.Embedder {
	t.Helper()
	e, err := models.Retrying(d, p)
	if err != nil {
		t.Fatalf("Retrying: %v", err)
	}
	return e
}

func TestRetrying_AttemptCounts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		policy    retries.Policy
		failures  int
		wantCalls int
		wantErr   bool
	}{
		{"retries.Embedder: 3 attempts, then the last error", retries.Embedder, 100, 3, true},
		{"success on the second attempt", retries.Embedder, 1, 2, false},
		{"success at once", retries.Embedder, 0, 1, false},
		{"five attempts", retries.Embedder.WithMaxAttempts(5), 100, 5, true},
		{"one attempt disables retrying", retries.Embedder.WithMaxAttempts(1), 100, 1, true},
		{"the zero policy makes one call", retries.Policy{}, 100, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := &flaky{start: time.Now(), failures: tc.failures, err: errFlaky}
				e := mustRetrying(t, d, tc.policy)
				v, err := e.Embed(t.Context(), "hello")
				if len(d.calls) != tc.wantCalls {
					t.Errorf("%d calls, want %d", len(d.calls), tc.wantCalls)
				}
				if tc.wantErr {
					if err != errFlaky { // the last error, as the delegate returned it
						t.Errorf("Embed error = %v, want errFlaky itself", err)
					}
					return
				}
				if err != nil || !slices.Equal(v, []float32{5}) {
					t.Errorf("Embed = %v, %v", v, err)
				}
			})
		})
	}
}

func TestRetrying_EmbedAllRetriesTheBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &flaky{start: time.Now(), failures: 2, err: errFlaky}
		e := mustRetrying(t, d, retries.Embedder)
		vs, err := e.EmbedAll(t.Context(), []string{"a", "bb"})
		if err != nil || len(vs) != 2 || vs[1][0] != 2 {
			t.Fatalf("EmbedAll = %v, %v", vs, err)
		}
		if len(d.texts) != 3 {
			t.Fatalf("%d calls, want 3", len(d.texts))
		}
		for _, texts := range d.texts {
			if !slices.Equal(texts, []string{"a", "bb"}) {
				t.Errorf("call with %v, want the whole batch", texts)
			}
		}
	})
}

// TestRetrying_EmbedderWaits: the waits are retries.Embedder's,
// WaitJittered(200 ms, 5 s, 2.0, 0.5): [100, 200] ms, then [200, 400] ms.
func TestRetrying_EmbedderWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &flaky{start: time.Now(), failures: 100, err: errFlaky}
		e := mustRetrying(t, d, retries.Embedder)
		_, _ = e.Embed(t.Context(), "x")
		w := d.waits()
		if len(w) != 2 || w[0] < 100*time.Millisecond || w[0] > 200*time.Millisecond ||
			w[1] < 200*time.Millisecond || w[1] > 400*time.Millisecond {
			t.Errorf("waits = %v, want in [100ms,200ms] then [200ms,400ms]", w)
		}
	})
}

func TestRetrying_RetryIfFalseReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &flaky{start: time.Now(), failures: 100, err: errFlaky}
		var asked []error
		e := mustRetrying(t, d, retries.Embedder.WithRetryIf(func(o retries.Outcome) bool {
			asked = append(asked, o.Err)
			return false
		}))
		start := time.Now()
		_, err := e.Embed(t.Context(), "x")
		if err != errFlaky || len(d.calls) != 1 || time.Since(start) != 0 {
			t.Errorf("Embed = %v after %d calls and %v, want errFlaky after 1 call at once", err, len(d.calls), time.Since(start))
		}
		if len(asked) != 1 || asked[0] != errFlaky {
			t.Errorf("RetryIf asked about %v, want [errFlaky]", asked)
		}
	})
}

func TestRetrying_CancellationMidWaitReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &flaky{start: time.Now(), failures: 100, err: errFlaky}
		e := mustRetrying(t, d, retries.Embedder.WithWait(retries.WaitFunc(0, func(int) time.Duration { return time.Second })))
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(300 * time.Millisecond) // in the middle of the 1 s wait
			cancel()
		}()
		start := time.Now()
		_, err := e.Embed(ctx, "x")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Embed error = %v, want context.Canceled", err)
		}
		if got := time.Since(start); got != 300*time.Millisecond {
			t.Errorf("returned after %v, want 300ms (at the cancellation)", got)
		}
		if len(d.calls) != 1 {
			t.Errorf("%d calls, want 1", len(d.calls))
		}
	})
}

func TestRetrying_DeadlineMidWaitReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &flaky{start: time.Now(), failures: 100, err: errFlaky}
		e := mustRetrying(t, d, retries.Embedder.WithWait(retries.WaitFunc(0, func(int) time.Duration { return time.Second })))
		ctx, cancel := context.WithTimeout(t.Context(), 250*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := e.EmbedAll(ctx, []string{"x"})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 250*time.Millisecond {
			t.Errorf("EmbedAll = %v after %v, want DeadlineExceeded after 250ms", err, time.Since(start))
		}
	})
}

func TestRetrying_CallerCancellationIsNeverRetriedNorAsked(t *testing.T) {
	for _, cause := range []error{context.Canceled, context.DeadlineExceeded} {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			calls, asked := 0, 0
			d := models.EmbedFunc(func(context.Context, string) ([]float32, error) {
				calls++
				cancel() // the caller's context ends during the call
				return nil, cause
			})
			e := mustRetrying(t, d, retries.Embedder.WithRetryIf(func(retries.Outcome) bool { asked++; return true }))
			start := time.Now()
			_, err := e.Embed(ctx, "x")
			if !errors.Is(err, cause) || calls != 1 || asked != 0 || time.Since(start) != 0 {
				t.Errorf("%v: Embed = %v, %d calls, %d questions, %v; want the error, 1, 0, at once",
					cause, err, calls, asked, time.Since(start))
			}
		})
	}
}

func TestRetrying_ErrorAfterCancellationEndsTheCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		calls := 0
		d := models.EmbedFunc(func(context.Context, string) ([]float32, error) {
			calls++
			cancel()
			return nil, errFlaky // a transport error caused by the cancellation
		})
		e := mustRetrying(t, d, retries.Embedder)
		start := time.Now()
		_, err := e.Embed(ctx, "x")
		if !errors.Is(err, context.Canceled) || calls != 1 || time.Since(start) != 0 {
			t.Errorf("Embed = %v after %d calls and %v, want Canceled after 1 call at once", err, calls, time.Since(start))
		}
	})
}

func TestRetrying_Rejects(t *testing.T) {
	d := models.EmbedFunc(func(context.Context, string) ([]float32, error) { return nil, nil })
	if e, err := models.Retrying(d, retries.Embedder.WithMaxAttempts(0)); err == nil || e != nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("Retrying(WithMaxAttempts(0)) = %v, %v; want the policy's error", e, err)
	}
	if _, err := models.Retrying(nil, retries.Embedder); err == nil {
		t.Error("Retrying(nil) succeeded")
	}
}

func TestEmbedFunc_EmbedAll(t *testing.T) {
	var seen []string
	f := models.EmbedFunc(func(_ context.Context, s string) ([]float32, error) {
		seen = append(seen, s)
		if s == "bad" {
			return nil, errFlaky
		}
		return []float32{float32(len(s))}, nil
	})
	vs, err := f.EmbedAll(t.Context(), []string{"a", "bb"})
	if err != nil || len(vs) != 2 || vs[0][0] != 1 || vs[1][0] != 2 {
		t.Fatalf("EmbedAll = %v, %v", vs, err)
	}
	seen = nil
	_, err = f.EmbedAll(t.Context(), []string{"a", "bad", "c"})
	if !errors.Is(err, errFlaky) || !slices.Equal(seen, []string{"a", "bad"}) {
		t.Errorf("EmbedAll = %v after %v, want errFlaky after [a bad]", err, seen)
	}
}

func TestEmbedAllFunc(t *testing.T) {
	f := models.EmbedAllFunc(func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, s := range texts {
			out[i] = []float32{float32(len(s))}
		}
		return out, nil
	})
	if v, err := f.Embed(t.Context(), "abc"); err != nil || !slices.Equal(v, []float32{3}) {
		t.Errorf("Embed = %v, %v", v, err)
	}
	short := models.EmbedAllFunc(func(context.Context, []string) ([][]float32, error) { return nil, nil })
	if _, err := short.Embed(t.Context(), "abc"); err == nil {
		t.Error("a batch function returning no vector did not fail")
	}
}

// TestRetrying_DelegateCancellationNeverRetried: the seed's rule. A
// delegate that returns context.Canceled (its own call was cancelled) while
// the caller's context is alive is neither retried nor delayed, and the
// policy's predicate never sees it. Before, retries.Embedder retried it
// (3 calls, two waits) and showed it to the predicate.
func TestRetrying_DelegateCancellationNeverRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &flaky{start: time.Now(), failures: 10, err: errors.Join(errors.New("provider: request aborted"), context.Canceled)}
		shown := 0
		p := retries.EmbedderPolicy().WithRetryIf(func(o retries.Outcome) bool { shown++; return o.Err != nil })
		e, err := models.Retrying(d, p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Embed(context.Background(), "q")
		if !errors.Is(err, context.Canceled) || len(d.calls) != 1 || shown != 0 {
			t.Fatalf("Embed: %v after %d calls, predicate shown %d; want context.Canceled, 1 call, 0 shown", err, len(d.calls), shown)
		}
		if _, err = e.EmbedAll(context.Background(), []string{"a", "b"}); !errors.Is(err, context.Canceled) || len(d.calls) != 2 || shown != 0 {
			t.Fatalf("EmbedAll: %v after %d calls in all, predicate shown %d", err, len(d.calls), shown)
		}
	})
}
