package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/vespatest"
)

// The soak feeds soakDocuments documents (soakDocumentsRace under the race
// detector, which slows everything 5-10 times: see race_test.go) into the
// emulator while it injects faults, then checks that nothing was lost, that a
// sliced visit sees each document once, and that a mass delete by selection
// leaves nothing selected behind. -short feeds soakDocumentsShort.
const (
	soakDocuments      = 100_000
	soakDocumentsRace  = 10_000
	soakDocumentsShort = 5_000

	// soakSeed seeds the emulator's fault dice, so a failing run can be
	// repeated (the order in which concurrent requests meet the dice still
	// varies).
	soakSeed = 20260716

	soakNamespace = "soak"
	soakDocType   = "soak"
	soakCluster   = "content"
	soakSlices    = 4

	// soakResubmitRounds bounds how often operations that failed after the
	// feeder's retries are fed again: see soakFeed.
	soakResubmitRounds = 5
)

// soakRates are the fault rates of the issue, as fractions of all requests.
var soakRates = struct {
	overload, unavailable, drop, spike, bigSpike float64
}{overload: 0.05, unavailable: 0.02, drop: 0.01, spike: 0.01, bigSpike: 0.001}

// soakSchema is the soak's document type: kind "drop" marks the half of the
// documents the mass delete removes.
var soakSchema = vespatest.Schema{Name: soakDocType, Fields: []vespatest.Field{
	{Name: "n", Type: "int"},
	{Name: "kind", Type: "string"},
	{Name: "title", Type: "string"},
}}

// soakFaultRules returns the emulator's fault rules. Rules are tried in order
// and the first that fires wins, so each rule's rate is divided by the share
// of requests the earlier rules left, making the marginal rates exactly
// soakRates.
func soakFaultRules() []vespatest.FaultRule {
	left := 1.0
	rule := func(rate float64, f vespatest.Fault) vespatest.FaultRule {
		r := vespatest.FaultRule{Rate: rate / left, Fault: f}
		left -= rate
		return r
	}
	return []vespatest.FaultRule{
		rule(soakRates.overload, vespatest.FaultOverload()),
		rule(soakRates.unavailable, vespatest.FaultUnavailable()),
		rule(soakRates.drop, vespatest.FaultDrop()),
		rule(soakRates.spike, vespatest.FaultLatency(20*time.Millisecond)),
		rule(soakRates.bigSpike, vespatest.FaultLatency(300*time.Millisecond)),
	}
}

// soakFaultCounts is a difference of two vespatest.FaultStats: what one phase
// of the soak got injected.
type soakFaultCounts struct {
	overload, unavailable, dropped, delayed, total int
}

func soakFaultsSince(before, after vespatest.FaultStats) soakFaultCounts {
	return soakFaultCounts{
		overload:    after.ByStatus[429] - before.ByStatus[429],
		unavailable: after.ByStatus[503] - before.ByStatus[503],
		dropped:     after.Dropped - before.Dropped,
		delayed:     after.Delayed - before.Delayed,
		total:       after.Total - before.Total,
	}
}

func (c soakFaultCounts) String() string {
	return fmt.Sprintf("%d faults: %d×429, %d×503, %d dropped connections, %d latency spikes",
		c.total, c.overload, c.unavailable, c.dropped, c.delayed)
}

// soakDocumentsFlag overrides the number of documents of the soak, for a
// longer run by hand: go test -run TestSoak -soak.documents=1000000 ./integration.
var soakDocumentsFlag = flag.Int("soak.documents", 0, "number of documents the soak feeds (0: 100,000; 10,000 under -race; 5,000 with -short)")

func soakDocumentCount() int {
	full := soakDocuments
	if raceDetector {
		full = soakDocumentsRace
	}
	return documentCount(*soakDocumentsFlag, full, soakDocumentsShort)
}

func soakID(i int) vespa.DocumentID {
	return vespa.DocumentID{Namespace: soakNamespace, DocType: soakDocType, UserSpecific: "d" + strconv.Itoa(i)}
}

// soakIndex is the inverse of soakID; -1 for an ID soakID does not make.
func soakIndex(id string) int {
	const prefix = "id:" + soakNamespace + ":" + soakDocType + "::d"
	if len(id) <= len(prefix) || id[:len(prefix)] != prefix {
		return -1
	}
	i, err := strconv.Atoi(id[len(prefix):])
	if err != nil || i < 0 {
		return -1
	}
	return i
}

func soakKind(i int) string {
	if i%2 == 0 {
		return "drop"
	}
	return "keep"
}

// soakFields are the fields of document i, as fed.
func soakFields(i int) json.RawMessage {
	return fmt.Appendf(nil, `{"n":%d,"kind":%q,"title":"soak document %d \u00e9\u00e8 \"quoted\""}`, i, soakKind(i), i)
}

// soakRetryPolicy is the sync policy of the visit and mass-delete clients:
// SyncRequest's classification (429s and connection errors) plus 503s, with
// waits of milliseconds instead of SyncRequest's seconds, so the soak stays
// short. Retrying a removal by selection is safe: it is idempotent. onRetry
// counts the retries.
func soakRetryPolicy(onRetry func()) retries.Policy {
	return retries.New("soak",
		func(o retries.Outcome) bool {
			return o.StatusCode() == 429 || o.StatusCode() == 503 || retries.IsConnectionError(o.Err)
		},
		retries.WaitExponential(5*time.Millisecond, 5*time.Millisecond, 100*time.Millisecond),
		30,
	).WithOnRetry(func(retries.Outcome, time.Duration) { onRetry() })
}

// soakFeedReport is what soakFeed did.
type soakFeedReport struct {
	enqueued, outcomes, resubmitted int64
	requests                        int64
	retries                         map[string]int64
	elapsed                         time.Duration
}

// soakFeed puts documents 0..n-1 through a feeder and checks that each
// enqueued operation got exactly one outcome. The feeder's retries (DocV1: 3
// attempts for 503s and dropped connections) can run out under these fault
// rates (about 0.03³ of the operations): such an operation fails with its
// outcome, loses nothing silently, and is fed again here as a user of the
// feeder would, in at most soakResubmitRounds rounds.
func soakFeed(ctx context.Context, t *testing.T, srv *vespatest.Server, n int) soakFeedReport {
	t.Helper()
	client, err := vespa.NewClient(srv.URL(), vespa.WithHTTPVersion(vespa.HTTP2))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	enqueued := make([]atomic.Int32, n)
	outcomes := make([]atomic.Int32, n)
	var (
		mu     sync.Mutex
		failed []int
		bad    atomic.Int64 // outcomes for IDs the soak never fed
	)
	f, err := feed.New(client, feed.Config{
		// A 429 holds its in-flight slot for Throttle's wait (0.5 s on
		// average), a 503 or a dropped connection for DocV1's 1 s, which
		// adds about 55 ms to the average operation. At 5 % 429s the
		// adaptive limit sits at its minimum (every 429 halves it), and
		// the default minimum (64) would cap the feed near 1,200
		// operations a second: keep enough in flight that the waits
		// overlap.
		MinInflight: 512,
		MaxInflight: 4096,
		OnOutcome: func(_ context.Context, o feed.Outcome) {
			i := soakIndex(o.IDString())
			if i < 0 || i >= n {
				bad.Add(1)
				return
			}
			outcomes[i].Add(1)
			if !o.OK() {
				mu.Lock()
				failed = append(failed, i)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var rep soakFeedReport
	pending := make([]int, n)
	for i := range pending {
		pending[i] = i
	}
	for round := 0; len(pending) > 0; round++ {
		if round == soakResubmitRounds {
			t.Fatalf("%d operations still failing after %d rounds of feeding, such as %v", len(pending), round, pending[:min(len(pending), 5)])
		}
		if round > 0 {
			t.Logf("feeding again %d operations that failed after the feeder's retries: %v", len(pending), pending[:min(len(pending), 10)])
			rep.resubmitted += int64(len(pending))
		}
		for _, i := range pending {
			if err := f.Put(ctx, soakID(i), soakFields(i)); err != nil {
				t.Fatalf("put %d: %v", i, err)
			}
			enqueued[i].Add(1)
			rep.enqueued++
		}
		if err := f.Flush(ctx); err != nil {
			t.Fatalf("flush: %v", err)
		}
		mu.Lock()
		pending, failed = failed, nil
		mu.Unlock()
		slices.Sort(pending)
	}
	if err := f.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	rep.elapsed = time.Since(start)

	if b := bad.Load(); b > 0 {
		t.Errorf("%d outcomes for IDs that were never fed", b)
	}
	for i := range n {
		if e, o := enqueued[i].Load(), outcomes[i].Load(); e != o {
			t.Errorf("document %d: %d operations enqueued, %d outcomes", i, e, o)
		}
		rep.outcomes += int64(outcomes[i].Load())
	}
	st := f.Stats()
	if st.Operations != rep.enqueued || st.Succeeded != int64(n) || st.Pending != 0 {
		t.Errorf("feeder stats: %d operations, %d succeeded, %d pending; want %d, %d, 0",
			st.Operations, st.Succeeded, st.Pending, rep.enqueued, n)
	}
	rep.requests, rep.retries = st.Requests, st.Retries
	t.Logf("feeder: latency %+v, in-flight limit %d", st.Latency, st.InflightLimit)
	return rep
}

// soakCheckContent checks that the emulator holds exactly documents
// [0, n) for which keep(i) is true, each with the fields it was fed with, and
// returns how many it holds that it should not, or lacks, or holds changed.
func soakCheckContent(t *testing.T, srv *vespatest.Server, n int, keep func(i int) bool) (lost int) {
	t.Helper()
	want := 0
	for i := range n {
		got, ok := srv.Document(soakID(i).String())
		switch {
		case !keep(i) && ok:
			lost++
			if lost <= 5 {
				t.Errorf("document %d is still there", i)
			}
		case !keep(i):
		case !ok:
			lost++
			if lost <= 5 {
				t.Errorf("document %d is missing", i)
			}
		case !testutil.JSONEqual(got, soakFields(i)):
			lost++
			if lost <= 5 {
				t.Errorf("document %d holds %s, want %s", i, got, soakFields(i))
			}
		}
		if keep(i) {
			want++
		}
	}
	if got := srv.DocumentCount(); got != want {
		t.Errorf("emulator holds %d documents, want %d", got, want)
		lost += max(got-want, want-got)
	}
	return lost
}

// soakVisit visits every document in soakSlices slices and checks that each
// comes exactly once with its fields. It returns the visit's stats.
func soakVisit(ctx context.Context, t *testing.T, client *vespa.Client, n int) vespa.VisitStats {
	t.Helper()
	v, err := client.Visitor(vespa.VisitRequest{
		Namespace:           soakNamespace,
		DocType:             soakDocType,
		Cluster:             soakCluster,
		Slices:              soakSlices,
		WantedDocumentCount: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, n)
	for doc, err := range v.All(ctx) {
		if err != nil {
			t.Fatalf("visit after %d documents: %v", v.Stats().Documents, err)
		}
		i := soakIndex(doc.ID)
		if i < 0 || i >= n {
			t.Fatalf("visit returned %q, which was never fed", doc.ID)
		}
		seen[i]++
		if seen[i] == 1 && !testutil.JSONEqual(doc.Fields, soakFields(i)) {
			t.Errorf("visit returned %s for %s, want %s", doc.Fields, doc.ID, soakFields(i))
		}
	}
	wrong := 0
	for i, c := range seen {
		if c != 1 {
			wrong++
			if wrong <= 5 {
				t.Errorf("visit returned document %d %d times", i, c)
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d documents were not returned exactly once", wrong)
	}
	if !v.Done() {
		t.Error("visit is not done after its loop ended without an error")
	}
	return v.Stats()
}

// TestSoak_FaultsLoseNothing feeds, visits and mass-deletes under 5 % 429s,
// 2 % 503s, 1 % dropped connections and latency spikes, and checks that
// nothing is lost, duplicated or left behind. It logs its figures.
func TestSoak_FaultsLoseNothing(t *testing.T) {
	// Registered first, so it runs last: after the server's cleanup.
	t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreCurrent()) })
	n := soakDocumentCount()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	srv := vespatest.NewTestServer(t,
		vespatest.WithSchema(soakSchema),
		vespatest.WithSeed(soakSeed),
		vespatest.WithFaults(soakFaultRules()...),
	)

	// Feed.
	f0 := srv.FaultStats()
	fr := soakFeed(ctx, t, srv, n)
	feedFaults := soakFaultsSince(f0, srv.FaultStats())
	lost := soakCheckContent(t, srv, n, func(int) bool { return true })
	t.Logf("feed: %d documents, %d operations (%d fed again after failing), %d outcomes, %d requests in %v (%.0f ops/s); %v; feeder retries %v; documents lost: %d",
		n, fr.enqueued, fr.resubmitted, fr.outcomes, fr.requests, fr.elapsed.Round(time.Millisecond),
		float64(fr.enqueued)/fr.elapsed.Seconds(), feedFaults, soakSortedCounts(fr.retries), lost)
	if t.Failed() {
		t.FailNow()
	}

	// Visit in slices, on HTTP/1.1 (the feed used HTTP/2), so that drops
	// close connections rather than reset streams.
	var visitRetries, deleteRetries atomic.Int64
	vc, err := vespa.NewClient(srv.URL(), vespa.WithRetryPolicy(soakRetryPolicy(func() { visitRetries.Add(1) })))
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	f1 := srv.FaultStats()
	start := time.Now()
	vs := soakVisit(ctx, t, vc, n)
	t.Logf("visit: %d documents in %d pages over %d slices in %v; %v; client retries %d",
		vs.Documents, vs.Pages, vs.Slices, time.Since(start).Round(time.Millisecond),
		soakFaultsSince(f1, srv.FaultStats()), visitRetries.Load())

	// Mass delete of the "drop" half by selection.
	dc, err := vespa.NewClient(srv.URL(), vespa.WithRetryPolicy(soakRetryPolicy(func() { deleteRetries.Add(1) })))
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	f2 := srv.FaultStats()
	start = time.Now()
	removed, err := dc.RemoveWhere(ctx, vespa.SelectionRequest{
		Namespace: soakNamespace,
		DocType:   soakDocType,
		Cluster:   soakCluster,
		Selection: soakDocType + `.kind=="drop"`,
		Slices:    soakSlices,
		// Short chunks make many requests, so that faults meet the
		// delete too (one chunk would remove everything per slice).
		TimeChunk: time.Millisecond,
	})
	if err != nil {
		t.Fatalf("remove where: %v (after %d removed)", err, removed)
	}
	wantRemoved := (n + 1) / 2
	if removed != int64(wantRemoved) {
		t.Errorf("remove where removed %d documents, want %d", removed, wantRemoved)
	}
	left := soakCheckContent(t, srv, n, func(i int) bool { return soakKind(i) == "keep" })
	t.Logf("mass delete: %d removed in %v; %v; client retries %d; wrong documents after it: %d",
		removed, time.Since(start).Round(time.Millisecond), soakFaultsSince(f2, srv.FaultStats()), deleteRetries.Load(), left)
	t.Logf("total: %v; documents lost: %d", soakFaultsSince(f0, srv.FaultStats()), lost)
}

// soakSortedCounts formats a map of counters in key order.
func soakSortedCounts(m map[string]int64) string {
	var b bytes.Buffer
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s:%d", k, m[k])
	}
	return "{" + b.String() + "}"
}
