package vespatest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa/vespatest"
)

// doc150 is a put body whose fields are about 150 bytes of JSON.
var doc150 = []byte(`{"fields":{"title":"` + strings.Repeat("t", 60) + `","artist":"` + strings.Repeat("a", 40) + `","year":2015,"n":12345}}`)

// BenchmarkPut measures the emulator's put throughput seen by one client
// feeding sequentially over HTTP/1.1 keep-alive on loopback.
func BenchmarkPut(b *testing.B) {
	s := vespatest.NewServer()
	defer s.Close()
	hc := s.Client()
	base := s.URL() + "/document/v1/ns/music/docid/"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req, _ := http.NewRequestWithContext(b.Context(), http.MethodPost, base+strconv.Itoa(i), bytes.NewReader(doc150))
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
}

// BenchmarkPutHandler measures the handler alone, without the network: the
// emulator's own cost per put.
func BenchmarkPutHandler(b *testing.B) {
	s := vespatest.NewServer()
	defer s.Close()
	benchPutHandler(b, s, [][]byte{doc150})
}

// benchPutHandler puts documents to s's handler, without the network, the
// bodies in turn, and reports puts/s.
func benchPutHandler(b *testing.B, s *vespatest.Server, bodies [][]byte) {
	h := s.Handler()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req := httptest.NewRequest(http.MethodPost, "/document/v1/ns/music/docid/"+strconv.Itoa(i), bytes.NewReader(bodies[i%len(bodies)]))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
}

// TestMemory_oneMillionDocuments stores a million 150-byte documents and
// reports the heap they take. It runs only with VESPATEST_MEMORY=1 and not
// in -short mode, as it takes tens of seconds.
func TestMemory_oneMillionDocuments(t *testing.T) {
	if testing.Short() || os.Getenv("VESPATEST_MEMORY") != "1" {
		t.Skip("set VESPATEST_MEMORY=1 (without -short) to measure one million documents")
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(doc150, &fields)
	body := fields["fields"]
	if len(body) < 140 || len(body) > 160 {
		t.Fatalf("document is %d bytes", len(body))
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	s := vespatest.NewServer()
	defer s.Close()
	const n = 1_000_000
	for i := range n {
		if err := s.PutDocument(fmt.Sprintf("id:mynamespace:music::doc-%d", i), body); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	mb := float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
	t.Logf("%d documents of %d bytes: heap %.0f MB (%.0f bytes per document)", s.DocumentCount(), len(body), mb, mb*(1<<20)/n)
	if mb > 600 {
		t.Errorf("heap %.0f MB, want under 600 MB", mb)
	}
}

func TestHandler_withoutListener(t *testing.T) {
	s := vespatest.NewTestServer(t)
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/document/v1/ns/music/docid/nope", nil))
	if w.Code != http.StatusNotFound || w.Body.String() != `{"pathId":"/document/v1/ns/music/docid/nope","id":"id:ns:music::nope"}` {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}
