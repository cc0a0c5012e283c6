package h2_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"iter"
	"net"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// rawServer is an HTTP/2 server written frame by frame, to misbehave in
// ways Go's server does not: each accepted connection runs serve, with its
// index (0 for the first connection).
type rawServer struct {
	url string
	ln  net.Listener
	wg  sync.WaitGroup
	mu  sync.Mutex
	ncs []net.Conn
}

func newRawServer(t *testing.T, serve func(sc *rawConn, index int)) *rawServer {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{url: "http://" + ln.Addr().String(), ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for i := 0; ; i++ {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.ncs = append(s.ncs, nc)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer nc.Close()
				sc := newRawConn(t, nc)
				if err := sc.handshake(); err != nil {
					return
				}
				serve(sc, i)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		s.mu.Lock()
		for _, nc := range s.ncs {
			_ = nc.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

// rawConn is the server side of one connection.
type rawConn struct {
	t       *testing.T
	nc      net.Conn
	bw      *bufio.Writer
	fr      *http2.Framer
	enc     *hpack.Encoder
	ebuf    bytes.Buffer
	window  int64 // the server's initial stream window (its SETTINGS)
	connWin int64 // connection window left for the client
	reqs    map[uint32]*request
	acked   bool // the client acknowledged our SETTINGS
}

func newRawConn(t *testing.T, nc net.Conn) *rawConn {
	sc := &rawConn{t: t, nc: nc, bw: bufio.NewWriter(nc), window: 65535, connWin: 65535, reqs: map[uint32]*request{}}
	sc.fr = http2.NewFramer(sc.bw, bufio.NewReader(nc))
	sc.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	sc.enc = hpack.NewEncoder(&sc.ebuf)
	return sc
}

// handshake reads the client preface.
func (sc *rawConn) handshake() error {
	buf := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(sc.nc, buf); err != nil {
		return err
	}
	if string(buf) != http2.ClientPreface {
		return errors.New("bad preface")
	}
	return nil
}

// writeSettings sends SETTINGS and flushes.
func (sc *rawConn) writeSettings(settings ...http2.Setting) {
	for _, st := range settings {
		if st.ID == http2.SettingInitialWindowSize {
			sc.window = int64(st.Val)
		}
	}
	_ = sc.fr.WriteSettings(settings...)
	sc.flush()
}

func (sc *rawConn) flush() { _ = sc.bw.Flush() }

// respond writes a 200 with body and END_STREAM.
func (sc *rawConn) respond(id uint32, status int, body []byte) {
	sc.ebuf.Reset()
	_ = sc.enc.WriteField(hpack.HeaderField{Name: ":status", Value: strconv.Itoa(status)})
	_ = sc.enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/json"})
	_ = sc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: sc.ebuf.Bytes(), EndHeaders: true, EndStream: len(body) == 0})
	if len(body) > 0 {
		_ = sc.fr.WriteData(id, true, body)
	}
	sc.flush()
}

// request is what the raw server saw of one stream.
type request struct {
	id     uint32
	path   string
	body   []byte
	ended  bool  // the client's END_STREAM
	window int64 // stream window left for the client
}

// next reads the next frame, acknowledging the client's SETTINGS on its own
// and checking the client against the windows: overrunning them is an
// error of the test. It returns the request the frame belongs to, if any.
func (sc *rawConn) next() (http2.Frame, *request, error) {
	for {
		f, err := sc.fr.ReadFrame()
		if err != nil {
			return nil, nil, err
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				sc.acked = true
				return f, nil, nil
			}
			_ = sc.fr.WriteSettingsAck()
			sc.flush()
			continue
		case *http2.MetaHeadersFrame:
			r := &request{id: f.StreamID, path: f.PseudoValue("path"), ended: f.StreamEnded(), window: sc.window}
			sc.reqs[f.StreamID] = r
			return f, r, nil
		case *http2.DataFrame:
			r := sc.reqs[f.StreamID]
			if r == nil {
				continue // a stream the test forgot
			}
			n := int64(f.Length)
			r.window -= n
			sc.connWin -= n
			if r.window < 0 || sc.connWin < 0 {
				sc.t.Errorf("the client overran the windows on stream %d: stream %d, connection %d", r.id, r.window, sc.connWin)
			}
			r.body = append(r.body, f.Data()...)
			r.ended = f.StreamEnded()
			return f, r, nil
		default:
			return f, sc.reqs[f.Header().StreamID], nil
		}
	}
}

// frames yields what next returns until it fails (the connection ended).
func (sc *rawConn) frames() iter.Seq2[http2.Frame, *request] {
	return func(yield func(http2.Frame, *request) bool) {
		for {
			f, r, err := sc.next()
			if err != nil || !yield(f, r) {
				return
			}
		}
	}
}

// grant returns n bytes of window to the client, for r and the connection.
func (sc *rawConn) grant(r *request, n uint32) {
	_ = sc.fr.WriteWindowUpdate(r.id, n)
	_ = sc.fr.WriteWindowUpdate(0, n)
	r.window += int64(n)
	sc.connWin += int64(n)
	sc.flush()
}
