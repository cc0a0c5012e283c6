package integration

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestJDisc_faults arms the harness's faults and checks that Vespa's own
// DocumentV1ApiHandler turns each into its status: a transient refusal is
// queued and resent (200 once the fault is used up), overload is 429, a
// timeout 504, insufficient storage 507, an error 500, a lasting refusal
// fills the queue (504 for the stuck request, 429 behind it), and a failing
// visitor makes the visit fail.
func TestJDisc_faults(t *testing.T) {
	h := jdiscHarness(t)
	ctx := t.Context()
	if err := h.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Reset(ctx) })
	do := func(method, path, body string) (int, string) {
		t.Helper()
		return jdiscDo(t, h.URL, method, path, body)
	}
	const doc = "/document/v1/f/music/docid/one"
	const fields = `{"fields":{"title":"x"}}`
	for _, tc := range []struct {
		op, kind string
		method   string
		want     int
	}{
		{"put", "transient", "POST", http.StatusOK},
		{"put", "overload", "POST", http.StatusTooManyRequests},
		{"put", "timeout", "POST", http.StatusGatewayTimeout},
		{"put", "storage", "POST", http.StatusInsufficientStorage},
		{"get", "error", "GET", http.StatusInternalServerError},
		{"any", "timeout", "DELETE", http.StatusGatewayTimeout},
	} {
		if err := h.Fault(ctx, tc.op, tc.kind, 1); err != nil {
			t.Fatal(err)
		}
		st, body := do(tc.method, doc, fields)
		if st != tc.want {
			t.Errorf("%s fault on %s: %s answered %d %s, want %d", tc.kind, tc.op, tc.method, st, body, tc.want)
		}
		if tc.want != http.StatusOK && !strings.Contains(body, "harness: ") {
			t.Errorf("%s fault on %s: body %s does not carry the fault's message", tc.kind, tc.op, body)
		}
		if st, _ := do(tc.method, doc, fields); st >= 400 && tc.method != "GET" {
			t.Errorf("%s fault on %s: the next %s answered %d, want the fault used up", tc.kind, tc.op, tc.method, st)
		}
	}
	// A transient refusal that lasts keeps the operation at the head of the
	// handler's queue until its request times out (504); a request that
	// arrives once the head is older than the queue's max age (3 s) is
	// refused at once with 429.
	if err := h.Fault(ctx, "put", "transient", 1_000_000); err != nil {
		t.Fatal(err)
	}
	first := make(chan int, 1)
	go func() { // not do: t.Fatal belongs to the test's goroutine
		st := 0
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL+doc+"?timeout=6s", strings.NewReader(fields))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			if resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req); err == nil {
				st = resp.StatusCode
				resp.Body.Close()
			}
		}
		first <- st
	}()
	time.Sleep(3500 * time.Millisecond)
	if st, body := do("POST", "/document/v1/f/music/docid/two", fields); st != http.StatusTooManyRequests || !strings.Contains(body, "seconds worth of work enqueued") {
		t.Errorf("put behind a stuck queue: %d %s, want 429 from the handler's queue", st, body)
	}
	if st := <-first; st != http.StatusGatewayTimeout {
		t.Errorf("put stuck in the queue: %d, want 504 at its timeout", st)
	}
	if err := h.ClearFaults(ctx); err != nil {
		t.Fatal(err)
	}
	// The handler drops the timed-out operation from its queue on a later
	// dispatch; until then every request is refused with 429. Wait for the
	// queue to drain (bounded) before the next fault.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if st, _ := do("GET", doc, ""); st != http.StatusTooManyRequests || time.Now().After(deadline) {
			break
		}
	}
	if err := h.Fault(ctx, "visit", "error", 1); err != nil {
		t.Fatal(err)
	}
	if st, body := do("GET", "/document/v1/f/music/docid/", ""); st != http.StatusInternalServerError {
		t.Errorf("visit with a failing visitor: %d %s, want 500", st, body)
	}
	if err := h.Fault(ctx, "nosuch", "error", 1); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("unknown fault operation: %v, want a 400", err)
	}
}
