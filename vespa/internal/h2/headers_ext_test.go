package h2_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/internal/h2"
)

// headerServer answers each request with the header fields its path names
// (see the cases below), split into frames of at most split bytes of
// header block, and the body "ok".
func headerServer(t *testing.T, split int, fields map[string][]hpack.HeaderField) *testutil.H2Server {
	return testutil.NewH2Server(t, func(sc *testutil.H2Conn, _ int) {
		sc.WriteSettings()
		for f, r := range sc.Frames() {
			if _, ok := f.(*http2.MetaHeadersFrame); !ok || !r.Ended {
				continue
			}
			sc.EBuf.Reset()
			hf := fields[r.Path]
			for _, f := range hf {
				_ = sc.Enc.WriteField(f)
			}
			blk := sc.EBuf.Bytes()
			first := true
			for first || len(blk) > 0 {
				n := min(split, len(blk))
				frag := blk[:n]
				blk = blk[n:]
				if first {
					_ = sc.Fr.WriteHeaders(http2.HeadersFrameParam{StreamID: r.ID, BlockFragment: frag, EndHeaders: len(blk) == 0})
					first = false
				} else {
					_ = sc.Fr.WriteContinuation(r.ID, len(blk) == 0, frag)
				}
			}
			if r.Path == "/trailers" {
				_ = sc.Fr.WriteData(r.ID, false, []byte("ok"))
				sc.EBuf.Reset()
				_ = sc.Enc.WriteField(hpack.HeaderField{Name: "x-checksum", Value: "abc"})
				_ = sc.Fr.WriteHeaders(http2.HeadersFrameParam{StreamID: r.ID, BlockFragment: sc.EBuf.Bytes(), EndHeaders: true, EndStream: true})
			} else {
				_ = sc.Fr.WriteData(r.ID, true, []byte("ok"))
			}
			sc.Flush()
		}
	})
}

func TestHeaders_DecodedAndChecked(t *testing.T) {
	status := hpack.HeaderField{Name: ":status", Value: "200"}
	long := strings.Repeat("v", 3000)
	fields := map[string][]hpack.HeaderField{
		"/good":     {status, {Name: "content-type", Value: "application/json"}, {Name: "x-a", Value: "1"}, {Name: "x-a", Value: "2"}, {Name: "x-long", Value: long}},
		"/trailers": {status},
		"/upper":    {status, {Name: "X-Upper", Value: "1"}},
		"/path":     {status, {Name: ":path", Value: "/"}},
		"/twice":    {status, status},
		"/late":     {{Name: "x-a", Value: "1"}, status},
		"/nostatus": {{Name: "x-a", Value: "1"}},
		"/value":    {status, {Name: "x-a", Value: "a\x00b"}},
	}
	for _, split := range []int{1 << 14, 7} { // one HEADERS frame, or many CONTINUATIONs
		srv := headerServer(t, split, fields)
		tr := newTransport(t, &h2.Transport{MaxResponseHeaderBytes: 4096 + 400})
		ctx := context.Background()
		for _, path := range []string{"/good", "/upper", "/path", "/twice", "/late", "/nostatus", "/value", "/good", "/trailers"} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
			res, err := tr.RoundTrip(req)
			good := path == "/good" || path == "/trailers"
			if !good {
				var se http2.StreamError
				if err == nil || !errors.As(err, &se) || se.Code != http2.ErrCodeProtocol {
					t.Fatalf("split %d, %s: got %v, %v; want a PROTOCOL_ERROR stream error", split, path, res, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("split %d, %s: %v", split, path, err)
			}
			data, err := io.ReadAll(res.Body)
			_ = res.Body.Close()
			if err != nil || string(data) != "ok" || res.StatusCode != http.StatusOK {
				t.Fatalf("split %d, %s: %d %q %v", split, path, res.StatusCode, data, err)
			}
			if path == "/good" {
				if got := res.Header["X-A"]; len(got) != 2 || got[0] != "1" || got[1] != "2" ||
					res.Header.Get("Content-Type") != "application/json" || res.Header.Get("X-Long") != long {
					t.Fatalf("split %d: headers %v", split, res.Header)
				}
			} else if res.Trailer.Get("X-Checksum") != "abc" {
				t.Fatalf("split %d: trailers %v", split, res.Trailer)
			}
		}
	}
}

func TestHeaders_LargerThanTheLimit(t *testing.T) {
	srv := headerServer(t, 1<<14, map[string][]hpack.HeaderField{
		"/big":  {{Name: ":status", Value: "200"}, {Name: "x-big", Value: strings.Repeat("b", 600)}},
		"/good": {{Name: ":status", Value: "200"}},
	})
	tr := newTransport(t, &h2.Transport{MaxResponseHeaderBytes: 400})
	if _, _, err := get(tr, context.Background(), srv.URL+"/big"); err == nil {
		t.Fatal("headers above MaxResponseHeaderBytes were taken")
	}
	if code, body, err := get(tr, context.Background(), srv.URL+"/good"); err != nil || code != 200 || body != "ok" {
		t.Fatalf("the next request: %d %q %v", code, body, err)
	}
}

func TestHeaders_PathAndContentLengthReachTheServer(t *testing.T) {
	var got atomic.Value
	srv := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got.Store(fmt.Sprintf("%s %s %d %d", r.Method, r.RequestURI, r.ContentLength, len(body)))
	}, nil)
	tr := newTransport(t, nil)
	long := strings.Repeat("%2F", 60) // a path longer than one HPACK length byte
	for _, c := range []struct {
		opaque, query, method string
		body                  int
	}{
		{"/document/v1/ns/t/docid/a%2Fb", "timeout=1000ms&route=x", http.MethodPost, 150},
		{"/document/v1/ns/t/docid/" + long, "", http.MethodPut, 300},
		{"/document/v1/ns/t/docid/c", "", http.MethodDelete, 0},
		{"", "q=1", http.MethodPost, 0}, // not opaque: Path is used
	} {
		u, _ := url.Parse(srv.URL)
		u.Opaque, u.RawQuery = c.opaque, c.query
		if c.opaque == "" {
			u.Path = "/search/"
		}
		req, _ := http.NewRequestWithContext(context.Background(), c.method, u.String(), bytes.NewReader(make([]byte, c.body)))
		req.URL = u
		res, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		want := c.opaque
		if want == "" {
			want = "/search/"
		}
		if c.query != "" {
			want += "?" + c.query
		}
		cl := c.body
		if s := got.Load(); s != fmt.Sprintf("%s %s %d %d", c.method, want, cl, c.body) {
			t.Fatalf("the server saw %q; want %s %s %d %d", s, c.method, want, cl, c.body)
		}
	}
}

// TestHeaders_BlockEndsTheConnection: a header block far above the limit
// (a fragment more than twice what is left of it), or one that goes on in
// a CONTINUATION after a malformed field, is not decoded: the connection
// ends with PROTOCOL_ERROR, and the error names the stream and why. The
// next request gets a connection of its own.
func TestHeaders_BlockEndsTheConnection(t *testing.T) {
	status := hpack.HeaderField{Name: ":status", Value: "200"}
	for _, tc := range []struct {
		name  string
		split int // header block bytes per frame
		limit uint32
		block []hpack.HeaderField
		want  string
	}{
		{"far above the limit", 1 << 14, 100, []hpack.HeaderField{status, {Name: "x-big", Value: strings.Repeat("b", 3000)}},
			"header block of stream 1 is far above the limit of 100 bytes"},
		{"on after a malformed field", 7, 0, []hpack.HeaderField{status, {Name: "x-a", Value: "a\x00b"}, {Name: "x-after", Value: strings.Repeat("c", 40)}},
			`header block of stream 1 goes on after a malformed field: invalid value of header field "x-a"`},
	} {
		srv := headerServer(t, tc.split, map[string][]hpack.HeaderField{"/bad": tc.block, "/good": {status}})
		tr := newTransport(t, &h2.Transport{MaxResponseHeaderBytes: tc.limit})
		_, _, err := get(tr, context.Background(), srv.URL+"/bad")
		var ce *h2.ConnError
		if !errors.As(err, &ce) || !errors.Is(err, http2.ConnectionError(http2.ErrCodeProtocol)) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want a PROTOCOL_ERROR *ConnError saying %q", tc.name, err, tc.want)
		}
		if code, body, err := get(tr, context.Background(), srv.URL+"/good"); err != nil || code != 200 || body != "ok" {
			t.Errorf("%s: the next request: %d %q %v", tc.name, code, body, err)
		}
	}
}
