package h2_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/internal/h2"
	"github.com/govespa/govespa/vespa/retries"
)

// get sends a GET and returns the status and body, or the error.
func get(rt http.RoundTripper, ctx context.Context, url string) (int, string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	res, err := rt.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res.StatusCode, string(data), err
}

// TestRaw_TinyWindowsOneStream: the server allows one stream at a time and a
// 16-byte window per stream, and reads slowly. Streams the client opened
// before it knew (before it acknowledged the SETTINGS) are refused, and
// must be sent again; after that, a second open stream or an overrun window
// is an error of the client.
func TestRaw_TinyWindowsOneStream(t *testing.T) {
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
		sc.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 1},
			http2.Setting{ID: http2.SettingInitialWindowSize, Val: 16})
		open := 0
		for f, r := range sc.Frames() {
			switch f.(type) {
			case *http2.MetaHeadersFrame:
				open++
				if open > 1 {
					if sc.Acked {
						sc.T.Errorf("stream %d opened while another is open, after SETTINGS MAX_CONCURRENT_STREAMS 1", r.ID)
					}
					_ = sc.Fr.WriteRSTStream(r.ID, http2.ErrCodeRefusedStream)
					sc.Flush()
					delete(sc.Reqs, r.ID)
					open--
					continue
				}
			case *http2.DataFrame:
				time.Sleep(50 * time.Microsecond) // a slow reader
				if !r.Ended {
					sc.Grant(r, 16)
				}
			case *http2.RSTStreamFrame:
				if r != nil {
					delete(sc.Reqs, r.ID)
					open--
				}
				continue
			default:
				continue
			}
			if r != nil && r.Ended {
				sc.Respond(r.ID, 200, []byte(strconv.Itoa(len(r.Body))+" "+string(r.Body[:8])))
				delete(sc.Reqs, r.ID)
				open--
			}
		}
	})
	tr := newTransport(t, nil)
	parallel(20, func(i int) {
		body := []byte(fmt.Sprintf("%08d", i) + string(bytes.Repeat([]byte("b"), 1000)))
		res, data := post(t, tr, srv.URL+"/p", body)
		if res.StatusCode != http.StatusOK || string(data) != fmt.Sprintf("1008 %08d", i) {
			t.Errorf("request %d: %d %q", i, res.StatusCode, data)
		}
	})
}

// TestRaw_GoAwayMidFeed: the first connection takes six requests, sends
// GOAWAY with the third as the last it processes, answers those three and
// closes. The others must be sent again on a new connection, and the three
// must not be.
func TestRaw_GoAwayMidFeed(t *testing.T) {
	var mu sync.Mutex
	answered := map[string]int{}
	answer := func(sc *testutil.H2Conn, r *testutil.H2Request) {
		mu.Lock()
		answered[r.Path]++
		mu.Unlock()
		sc.Respond(r.ID, 200, []byte(r.Path))
	}
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, index int) {
		sc.WriteSettings()
		var seen []*testutil.H2Request
		for f, r := range sc.Frames() {
			if _, ok := f.(*http2.MetaHeadersFrame); !ok || !r.Ended {
				continue
			}
			if index > 0 {
				answer(sc, r)
				continue
			}
			seen = append(seen, r)
			if len(seen) == 6 {
				_ = sc.Fr.WriteGoAway(seen[2].ID, http2.ErrCodeNo, []byte("going away"))
				sc.Flush()
				for _, r := range seen[:3] {
					answer(sc, r)
				}
				time.Sleep(20 * time.Millisecond)
				return
			}
		}
	})
	tr := newTransport(t, nil)
	parallel(12, func(i int) {
		path := "/doc/" + strconv.Itoa(i)
		code, data, err := get(tr, context.Background(), srv.URL+path)
		if err != nil || code != 200 || data != path {
			t.Errorf("%s: %d %q %v", path, code, data, err)
		}
	})
	if len(answered) != 12 {
		t.Errorf("%d paths answered, want 12", len(answered))
	}
	for p, n := range answered {
		if n != 1 {
			t.Errorf("%s answered %d times", p, n)
		}
	}
}

// TestRaw_Resets: REFUSED_STREAM is sent again by the transport; any other
// reset fails the request with an http2.StreamError that the retry policy
// classifies as a connection error.
func TestRaw_Resets(t *testing.T) {
	var refused atomic.Int32
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
		sc.WriteSettings()
		for f, r := range sc.Frames() {
			if _, ok := f.(*http2.MetaHeadersFrame); !ok {
				continue
			}
			switch {
			case r.Path == "/refuse-once" && refused.Add(1) == 1:
				_ = sc.Fr.WriteRSTStream(r.ID, http2.ErrCodeRefusedStream)
				sc.Flush()
			case r.Path == "/reset":
				_ = sc.Fr.WriteRSTStream(r.ID, http2.ErrCodeInternal)
				sc.Flush()
			default:
				sc.Respond(r.ID, 200, []byte("ok"))
			}
		}
	})
	tr := newTransport(t, nil)
	if code, _, err := get(tr, context.Background(), srv.URL+"/refuse-once"); err != nil || code != 200 {
		t.Errorf("refused once: %d %v, want 200", code, err)
	}
	if refused.Load() != 2 {
		t.Errorf("the refused request was sent %d times, want 2", refused.Load())
	}
	_, _, err := get(tr, context.Background(), srv.URL+"/reset")
	var se http2.StreamError
	if !errors.As(err, &se) || se.Code != http2.ErrCodeInternal {
		t.Fatalf("reset: err = %v, want a StreamError INTERNAL_ERROR", err)
	}
	if !retries.IsConnectionError(err) {
		t.Errorf("IsConnectionError(%v) = false", err)
	}
	// The connection goes on.
	if code, _, err := get(tr, context.Background(), srv.URL+"/after"); err != nil || code != 200 {
		t.Errorf("after the reset: %d %v", code, err)
	}
}

// TestRaw_ConnectionLost: the server takes three requests and drops the
// connection. Each fails with a connection error the retry policy sees,
// none is sent again by the transport, and the next request dials anew.
func TestRaw_ConnectionLost(t *testing.T) {
	var headers atomic.Int32
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, index int) {
		sc.WriteSettings()
		n := 0
		for f, r := range sc.Frames() {
			if _, ok := f.(*http2.MetaHeadersFrame); !ok {
				continue
			}
			headers.Add(1)
			if index > 0 {
				sc.Respond(r.ID, 200, nil)
				continue
			}
			if n++; n == 3 {
				return // closes the connection
			}
		}
	})
	tr := newTransport(t, nil)
	parallel(3, func(_ int) {
		_, _, err := get(tr, context.Background(), srv.URL+"/x")
		var ce *h2.ConnError
		if !errors.As(err, &ce) || !errors.Is(err, io.ErrUnexpectedEOF) || !retries.IsConnectionError(err) {
			t.Errorf("err = %v, want a *ConnError that is a connection error", err)
		}
		if errors.Is(err, h2.ErrNotProcessed) {
			t.Errorf("err = %v: a request the server received is not 'not processed'", err)
		}
	})
	if n := headers.Load(); n != 3 {
		t.Errorf("the server saw %d requests, want 3 (none sent again)", n)
	}
	if code, _, err := get(tr, context.Background(), srv.URL+"/y"); err != nil || code != 200 {
		t.Errorf("after the loss: %d %v", code, err)
	}
}

// TestRaw_PingAndCancel: a PING is answered with its payload; a request
// whose context ends is reset with CANCEL.
func TestRaw_PingAndCancel(t *testing.T) {
	pong := make(chan [8]byte, 1)
	reset := make(chan http2.ErrCode, 1)
	gotHeaders := make(chan struct{})
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
		sc.WriteSettings()
		_ = sc.Fr.WritePing(false, [8]byte{1, 2, 3, 4, 5, 6, 7, 8})
		sc.Flush()
		for f := range sc.Frames() {
			switch f := f.(type) {
			case *http2.PingFrame:
				if f.IsAck() {
					pong <- f.Data
				}
			case *http2.MetaHeadersFrame:
				close(gotHeaders)
			case *http2.RSTStreamFrame:
				reset <- f.ErrCode
			}
		}
	})
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, _, err := get(tr, ctx, srv.URL+"/never")
		errc <- err
	}()
	<-gotHeaders
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if code := within(t, reset, "no RST_STREAM after the cancel"); code != http2.ErrCodeCancel {
		t.Errorf("RST_STREAM %v, want CANCEL", code)
	}
	if d := within(t, pong, "no PING ACK"); d != [8]byte{1, 2, 3, 4, 5, 6, 7, 8} {
		t.Errorf("PING ACK %v", d)
	}
}

// TestRaw_AnswerBeforeBody: the server grants no window and answers on the
// headers. RoundTrip returns the answer and the client ends its side with
// RST_STREAM, without ever sending the body.
func TestRaw_AnswerBeforeBody(t *testing.T) {
	reset := make(chan struct{}, 1)
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
		sc.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})
		for f, r := range sc.Frames() {
			switch f.(type) {
			case *http2.MetaHeadersFrame:
				sc.Respond(r.ID, 413, []byte("too large"))
			case *http2.DataFrame:
				sc.T.Errorf("DATA on a zero window")
			case *http2.RSTStreamFrame:
				reset <- struct{}{}
			}
		}
	})
	tr := newTransport(t, nil)
	body := bytes.Repeat([]byte("z"), 10_000)
	res, data := post(t, tr, srv.URL+"/big", body)
	if res.StatusCode != http.StatusRequestEntityTooLarge || string(data) != "too large" {
		t.Errorf("%d %q", res.StatusCode, data)
	}
	within(t, reset, "no RST_STREAM for the unsent body")
}

// TestRaw_StopsReading: the server grants large windows and then stops
// reading while a large body is on its way. Cancelling the request must
// end RoundTrip at once, though the writer stays blocked on the socket.
func TestRaw_StopsReading(t *testing.T) {
	release := make(chan struct{})
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
		sc.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 30})
		_ = sc.Fr.WriteWindowUpdate(0, 1<<30)
		sc.Flush()
		for f := range sc.Frames() {
			if _, ok := f.(*http2.MetaHeadersFrame); ok {
				<-release // stop reading
				return
			}
		}
	})
	defer close(release)
	tr := &h2.Transport{}
	defer func() {
		_ = tr.Close()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/big", bytes.NewReader(make([]byte, 64<<20)))
	errc := goRoundTrip(tr, req)
	time.Sleep(200 * time.Millisecond) // the socket buffers fill
	cancel()
	if err := within(t, errc, "RoundTrip did not return after the cancel"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestRaw_PaddedData: the server pads every DATA frame of a long answer,
// 255 bytes of padding to one of data, more padding in all than a stream's
// window. Padding counts against the windows, so the client must credit it
// back to the stream as well as to the connection, or the server overruns
// the stream window and the stream fails.
func TestRaw_PaddedData(t *testing.T) {
	const frames = 5000 // 5000 × 256 bytes: more than the 1 MiB stream window
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
		for f, r := range sc.Frames() {
			if _, ok := f.(*http2.MetaHeadersFrame); !ok {
				continue
			}
			sc.EBuf.Reset()
			_ = sc.Enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
			_ = sc.Fr.WriteHeaders(http2.HeadersFrameParam{StreamID: r.ID, BlockFragment: sc.EBuf.Bytes(), EndHeaders: true})
			pad := make([]byte, 255)
			for i := range frames {
				_ = sc.Fr.WriteDataPadded(r.ID, i == frames-1, []byte{'x'}, pad)
			}
			sc.Flush()
		}
	})
	tr := newTransport(t, nil)
	status, body, err := get(tr, t.Context(), srv.URL+"/padded")
	if err != nil || status != http.StatusOK || len(body) != frames {
		t.Fatalf("status %d, %d bytes, error %v; want 200, %d bytes", status, len(body), err, frames)
	}
}

// TestRaw_ContentLengthNotOfTheBody: the content-length of an answer to HEAD,
// and of a 204 or 304, is not of a body that follows (RFC 9110 §8.6): no DATA
// is no malformed response there, while a GET answered the same is one
// (issue 27 item 11).
func TestRaw_ContentLengthNotOfTheBody(t *testing.T) {
	srv := testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
		sc.WriteSettings()
		for r := range sc.Requests(nil) {
			status := 200
			if s, err := strconv.Atoi(strings.TrimPrefix(r.Path, "/")); err == nil {
				status = s
			}
			sc.EBuf.Reset()
			_ = sc.Enc.WriteField(hpack.HeaderField{Name: ":status", Value: strconv.Itoa(status)})
			_ = sc.Enc.WriteField(hpack.HeaderField{Name: "content-length", Value: "42"})
			_ = sc.Fr.WriteHeaders(http2.HeadersFrameParam{StreamID: r.ID, BlockFragment: sc.EBuf.Bytes(), EndHeaders: true, EndStream: true})
			sc.Flush()
		}
	})
	tr := newTransport(t, nil)
	for _, tc := range []struct {
		method, path string
		malformed    bool
	}{
		{http.MethodHead, "/200", false},
		{http.MethodGet, "/204", false},
		{http.MethodGet, "/304", false},
		{http.MethodGet, "/200", true},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), tc.method, srv.URL+tc.path, nil)
		res, err := tr.RoundTrip(req)
		if err == nil {
			_, err = io.ReadAll(res.Body)
			_ = res.Body.Close()
		}
		if got := errors.Is(err, retries.ErrProtocolViolation); got != tc.malformed {
			t.Errorf("%s %s: error %v; malformed %v, want %v", tc.method, tc.path, err, got, tc.malformed)
		}
	}
}
