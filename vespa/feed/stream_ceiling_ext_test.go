package feed_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
)

// A server that lets each connection have 5 streams at once caps the
// adaptive limit at 2 connections × 5, though MaxInflight allows 256 and
// every answer waits 5 ms (where the limit would otherwise grow). Before,
// the limit grew to what MaxInflight allows and the requests beyond the
// streams waited in the transport.
func TestFeeder_LimitIsCappedByTheServersStreams(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(5 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"pathId":%q,"id":"id:ns:music::x"}`, r.URL.Path)
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 5}
	srv.Start()
	defer srv.Close()
	c, err := vespa.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := feed.New(c, feed.Config{Connections: 2, MaxInflight: 256})
	if err != nil {
		t.Fatal(err)
	}
	peak := 0
	for i := range 1500 {
		if err := f.Put(t.Context(), vespa.MustParseDocumentID(fmt.Sprintf("id:ns:music::%d", i)), map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
		peak = max(peak, f.Stats().InflightLimit)
	}
	if err := f.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := f.Stats(); st.Succeeded != 1500 {
		t.Fatalf("stats %+v, want 1500 successes", st)
	}
	if last := f.Stats().InflightLimit; last > 10 {
		t.Errorf("limit %d at the end (peak %d), want at most the 10 streams the server allows", last, peak)
	}
}
