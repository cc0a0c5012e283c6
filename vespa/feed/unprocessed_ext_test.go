package feed_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/http2"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/feed"
)

// unprocessedServer answers every request 200 after refusing it, or going
// away below it, the first `refusals` times its path is seen: each refusal
// is a stream the server proves it did not process (RFC 9113 8.7), and the
// transport's own quick resends (5) run out before the last one. applied
// counts the requests answered 200, per path.
func unprocessedServer(t *testing.T, refusals int, goAway bool) (url string, applied func(path string) int) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	done := map[string]int{}
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
		sc.WriteSettings()
		for r := range sc.Requests(nil) {
			path, _, _ := strings.Cut(r.Path, "?") // the query has the time left
			mu.Lock()
			seen[path]++
			refuse := seen[path] <= refusals
			if !refuse {
				done[path]++
			}
			mu.Unlock()
			switch {
			case refuse && goAway:
				_ = sc.Fr.WriteGoAway(max(r.ID, 2)-2, http2.ErrCodeNo, nil)
				sc.Flush()
				return // the connection closes: r was above the last stream
			case refuse:
				_ = sc.Fr.WriteRSTStream(r.ID, http2.ErrCodeRefusedStream)
				sc.Flush()
			default:
				sc.Respond(r.ID, 200, []byte(`{"pathId":"`+path+`","id":"id:ns:music::a"}`))
			}
		}
	})
	return srv.URL, func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return done[path]
	}
}

// TestFeeder_UnprocessedIsResentExactlyOnce checks issue 27 item 6: a
// request that HTTP/2 proves unprocessed (REFUSED_STREAM, or a stream above
// the last one of a GOAWAY) more times than the transport resends it on its
// own is resent under the feeder's policy, and an increment is applied
// once. Before, its error counted as "may have reached Vespa": the update
// failed with ErrNotResent and was applied 0 times.
func TestFeeder_UnprocessedIsResentExactlyOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		goAway bool
	}{{"REFUSED_STREAM", false}, {"above GOAWAY's last stream", true}} {
		t.Run(tc.name, func(t *testing.T) {
			url, applied := unprocessedServer(t, 8, tc.goAway)
			c, err := vespa.NewClient(url, vespa.WithHTTPVersion(vespa.HTTP2))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			f, recorded := recordingFeeder(t, c, feed.Config{Connections: 1})
			ctx := context.Background()
			id := vespa.MustParseDocumentID("id:ns:music::a")
			if err := f.Update(ctx, id, []byte(`{"fields":{"year":{"increment":1}}}`)); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if outcomes := recorded(); len(outcomes) != 1 || outcomes[0].Err != nil {
				t.Fatalf("outcomes = %+v, want one success", outcomes)
			}
			if n := applied("/document/v1/ns/music/docid/a"); n != 1 {
				t.Errorf("the increment was applied %d times, want 1", n)
			}
		})
	}
}

// TestClient_UnprocessedUpdateIsResentExactlyOnce is the same for the sync
// client's Update (issue 27 item 6): before, it failed with the connection
// error and was applied 0 times.
func TestClient_UnprocessedUpdateIsResentExactlyOnce(t *testing.T) {
	url, applied := unprocessedServer(t, 8, false)
	c, err := vespa.NewClient(url, vespa.WithHTTPVersion(vespa.HTTP2))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id := vespa.MustParseDocumentID("id:ns:music::a")
	_, err = c.Update(t.Context(), id, []byte(`{"fields":{"year":{"increment":1}}}`), vespa.OperationOptions{})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if n := applied("/document/v1/ns/music/docid/a"); n != 1 {
		t.Errorf("the increment was applied %d times, want 1", n)
	}
}
