package testutil

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

// H2Server is an HTTP/2 server written frame by frame, to misbehave in
// ways Go's server does not: each accepted connection runs serve, with its
// index (0 for the first connection).
type H2Server struct {
	// URL is the server's http:// address.
	URL string
	ln  net.Listener
	wg  sync.WaitGroup
	mu  sync.Mutex
	ncs []net.Conn
}

// NewH2Server starts it on loopback and stops it, and every connection, when
// tb ends.
func NewH2Server(tb testing.TB, serve func(sc *H2Conn, index int)) *H2Server {
	tb.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(tb.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &H2Server{URL: "http://" + ln.Addr().String(), ln: ln}
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
				defer func() { _ = nc.Close() }()
				sc := newH2Conn(tb, nc)
				if err := sc.handshake(); err != nil {
					return
				}
				serve(sc, i)
			}()
		}
	}()
	tb.Cleanup(func() {
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

// H2Conn is the server side of one connection.
type H2Conn struct {
	T       testing.TB
	NC      net.Conn
	BW      *bufio.Writer
	Fr      *http2.Framer
	Enc     *hpack.Encoder
	EBuf    bytes.Buffer
	Window  int64 // the server's initial stream window (its SETTINGS)
	ConnWin int64 // connection window left for the client
	Reqs    map[uint32]*H2Request
	Acked   bool // the client acknowledged our SETTINGS
}

func newH2Conn(tb testing.TB, nc net.Conn) *H2Conn {
	sc := &H2Conn{T: tb, NC: nc, BW: bufio.NewWriter(nc), Window: 65535, ConnWin: 65535, Reqs: map[uint32]*H2Request{}}
	sc.Fr = http2.NewFramer(sc.BW, bufio.NewReader(nc))
	sc.Fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	sc.Enc = hpack.NewEncoder(&sc.EBuf)
	return sc
}

// handshake reads the client preface.
func (sc *H2Conn) handshake() error {
	buf := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(sc.NC, buf); err != nil {
		return err
	}
	if string(buf) != http2.ClientPreface {
		return errors.New("bad preface")
	}
	return nil
}

// WriteSettings sends SETTINGS and flushes.
func (sc *H2Conn) WriteSettings(settings ...http2.Setting) {
	for _, st := range settings {
		if st.ID == http2.SettingInitialWindowSize {
			sc.Window = int64(st.Val)
		}
	}
	_ = sc.Fr.WriteSettings(settings...)
	sc.Flush()
}

// Flush writes what is buffered.
func (sc *H2Conn) Flush() { _ = sc.BW.Flush() }

// Respond writes a response of status with body and END_STREAM.
func (sc *H2Conn) Respond(id uint32, status int, body []byte) {
	sc.EBuf.Reset()
	_ = sc.Enc.WriteField(hpack.HeaderField{Name: ":status", Value: strconv.Itoa(status)})
	_ = sc.Enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/json"})
	_ = sc.Fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: sc.EBuf.Bytes(), EndHeaders: true, EndStream: len(body) == 0})
	if len(body) > 0 {
		_ = sc.Fr.WriteData(id, true, body)
	}
	sc.Flush()
}

// H2Request is what the raw server saw of one stream.
type H2Request struct {
	ID     uint32
	Path   string
	Body   []byte
	Ended  bool  // the client's END_STREAM
	Window int64 // stream window left for the client
}

// Next reads the next frame, acknowledging the client's SETTINGS on its own
// and checking the client against the windows: overrunning them is an
// error of the test. It returns the request the frame belongs to, if any.
func (sc *H2Conn) Next() (http2.Frame, *H2Request, error) {
	for {
		f, err := sc.Fr.ReadFrame()
		if err != nil {
			return nil, nil, err
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				sc.Acked = true
				return f, nil, nil
			}
			_ = sc.Fr.WriteSettingsAck()
			sc.Flush()
			continue
		case *http2.MetaHeadersFrame:
			r := &H2Request{ID: f.StreamID, Path: f.PseudoValue("path"), Ended: f.StreamEnded(), Window: sc.Window}
			sc.Reqs[f.StreamID] = r
			return f, r, nil
		case *http2.DataFrame:
			r := sc.Reqs[f.StreamID]
			if r == nil {
				continue // a stream the test forgot
			}
			n := int64(f.Length)
			r.Window -= n
			sc.ConnWin -= n
			if r.Window < 0 || sc.ConnWin < 0 {
				sc.T.Errorf("the client overran the windows on stream %d: stream %d, connection %d", r.ID, r.Window, sc.ConnWin)
			}
			r.Body = append(r.Body, f.Data()...)
			r.Ended = f.StreamEnded()
			return f, r, nil
		default:
			return f, sc.Reqs[f.Header().StreamID], nil
		}
	}
}

// Frames yields what Next returns until it fails (the connection ended).
func (sc *H2Conn) Frames() iter.Seq2[http2.Frame, *H2Request] {
	return func(yield func(http2.Frame, *H2Request) bool) {
		for {
			f, r, err := sc.Next()
			if err != nil || !yield(f, r) {
				return
			}
		}
	}
}

// Requests yields each request once, when it is complete (its HEADERS or
// DATA carried the client's END_STREAM), until the connection ends; every
// other frame goes to other, if not nil.
func (sc *H2Conn) Requests(other func(http2.Frame)) iter.Seq[*H2Request] {
	return func(yield func(*H2Request) bool) {
		for f, r := range sc.Frames() {
			switch f.(type) {
			case *http2.MetaHeadersFrame, *http2.DataFrame:
				if r.Ended {
					if !yield(r) {
						return
					}
					continue
				}
			}
			if other != nil {
				other(f)
			}
		}
	}
}

// Grant returns n bytes of window to the client, for r and the connection.
func (sc *H2Conn) Grant(r *H2Request, n uint32) {
	_ = sc.Fr.WriteWindowUpdate(r.ID, n)
	_ = sc.Fr.WriteWindowUpdate(0, n)
	r.Window += int64(n)
	sc.ConnWin += int64(n)
	sc.Flush()
}
