package testutil

import (
	"path"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"
)

// SilentH2Server starts a loopback HTTP/2 server that answers document
// requests 200 (as Vespa answers a put) on every connection but the first,
// which answers `answered` requests and then goes silent: it reads on but
// never answers again (a hung server, or a load balancer that dropped the
// flow), and answers PINGs only when pings is true (a server whose HTTP/2
// layer lives on while its requests hang). conns counts the connections.
func SilentH2Server(t testing.TB, answered int, pings bool) (url string, conns *atomic.Int32) {
	t.Helper()
	conns = new(atomic.Int32)
	srv := NewH2Server(t, func(sc *H2Conn, index int) {
		conns.Add(1)
		sc.WriteSettings()
		answerPing := func(f http2.Frame) {
			if p, ok := f.(*http2.PingFrame); ok && !p.IsAck() && (pings || index > 0) {
				_ = sc.Fr.WritePing(true, p.Data)
				sc.Flush()
			}
		}
		n := 0
		for r := range sc.Requests(answerPing) {
			n++
			if index == 0 && n > answered {
				continue
			}
			p, _, _ := strings.Cut(r.Path, "?")
			sc.Respond(r.ID, 200, []byte(`{"pathId":"`+p+`","id":"id:ns:music::`+path.Base(p)+`"}`))
		}
	})
	return srv.URL, conns
}
