package feedrig

import (
	"context"
	"io"
	"net"
	"net/http"
	"time"
)

// Serve serves h on a free loopback port over HTTP/1.1 and h2c (HTTP/2
// without TLS, as the feed command and Vespa's CLI speak to a plain
// endpoint) and returns its URL, http://127.0.0.1:<port>, and stop. stop
// shuts the server down, giving requests in flight at most 5 seconds even
// when ctx has ended, and returns once the server has stopped.
func Serve(ctx context.Context, h http.Handler) (url string, stop func(), err error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, Protocols: new(http.Protocols)}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	stop = func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// putAnswer is Vespa's answer to a put.
const putAnswer = `{"pathId":"/document/v1/ns/music/docid/d0","id":"id:ns:music::d0"}`

// Sink answers every request at once with 200 and Vespa's answer to a put,
// after reading the request's body: the fastest /document/v1 there can be.
var Sink http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, putAnswer)
})
