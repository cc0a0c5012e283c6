package retries

import (
	"math"
	"testing"
	"time"
)

func TestWaitsAtLargeN(t *testing.T) {
	noCapJitter, err := WaitJittered(time.Second, math.MaxInt64, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	halfJitter, err := WaitJittered(time.Second, math.MaxInt64, 3, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	waits := map[string]Wait{
		"golden jitter":                  WaitGoldenJitter(),
		"random exponential, no cap":     WaitRandomExponential(time.Second, 0),
		"random exponential, capped":     WaitRandomExponential(time.Second, time.Minute),
		"exponential, no cap":            WaitExponential(time.Second, 0, 0),
		"exponential, capped":            WaitExponential(time.Second, time.Second, 10*time.Second),
		"jittered to the largest max":    noCapJitter,
		"jittered, half, largest max":    halfJitter,
		"every named policy's: Query":    Query.Wait(),
		"every named policy's: Embedder": Embedder.Wait(),
	}
	for name, w := range waits {
		prev := time.Duration(0)
		for _, n := range []int{-5, 0, 1, 2, 30, 62, 63, 64, 100, 1000, 1 << 20, math.MaxInt} {
			for range 50 {
				d := w.Delay(n) // must not panic
				if d < 0 || (w.Max() > 0 && d > w.Max()) {
					t.Fatalf("%s: Delay(%d) = %v, want within [0, %v]", name, n, d, w.Max())
				}
				prev = max(prev, d)
			}
		}
		_ = prev
	}
	// Golden jitter saturates instead of wrapping around to 0.
	if d := WaitGoldenJitter().Delay(1000); d < time.Duration(math.MaxInt64)-time.Second {
		t.Errorf("golden jitter at n=1000 is %v, want about the largest Duration", d)
	}
	if d := WaitExponential(time.Second, 0, 0).Delay(200); d != math.MaxInt64 {
		t.Errorf("exponential at n=200 is %v, want the largest Duration", d)
	}
	if d := noCapJitter.Delay(200); d != math.MaxInt64 {
		t.Errorf("unjittered WaitJittered at n=200 is %v, want the largest Duration", d)
	}
}

func TestWaitJitteredBounds(t *testing.T) {
	w, err := WaitJittered(100*time.Millisecond, 2*time.Second, 3, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	if w.Max() != 2*time.Second {
		t.Errorf("Max() = %v", w.Max())
	}
	for n := 1; n <= 6; n++ {
		d := min(2*time.Second, time.Duration(float64(100*time.Millisecond)*pow(3, n-1)))
		lo := d - d/4
		least, most := d, lo
		for range 500 {
			got := w.Delay(n)
			if got < lo || got > d {
				t.Fatalf("Delay(%d) = %v, want within [%v, %v]", n, got, lo, d)
			}
			least, most = min(least, got), max(most, got)
		}
		if q := (d - lo) / 4; least > lo+q || most < d-q {
			t.Errorf("Delay(%d) drawn in [%v, %v] only, want spread over [%v, %v]", n, least, most, lo, d)
		}
	}
	exactly, err := WaitJittered(time.Second, 5*time.Second, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 5 * time.Second, 50: 5 * time.Second} {
		if got := exactly.Delay(n); got != want {
			t.Errorf("jitter 0: Delay(%d) = %v, want exactly %v", n, got, want)
		}
	}
}

func TestWaitJitteredRejectsInvalidValues(t *testing.T) {
	cases := []struct {
		name           string
		initial, max   time.Duration
		factor, jitter float64
	}{
		{"zero initial", 0, time.Second, 2, 0.5},
		{"negative initial", -time.Second, time.Second, 2, 0.5},
		{"max below initial", time.Second, time.Millisecond, 2, 0.5},
		{"negative max", time.Second, -1, 2, 0.5},
		{"factor below 1", time.Second, time.Minute, 0.5, 0.5},
		{"NaN factor", time.Second, time.Minute, math.NaN(), 0.5},
		{"infinite factor", time.Second, time.Minute, math.Inf(1), 0.5},
		{"negative jitter", time.Second, time.Minute, 2, -0.1},
		{"jitter above 1", time.Second, time.Minute, 2, 1.1},
		{"NaN jitter", time.Second, time.Minute, 2, math.NaN()},
	}
	for _, c := range cases {
		if _, err := WaitJittered(c.initial, c.max, c.factor, c.jitter); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	for _, ok := range []struct {
		factor, jitter float64
	}{{1, 0}, {1, 1}, {2, 0.5}} {
		if _, err := WaitJittered(time.Second, time.Second, ok.factor, ok.jitter); err != nil {
			t.Errorf("factor %v jitter %v: %v", ok.factor, ok.jitter, err)
		}
	}
}

func TestWaitFuncAndNone(t *testing.T) {
	w := WaitFunc(time.Second, func(n int) time.Duration { return time.Duration(n) * 400 * time.Millisecond })
	for n, want := range map[int]time.Duration{1: 400 * time.Millisecond, 2: 800 * time.Millisecond, 3: time.Second} {
		if got := w.Delay(n); got != want {
			t.Errorf("Delay(%d) = %v, want %v", n, got, want)
		}
	}
	if d := WaitFunc(0, func(int) time.Duration { return -time.Second }).Delay(1); d != 0 {
		t.Errorf("a negative wait gave %v, want 0", d)
	}
	if d := WaitFunc(time.Second, nil).Delay(3); d != 0 {
		t.Errorf("a nil func gave %v", d)
	}
	if d := WaitNone().Delay(9); d != 0 || WaitNone().Max() != 0 {
		t.Errorf("WaitNone waits %v", d)
	}
	var zero Wait
	if zero.Delay(1) != 0 {
		t.Error("the zero Wait waits")
	}
}

func TestUniformCoversTheWholeRange(t *testing.T) {
	for range 100 {
		if d := uniform(0, math.MaxInt64); d < 0 {
			t.Fatalf("uniform(0, max) = %v", d)
		}
		if d := uniform(math.MaxInt64-1, math.MaxInt64); d < math.MaxInt64-1 {
			t.Fatalf("uniform(max-1, max) = %v", d)
		}
	}
	if uniform(5, 5) != 5 || uniform(5, 3) != 5 || uniform(-5, -1) != 0 {
		t.Error("degenerate ranges")
	}
}
