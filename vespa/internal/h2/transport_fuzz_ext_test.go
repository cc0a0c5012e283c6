package h2_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/govespa/govespa/vespa/internal/h2"
)

// FuzzTransport_ServerBytes feeds arbitrary bytes as the server's side of a
// connection: a request must end (with a response or an error) and Close
// must stop every goroutine, whatever the server sends.
func FuzzTransport_ServerBytes(f *testing.F) {
	f.Add(serverSeed(func(fr *http2.Framer, blk []byte) {
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: blk, EndHeaders: true})
		_ = fr.WriteData(1, true, []byte("hello"))
	}))
	f.Add(serverSeed(func(fr *http2.Framer, blk []byte) {
		_ = fr.WritePing(false, [8]byte{1})
		_ = fr.WriteWindowUpdate(0, 1<<30)
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: blk[:1]})
		_ = fr.WriteContinuation(1, true, blk[1:])
		_ = fr.WriteRSTStream(1, http2.ErrCodeInternal)
	}))
	f.Add(serverSeed(func(fr *http2.Framer, blk []byte) {
		_ = fr.WriteGoAway(0, http2.ErrCodeNo, []byte("bye"))
	}))
	f.Add([]byte("HTTP/1.1 200 OK\r\n\r\n"))
	f.Fuzz(func(t *testing.T, server []byte) {
		cli, srv := net.Pipe()
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { // the client's frames, read and dropped
			defer wg.Done()
			_, _ = io.Copy(io.Discard, srv)
		}()
		go func() {
			defer wg.Done()
			_, _ = srv.Write(server)
			time.Sleep(time.Millisecond)
			_ = srv.Close()
		}()
		tr := &h2.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) { return cli, nil }}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://fuzz.example/x", strings.NewReader(`{"fields":{}}`))
		if res, err := tr.RoundTrip(req); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		if ctx.Err() != nil {
			t.Fatal("the request did not end when the connection did")
		}
		_ = tr.Close()
		_ = cli.Close()
		wg.Wait()
	})
}

// serverSeed returns a server preface (SETTINGS) followed by what write
// adds, given an encoded ":status 200" header block.
func serverSeed(write func(fr *http2.Framer, blk []byte)) []byte {
	var buf, hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	_ = enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/json"})
	fr := http2.NewFramer(&buf, nil)
	_ = fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 10})
	_ = fr.WriteSettingsAck()
	write(fr, hb.Bytes())
	return buf.Bytes()
}
