package feed

import (
	"context"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// Close's wait for the workers includes the idle-worker reaper: a reaper
// that has fired, and waits for the schedule's lock, is waited for too,
// so that no goroutine of the feeder outlives Close.
func TestClose_WaitsForAFiredReaper(t *testing.T) {
	client, err := vespa.NewClient(vespatest.NewTestServer(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	f, err := New(client, Config{Connections: 1, MinInflight: 1, MaxInflight: 1})
	if err != nil {
		t.Fatal(err)
	}
	id := vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: "d0"}
	if err := f.Put(t.Context(), id, map[string]any{"n": 0}); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := &f.sched
	// Close's own steps, with the lock held while the reaper fires: it then
	// waits for the lock.
	s.mu.Lock()
	for deadline := time.Now().Add(10 * time.Second); !s.reaperArmed || len(s.idle) == 0; {
		if time.Now().After(deadline) {
			s.mu.Unlock()
			t.Fatal("no worker went idle")
		}
		s.mu.Unlock()
		time.Sleep(time.Millisecond)
		s.mu.Lock()
	}
	time.Sleep(workerIdleTime + 200*time.Millisecond)
	f.endIdleLocked()
	waited := make(chan struct{})
	go func() { defer close(waited); s.wg.Wait() }()
	select {
	case <-waited:
		s.mu.Unlock()
		t.Fatal("the wait for the workers ended before the fired reaper ran")
	case <-time.After(200 * time.Millisecond): // the idle worker has ended by now
	}
	s.mu.Unlock()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the wait for the workers did not end once the reaper could run")
	}
	s.mu.Lock()
	armed := s.reaperArmed
	s.mu.Unlock()
	if armed {
		t.Error("the reaper is still armed after the wait")
	}
	if err := f.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
