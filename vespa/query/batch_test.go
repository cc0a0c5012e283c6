package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa"
	"go.uber.org/goleak"
)

func TestLimiter_NeverMoreInFlightThanTheLimit(t *testing.T) {
	l := newLimiter(4, 1, 8)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	var epochs []uint64
	for range 4 {
		e, err := l.acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		epochs = append(epochs, e)
	}
	if _, err := l.acquire(done); err == nil {
		t.Fatal("a fifth query started with a limit of 4")
	}
	l.release(epochs[0], true) // overload: 4 -> 2, 3 in flight
	if l.current() != 2 {
		t.Fatalf("limit %d after an overload, want 2", l.current())
	}
	l.release(epochs[1], true) // same epoch: no second halving
	if l.current() != 2 {
		t.Fatalf("limit %d after a second overload of the same round, want 2", l.current())
	}
	if _, err := l.acquire(done); err == nil {
		t.Fatal("a query started with 2 in flight and a limit of 2")
	}
	l.release(epochs[2], false) // 1 in flight
	e, err := l.acquire(done)
	if err != nil {
		t.Fatalf("no slot with 1 in flight and a limit of 2: %v", err)
	}
	if e != 1 {
		t.Errorf("epoch %d, want 1", e)
	}
	l.release(e, true) // new round: 2 -> 1
	l.release(epochs[3], true)
	if l.current() != 1 {
		t.Errorf("limit %d, want the floor 1", l.current())
	}
	for range 3 { // grows by one after limit successes
		e, _ := l.acquire(context.Background())
		l.release(e, false)
	}
	if l.current() != 3 {
		t.Errorf("limit %d after 3 successes from 1, want 3 (1+1 after 1, +1 after 2)", l.current())
	}
}

// batchServer answers each query by its yql: "fail" gives 400, "busy" 503,
// anything else 200 with totalCount set to the number after "n=". It records
// the most queries it saw at once.
type batchServer struct {
	inFlight, maxInFlight atomic.Int32
	calls                 atomic.Int32
}

func (s *batchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	s.calls.Add(1)
	b, _ := io.ReadAll(r.Body)
	var req struct {
		YQL string `json:"yql"`
	}
	if err := json.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case strings.HasPrefix(req.YQL, "fail"):
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":0},"errors":[{"code":3,"summary":"Illegal query"}]}}`)
	case strings.HasPrefix(req.YQL, "busy"):
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":0},"errors":[{"code":0,"summary":"No backends in service. Try later"}]}}`)
	default:
		n := strings.TrimPrefix(req.YQL, "n=")
		fmt.Fprintf(w, `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":%s}}}`, n)
	}
}

func newBatchClient(t *testing.T) (*Client, *batchServer) {
	t.Helper()
	bs := &batchServer{}
	srv := httptest.NewServer(bs)
	t.Cleanup(srv.Close)
	vc, err := vespa.NewClient(srv.URL, vespa.WithConnections(64))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vc.Close() })
	qc, err := New(vc)
	if err != nil {
		t.Fatal(err)
	}
	return qc, bs
}

func TestSearchBatch_OrderIsolationAndLimit(t *testing.T) {
	qc, bs := newBatchClient(t)
	var reqs []*Request
	for i := range 200 {
		yql := "n=" + strconv.Itoa(i)
		switch {
		case i%17 == 5:
			yql = "fail"
		case i >= 120 && i < 130:
			yql = "busy"
		}
		reqs = append(reqs, &Request{YQL: yql})
	}
	reqs[7] = nil // a bad request fails alone
	var mu sync.Mutex
	var violations []string
	maxLimit, minLimitAfterBusy := 0, 1<<30
	cfg := BatchConfig{InitialConcurrency: 2, MaxConcurrency: 8}
	cfg.observe = func(inFlight, limit int) {
		mu.Lock()
		defer mu.Unlock()
		if inFlight > limit {
			violations = append(violations, fmt.Sprintf("%d in flight with a limit of %d", inFlight, limit))
		}
		maxLimit = max(maxLimit, limit)
		if bs.calls.Load() > 130 {
			minLimitAfterBusy = min(minLimitAfterBusy, limit)
		}
	}
	out := qc.SearchBatch(context.Background(), reqs, cfg)
	if len(out) != len(reqs) {
		t.Fatalf("%d responses", len(out))
	}
	for i, r := range out {
		if r.Index != i || r.Request != reqs[i] {
			t.Fatalf("response %d has index %d", i, r.Index)
		}
		switch {
		case i == 7:
			if r.Err == nil {
				t.Errorf("nil request succeeded")
			}
		case i%17 == 5:
			if !errors.Is(r.Err, vespa.ErrBadRequest) {
				t.Errorf("%d: %v", i, r.Err)
			}
		case i >= 120 && i < 130:
			if !errors.Is(r.Err, vespa.ErrUnavailable) {
				t.Errorf("%d: %v", i, r.Err)
			}
		default:
			if r.Err != nil || r.Result.TotalCount != int64(i) {
				t.Errorf("%d: %v %+v", i, r.Err, r.Result)
			}
		}
	}
	if m := bs.maxInFlight.Load(); m > 8 {
		t.Errorf("server saw %d queries at once, above MaxConcurrency 8", m)
	}
	if maxLimit != 8 {
		t.Errorf("the limit peaked at %d, want growth to 8", maxLimit)
	}
	if minLimitAfterBusy > 4 {
		t.Errorf("the limit stayed at %d or more after ten 503s, want it halved", minLimitAfterBusy)
	}
	if len(violations) > 0 {
		t.Errorf("violations: %v", violations)
	}
}

func TestLimiter_AcquireRespectsLimitUnderRace(t *testing.T) {
	// Many goroutines acquire and release while overloads change the limit:
	// after every acquire, the number in flight is within the limit.
	l := newLimiter(3, 1, 6)
	var bad, acquired atomic.Int32
	l.observe = func(inFlight, limit int) {
		acquired.Add(1)
		if inFlight > limit || limit < 1 || limit > 6 {
			bad.Add(1)
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				e, err := l.acquire(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				l.release(e, (i+g)%13 == 0)
			}
		})
	}
	wg.Wait()
	if bad.Load() > 0 || l.inFlight != 0 || acquired.Load() != 1600 {
		t.Errorf("bad %d, in flight %d, acquired %d", bad.Load(), l.inFlight, acquired.Load())
	}
}

func TestSearchEach_StreamsAndStopsEarly(t *testing.T) {
	qc, _ := newBatchClient(t)
	var reqs []*Request
	for i := range 30 {
		reqs = append(reqs, &Request{YQL: "n=" + strconv.Itoa(i)})
	}
	seen := map[int]bool{}
	for r := range qc.SearchEach(context.Background(), reqs, BatchConfig{}) {
		if seen[r.Index] || r.Err != nil || r.Result.TotalCount != int64(r.Index) {
			t.Fatalf("response %+v", r)
		}
		seen[r.Index] = true
	}
	if len(seen) != 30 {
		t.Fatalf("%d responses", len(seen))
	}
	n := 0
	for range qc.SearchEach(context.Background(), reqs, BatchConfig{InitialConcurrency: 4}) {
		n++
		if n == 3 {
			break
		}
	}
	// goleak (TestMain) checks that no worker outlives the loop.
}

func TestSearchBatch_CancelledContext(t *testing.T) {
	qc, bs := newBatchClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	reqs := []*Request{{YQL: "n=1"}, {YQL: "n=2"}, {YQL: "n=3"}}
	for i, r := range qc.SearchBatch(ctx, reqs, BatchConfig{}) {
		if r.Index != i || !errors.Is(r.Err, context.Canceled) {
			t.Errorf("%d: %+v", i, r)
		}
	}
	if bs.calls.Load() != 0 {
		t.Errorf("%d queries reached the server", bs.calls.Load())
	}
}

func TestSearchEach_PanicInLoopBodyCleansUp(t *testing.T) {
	qc, _ := newBatchClient(t)
	var reqs []*Request
	for i := range 20 {
		reqs = append(reqs, &Request{YQL: "n=" + strconv.Itoa(i)})
	}
	// Goroutines of the test server and of idle keep-alive connections are
	// not the batch's; everything else that outlives the loop is a leak.
	opts := []goleak.Option{
		goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
	}
	recovered := func() (v any) {
		defer func() { v = recover() }()
		for range qc.SearchEach(context.Background(), reqs, BatchConfig{InitialConcurrency: 8}) {
			panic("loop body failed")
		}
		return nil
	}()
	if recovered != "loop body failed" {
		t.Fatalf("recovered %v", recovered)
	}
	if err := goleak.Find(opts...); err != nil {
		t.Fatalf("SearchEach left goroutines behind after a panic in its loop body: %v", err)
	}
}
