package vespa_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/vespatest"
)

// visitFastRetries is the client's sync policy without waits, so that fault
// tests take milliseconds; the layering under retries.Visit is unchanged.
var visitFastRetries = vespa.WithRetryPolicy(retries.SyncRequest.WithWait(retries.WaitNone()))

// visitCorpus seeds srv with n music documents in namespace ns and returns
// their IDs mapped to their fields.
func visitCorpus(t testing.TB, srv *vespatest.Server, ns string, n int) map[string]string {
	t.Helper()
	docs := make(map[string]string, n)
	for i := range n {
		id := fmt.Sprintf("id:%s:music::doc-%04d", ns, i)
		fields := fmt.Sprintf(`{"title":"t%d","n":%d}`, i, i)
		if err := srv.PutDocument(id, json.RawMessage(fields)); err != nil {
			t.Fatal(err)
		}
		docs[id] = fields
	}
	return docs
}

// newVisitServer starts an emulator and a client for it; both are closed
// when the test ends, before the check of an earlier verifyNoLeakAtEnd.
func newVisitServer(t *testing.T, opts ...vespa.Option) (*vespatest.Server, *vespa.Client) {
	t.Helper()
	srv, err := vespatest.Start()
	if err != nil {
		t.Fatal(err)
	}
	c, err := vespa.NewClient(srv.URL(), opts...)
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		srv.Close()
	})
	return srv, c
}

// verifyNoLeakAtEnd checks, when the test has ended and the cleanups
// registered after this call (such as newVisitServer's) have run, that no
// goroutine the test started is left.
func verifyNoLeakAtEnd(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// collect runs seq to the end and counts each document ID.
func collect(t *testing.T, seq func(func(*vespa.Document, error) bool)) map[string]int {
	t.Helper()
	got := map[string]int{}
	for d, err := range seq {
		if err != nil {
			t.Fatalf("visit: %v", err)
		}
		got[d.ID]++
	}
	return got
}

// checkExactlyOnce fails unless got holds every ID of want exactly once and
// nothing else.
func checkExactlyOnce(t *testing.T, got map[string]int, want map[string]string) {
	t.Helper()
	for id, n := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("unexpected document %s", id)
		} else if n != 1 {
			t.Errorf("document %s yielded %d times", id, n)
		}
	}
	missing := 0
	for id := range want {
		if got[id] == 0 {
			missing++
			if missing <= 5 {
				t.Errorf("document %s never yielded", id)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d documents missing", missing, len(want))
	}
}

func TestVisit_UnionOfSlicesIsTheCorpus(t *testing.T) {
	srv, c := newVisitServer(t, visitFastRetries)
	want := visitCorpus(t, srv, "ns", 300)
	visitCorpus(t, srv, "other", 20) // another namespace, not visited
	for _, tc := range []struct {
		name                string
		slices, parallelism int
		wanted              int
	}{
		{"one slice, one document per page", 1, 0, 0},
		{"three slices in parallel", 3, 0, 17},
		{"eight slices, two at a time", 8, 2, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := collect(t, c.Visit(t.Context(), vespa.VisitRequest{
				Namespace: "ns", DocType: "music",
				Slices: tc.slices, Parallelism: tc.parallelism, WantedDocumentCount: tc.wanted,
			}))
			checkExactlyOnce(t, got, want)
		})
	}
	t.Run("several processes share the slices", func(t *testing.T) {
		got := map[string]int{}
		for _, ids := range [][]int{{0, 2}, {1}, {3}} {
			for id, n := range collect(t, c.Visit(t.Context(), vespa.VisitRequest{
				Namespace: "ns", DocType: "music", Slices: 4, SliceIDs: ids, WantedDocumentCount: 10,
			})) {
				got[id] += n
			}
		}
		checkExactlyOnce(t, got, want)
	})
	t.Run("fields are the stored ones", func(t *testing.T) {
		for d, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Selection: "music.n == 7"}) {
			if err != nil {
				t.Fatal(err)
			}
			var f map[string]any
			if err := json.Unmarshal(d.Fields, &f); err != nil || f["title"] != "t7" {
				t.Errorf("document %s fields %s", d.ID, d.Fields)
			}
		}
	})
}

func TestVisit_AllTypesAtTheRoot(t *testing.T) {
	srv, c := newVisitServer(t)
	want := visitCorpus(t, srv, "ns", 30)
	if err := srv.PutDocument("id:ns:book::b", json.RawMessage(`{"title":"b"}`)); err != nil {
		t.Fatal(err)
	}
	want["id:ns:book::b"] = ""
	visitCorpus(t, srv, "other", 5)
	got := collect(t, c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", Cluster: "content", Slices: 2}))
	checkExactlyOnce(t, got, want)
}

func TestVisit_Faults(t *testing.T) {
	srv, c := newVisitServer(t, visitFastRetries)
	want := visitCorpus(t, srv, "ns", 400)
	for _, r := range []vespatest.FaultRule{
		{Op: vespatest.OpVisit, Rate: 0.15, Fault: vespatest.FaultOverload()},
		{Op: vespatest.OpVisit, Rate: 0.05, Fault: vespatest.FaultUnavailable()},
		{Op: vespatest.OpVisit, Rate: 0.1, Fault: vespatest.FaultDrop()},
		{Op: vespatest.OpVisit, Rate: 0.1, Fault: vespatest.FaultLatency(3 * time.Millisecond)},
	} {
		if err := srv.AddFault(r); err != nil {
			t.Fatal(err)
		}
	}
	got := collect(t, c.Visit(t.Context(), vespa.VisitRequest{
		Namespace: "ns", DocType: "music", Slices: 4, WantedDocumentCount: 10,
	}))
	checkExactlyOnce(t, got, want)
	st := srv.FaultStats()
	if st.ByStatus[429] == 0 || st.ByStatus[503] == 0 || st.Dropped == 0 || st.Delayed == 0 {
		t.Errorf("not every fault happened: %+v", st)
	}
}

func TestVisit_ErrorAfterRetries(t *testing.T) {
	t.Run("503 is retried by retries.Visit, three attempts", func(t *testing.T) {
		srv, c := newVisitServer(t, visitFastRetries)
		visitCorpus(t, srv, "ns", 10)
		srv.ScriptFaults(vespatest.OpVisit, vespatest.FaultUnavailable(), vespatest.FaultUnavailable(), vespatest.FaultUnavailable())
		var n int
		var last error
		for d, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 1}) {
			if err != nil {
				last = err
				continue
			}
			n++
			_ = d
		}
		var ve *vespa.Error
		if !errors.As(last, &ve) || ve.StatusCode() != http.StatusServiceUnavailable || !errors.Is(last, vespa.ErrUnavailable) {
			t.Fatalf("got %v, want an *Error with status 503", last)
		}
		if n != 0 {
			t.Errorf("%d documents before the error", n)
		}
		if got := srv.FaultStats().ByStatus[503]; got != 3 {
			t.Errorf("%d attempts, want 3", got)
		}
	})
	t.Run("two 500s then success", func(t *testing.T) {
		srv, c := newVisitServer(t, visitFastRetries)
		want := visitCorpus(t, srv, "ns", 10)
		srv.ScriptFaults(vespatest.OpVisit, vespatest.FaultServerError(), vespatest.FaultServerError())
		checkExactlyOnce(t, collect(t, c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music"})), want)
	})
	t.Run("429 is retried by the client's policy under each attempt", func(t *testing.T) {
		srv, c := newVisitServer(t, visitFastRetries, vespa.WithRetryAttempts(2))
		visitCorpus(t, srv, "ns", 10)
		faults := make([]vespatest.Fault, 6)
		for i := range faults {
			faults[i] = vespatest.FaultOverload()
		}
		srv.ScriptFaults(vespatest.OpVisit, faults...)
		var last error
		for _, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 1}) {
			last = err
		}
		if !errors.Is(last, vespa.ErrTooManyRequests) {
			t.Fatalf("got %v, want 429", last)
		}
		if got := srv.FaultStats().ByStatus[429]; got != 6 {
			t.Errorf("%d requests, want 2 inner × 3 outer = 6", got)
		}
	})
	t.Run("a 400 is yielded at once", func(t *testing.T) {
		srv, c := newVisitServer(t, visitFastRetries)
		visitCorpus(t, srv, "ns", 3)
		var errs []error
		for _, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Selection: "music.title == == 1"}) {
			errs = append(errs, err)
		}
		if len(errs) != 1 || !errors.Is(errs[0], vespa.ErrBadRequest) {
			t.Fatalf("got %v, want one 400 error", errs)
		}
	})
	for _, status := range []int{http.StatusForbidden, http.StatusNotFound, http.StatusUnauthorized} {
		t.Run(fmt.Sprintf("a %d page fails at once", status), func(t *testing.T) {
			srv, c := newVisitServer(t, visitFastRetries)
			visitCorpus(t, srv, "ns", 10)
			srv.ScriptFaults(vespatest.OpVisit, vespatest.Fault{Status: status}, vespatest.Fault{Status: status}, vespatest.Fault{Status: status})
			var errs []error
			for _, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 1}) {
				errs = append(errs, err)
			}
			var ve *vespa.Error
			if len(errs) != 1 || !errors.As(errs[0], &ve) || ve.StatusCode() != status {
				t.Fatalf("got %v, want one error with status %d", errs, status)
			}
			if got := srv.FaultStats().ByStatus[status]; got != 1 {
				t.Errorf("%d requests answered %d, want 1 (a final 4xx is not retried)", got, status)
			}
		})
	}
}

func TestVisit_BreakStopsEverything(t *testing.T) {
	verifyNoLeakAtEnd(t)
	srv, c := newVisitServer(t)
	visitCorpus(t, srv, "ns", 500)
	if err := srv.AddFault(vespatest.FaultRule{Op: vespatest.OpVisit, Rate: 0.5, Fault: vespatest.FaultLatency(20 * time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 8, Parallelism: 4}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 5 {
			break
		}
	}
	if n != 5 {
		t.Fatalf("%d documents", n)
	}
	checkNoVisitGoroutines(t)
}

// checkNoVisitGoroutines fails if any goroutine is still running code of a
// visit, right after its loop has ended (goleak checks the rest later).
func checkNoVisitGoroutines(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, fn := range []string{"vespa.(*Visitor).", "vespa.(*Client).fetchVisitPage", "vespa.(*Client).pageOnce"} {
		if strings.Contains(stacks, fn) {
			t.Errorf("a goroutine still runs %s after the loop:\n%s", fn, stacks)
		}
	}
}

func TestVisit_CancelEndsWithContextError(t *testing.T) {
	verifyNoLeakAtEnd(t)
	srv, c := newVisitServer(t)
	visitCorpus(t, srv, "ns", 100)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var last error
	n := 0
	for _, err := range c.Visit(ctx, vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 4}) {
		if err != nil {
			last = err
			continue
		}
		if n++; n == 3 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", last)
	}
	checkNoVisitGoroutines(t)
}

func TestVisitor_ResumeAtRandomPoints(t *testing.T) {
	srv, c := newVisitServer(t, visitFastRetries)
	want := visitCorpus(t, srv, "ns", 250)
	if err := srv.AddFault(vespatest.FaultRule{Op: vespatest.OpVisit, Rate: 0.1, Fault: vespatest.FaultOverload()}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 4 {
		t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
			got := map[string]int{}
			token := ""
			for leg := 0; ; leg++ {
				if leg > 200 {
					t.Fatal("the visit does not end")
				}
				v, err := c.Visitor(vespa.VisitRequest{
					Namespace: "ns", DocType: "music", Slices: 3, WantedDocumentCount: 1 + rng.IntN(20), ResumeToken: token,
				})
				if err != nil {
					t.Fatal(err)
				}
				stop := 1 + rng.IntN(60)
				n := 0
				for d, err := range v.All(t.Context()) {
					if err != nil {
						t.Fatal(err)
					}
					got[d.ID]++
					if n++; n == stop {
						break
					}
				}
				token = v.ResumeToken()
				if v.Done() {
					break
				}
			}
			checkExactlyOnce(t, got, want)
			// A finished visit's token resumes to nothing.
			if rest := collect(t, c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", ResumeToken: token})); len(rest) != 0 {
				t.Errorf("the finished token yields %d documents", len(rest))
			}
		})
	}
}

func TestVisitor_ResumeAfterError(t *testing.T) {
	srv, c := newVisitServer(t, visitFastRetries)
	want := visitCorpus(t, srv, "ns", 200)
	got := map[string]int{}
	v, err := c.Visitor(vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 2, WantedDocumentCount: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var last error
	for d, err := range v.All(t.Context()) {
		if err != nil {
			last = err
			break
		}
		got[d.ID]++
		if n++; n == 20 {
			// Enough for both workers' pages to fail three times.
			srv.ScriptFaults(vespatest.OpVisit, slices.Repeat([]vespatest.Fault{vespatest.FaultServerError()}, 6)...)
		}
	}
	var ve *vespa.Error
	if !errors.As(last, &ve) || ve.Status != http.StatusInternalServerError {
		t.Fatalf("got %v, want a 500 *Error", last)
	}
	srv.ClearFaults()
	for d, err := range c.Visit(t.Context(), vespa.VisitRequest{Namespace: "ns", DocType: "music", ResumeToken: v.ResumeToken()}) {
		if err != nil {
			t.Fatal(err)
		}
		got[d.ID]++
	}
	checkExactlyOnce(t, got, want)
}

func TestVisitor_SingleUse(t *testing.T) {
	_, c := newVisitServer(t)
	v, err := c.Visitor(vespa.VisitRequest{Namespace: "ns", DocType: "music"})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range v.All(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
	}
	var errs []error
	for d, err := range v.All(t.Context()) {
		if d != nil {
			t.Error("a document from a used Visitor")
		}
		errs = append(errs, err)
	}
	if len(errs) != 1 || errs[0] == nil {
		t.Fatalf("second All yielded %v", errs)
	}
}

func TestVisitor_InvalidRequests(t *testing.T) {
	_, c := newVisitServer(t)
	other, err := c.Visitor(vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 2})
	if err != nil {
		t.Fatal(err)
	}
	token := other.ResumeToken()
	for _, tc := range []struct {
		name  string
		req   vespa.VisitRequest
		token bool // the error matches ErrInvalidResumeToken
	}{
		{"root without cluster", vespa.VisitRequest{}, false},
		{"negative slices", vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: -1}, false},
		{"slice ID out of range", vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 2, SliceIDs: []int{2}}, false},
		{"slice ID twice", vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 2, SliceIDs: []int{1, 1}}, false},
		{"empty slice IDs", vespa.VisitRequest{Namespace: "ns", DocType: "music", SliceIDs: []int{}}, false},
		{"negative wanted count", vespa.VisitRequest{Namespace: "ns", DocType: "music", WantedDocumentCount: -1}, false},
		{"garbage token", vespa.VisitRequest{Namespace: "ns", DocType: "music", ResumeToken: "hello"}, true},
		{"future version", vespa.VisitRequest{Namespace: "ns", DocType: "music", ResumeToken: "v9.abc"}, true},
		{"bad base64", vespa.VisitRequest{Namespace: "ns", DocType: "music", ResumeToken: "v1.!!!"}, true},
		{"token of another selection", vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 2, Selection: "true", ResumeToken: token}, true},
		{"token with other slices", vespa.VisitRequest{Namespace: "ns", DocType: "music", Slices: 3, ResumeToken: token}, true},
		{"token with other slice IDs", vespa.VisitRequest{Namespace: "ns", DocType: "music", SliceIDs: []int{0}, ResumeToken: token}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Visitor(tc.req)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, vespa.ErrInvalidResumeToken); got != tc.token {
				t.Errorf("errors.Is(%v, ErrInvalidResumeToken) = %v", err, got)
			}
			var errs []error
			for d, err := range c.Visit(t.Context(), tc.req) {
				if d != nil {
					t.Error("a document")
				}
				errs = append(errs, err)
			}
			if len(errs) != 1 || errs[0] == nil {
				t.Errorf("Visit yielded %v", errs)
			}
		})
	}
	t.Run("the token's slicing is taken when the request has none", func(t *testing.T) {
		v, err := c.Visitor(vespa.VisitRequest{Namespace: "ns", DocType: "music", ResumeToken: token})
		if err != nil {
			t.Fatal(err)
		}
		if st := v.Stats(); st.Slices != 2 {
			t.Errorf("Slices = %d", st.Slices)
		}
	})
}

func TestDocument_MarshalJSONIsAFeedOperation(t *testing.T) {
	d := &vespa.Document{ID: `id:ns:music::"q"`, Fields: json.RawMessage(`{"a":1}`)}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"put":"id:ns:music::\"q\"","fields":{"a":1}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	id, err := d.DocumentID()
	if err != nil || id.UserSpecific != `"q"` {
		t.Errorf("DocumentID = %v, %v", id, err)
	}
}
