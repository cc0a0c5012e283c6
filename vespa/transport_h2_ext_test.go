package vespa_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/internal/h2"
	"github.com/govespa/govespa/vespa/vespatest"
)

// countingRT counts the requests through it.
type countingRT struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (c *countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(r)
}

// TestHTTP2Transport_Selection: HTTP/2 alone goes through the batching
// transport unless net/http's is chosen, the other versions through
// net/http, and the transport wrapper sees the requests of all of them.
func TestHTTP2Transport_Selection(t *testing.T) {
	srv := vespatest.NewServer()
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name string
		opts []vespa.Option
		want string
	}{
		{"HTTP2 default", []vespa.Option{vespa.WithHTTPVersion(vespa.HTTP2)}, fmt.Sprintf("%T", &h2.Transport{})},
		{"HTTP2 net/http", []vespa.Option{vespa.WithHTTPVersion(vespa.HTTP2), vespa.WithHTTP2Transport(vespa.HTTP2NetHTTP)}, "*http.Transport"},
		{"auto", nil, "*http.Transport"},
		{"HTTP1", []vespa.Option{vespa.WithHTTPVersion(vespa.HTTP1)}, "*http.Transport"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bases []string
			var wrapped []*countingRT
			wrap := vespa.WithTransportWrapper(func(base http.RoundTripper) http.RoundTripper {
				bases = append(bases, fmt.Sprintf("%T", base))
				w := &countingRT{base: base}
				wrapped = append(wrapped, w)
				return w
			})
			c := newTestClient(t, srv.URL(), append(tc.opts, wrap)...)
			id := vespa.DocumentID{Namespace: "ns", DocType: "music", UserSpecific: "a"}
			if _, err := c.Put(context.Background(), id, []byte(`{"title":"Yellow"}`), vespa.OperationOptions{}); err != nil {
				t.Fatal(err)
			}
			hc := c.NewHTTPClient()
			r, err := c.SendOnce(context.Background(), hc, vespa.OpPut, id, []byte(`{"fields":{"title":"Clocks"}}`), vespa.OperationOptions{})
			if err != nil || r.Status != http.StatusOK {
				t.Fatalf("SendOnce: %v %v", r, err)
			}
			for _, b := range bases {
				if b != tc.want {
					t.Errorf("base transport %s, want %s", b, tc.want)
				}
			}
			var n int64
			for _, w := range wrapped {
				n += w.n.Load()
			}
			if n != 2 {
				t.Errorf("the wrappers saw %d requests, want 2", n)
			}
		})
	}
}

func TestWithHTTP2Transport_Unknown(t *testing.T) {
	if _, err := vespa.NewClient("http://localhost:8080", vespa.WithHTTP2Transport(7)); err == nil {
		t.Fatal("no error for an unknown HTTP/2 transport")
	}
}
