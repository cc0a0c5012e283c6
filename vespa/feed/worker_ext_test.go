package feed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
	"github.com/govespa/govespa/vespa/vespatest"
)

// hangingServer answers nothing until the request's context ends, and
// counts the requests it got.
func hangingServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := testutil.H2CServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		<-r.Context().Done()
	}))
	return srv.URL, &n
}

func TestFeeder_AnAttemptEndsAtTheOperationDeadline(t *testing.T) {
	url, _ := hangingServer(t)
	const timeout = 400 * time.Millisecond
	var rec recorder
	f, err := feed.New(newClient(t, url), feed.Config{OperationTimeout: timeout, OnOutcome: rec.record})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := range 20 {
		id := vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: "d" + string(rune('a'+i))}
		if err := f.Put(context.Background(), id, map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Close(ctx); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	all := rec.outcomes()
	if len(all) != 20 {
		t.Fatalf("%d outcomes, want 20", len(all))
	}
	for _, o := range all {
		if o.OK() || !errors.Is(o.Err, context.DeadlineExceeded) {
			t.Fatalf("outcome %+v: want a failure matching context.DeadlineExceeded", o)
		}
		// The attempt is given up at most timeout/16 after the deadline;
		// the margin is the machine's.
		if o.Latency < timeout || o.Latency > timeout+timeout/16+2*time.Second {
			t.Fatalf("latency %v for a deadline of %v", o.Latency, timeout)
		}
	}
	if took > timeout+3*time.Second {
		t.Fatalf("the feed took %v for a deadline of %v", took, timeout)
	}
}

func TestFeeder_CancellingOneEnqueueContextLeavesTheOthersAttempts(t *testing.T) {
	var got atomic.Int64
	srv := testutil.H2CServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		select {
		case <-time.After(300 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"pathId":"/document/v1/ns/music/docid/x","id":"id:ns:music::x"}`))
	}))

	var rec recorder
	// One connection and one worker at a time at most four: the attempts
	// of both contexts go through the same few workers.
	f, err := feed.New(newClient(t, srv.URL), feed.Config{Connections: 1, MinInflight: 4, MaxInflight: 4, OnOutcome: rec.record})
	if err != nil {
		t.Fatal(err)
	}
	doomed, cancelDoomed := context.WithCancel(context.Background())
	defer cancelDoomed()
	kept := context.Background()
	for i := range 16 {
		ctx := kept
		if i%2 == 0 {
			ctx = doomed
		}
		id := vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: "d" + string(rune('a'+i))}
		if err := f.Put(ctx, id, map[string]any{"n": i}); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if i == 5 {
			time.Sleep(50 * time.Millisecond) // attempts of both contexts in flight
			cancelDoomed()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Close(ctx); err != nil {
		t.Fatal(err)
	}
	okKept := 0
	for _, o := range rec.outcomes() {
		odd := (o.Operation.ID.UserSpecific[1]-'a')%2 == 1
		switch {
		case odd && !o.OK():
			t.Fatalf("an operation of the context that was not cancelled failed: %+v", o)
		case odd:
			okKept++
		case !o.OK() && !errors.Is(o.Err, context.Canceled):
			t.Fatalf("an operation of the cancelled context failed otherwise: %+v", o)
		}
	}
	if okKept != 8 {
		t.Fatalf("%d operations of the kept context succeeded, want 8", okKept)
	}
}

func TestFeeder_IdleWorkersEndAfterASecondAndReturnOnWork(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	synctest.Test(t, func(t *testing.T) {
		f := newMemFeeder(t, srv, feed.Config{Connections: 1, MinInflight: 8, MaxInflight: 8})
		defer func() { _ = f.Close(context.Background()) }() // ends the workers if a check fails
		put := func(n int) {
			for i := range n {
				id := vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: fmt.Sprintf("d%d", i)}
				if err := f.Put(t.Context(), id, map[string]any{"n": i}); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		put(40)
		// At most 8 send at once; a worker delivering an outcome is off
		// the window, and another may start meanwhile.
		if n := feed.IdleWorkersForTest(f); n == 0 || n > 16 {
			t.Fatalf("%d idle workers after a feed with 8 in flight", n)
		}
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		if n := feed.IdleWorkersForTest(f); n == 0 {
			t.Fatal("idle workers ended before their second")
		}
		time.Sleep(600 * time.Millisecond)
		synctest.Wait()
		if n := feed.IdleWorkersForTest(f); n != 0 {
			t.Fatalf("%d idle workers after more than a second", n)
		}
		put(40) // new workers take the work
		if s := f.Stats(); s.Succeeded != 80 {
			t.Fatalf("stats %+v", s)
		}
		if err := f.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := feed.IdleWorkersForTest(f); n != 0 {
			t.Fatalf("%d idle workers after Close", n)
		}
	})
}
