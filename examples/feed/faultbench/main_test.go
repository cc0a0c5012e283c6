package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The fault server stores each document once, over HTTP/1.1, and answers
// with the faults its mode asks for.
func TestServer_StoresOnceAndInjectsFaults(t *testing.T) {
	for _, c := range []struct {
		o          options
		status     int
		stored     int64
		got429     int64
		got503     int64
		wantPrefix string
	}{
		{o: options{mode: "none"}, status: http.StatusOK, stored: 2, wantPrefix: `{"pathId":`},
		{o: options{mode: "sparse", p429: 1}, status: http.StatusTooManyRequests, got429: 3, wantPrefix: `{"pathId":`},
		{o: options{mode: "sparse", p503: 1}, status: http.StatusServiceUnavailable, got503: 3, wantPrefix: `{"pathId":`},
	} {
		s, err := startServer(t.Context(), c.o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.stop) // also when a check fails; a second stop does nothing
		for _, key := range []string{"d0", "d1", "d0"} {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.url+"/document/v1/ns/music/docid/"+key, strings.NewReader(`{"fields":{}}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body bytes.Buffer
			_, _ = body.ReadFrom(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != c.status || !strings.HasPrefix(body.String(), c.wantPrefix) {
				t.Errorf("%s %s: %s %q, want %d", c.o.mode, key, resp.Status, body.String(), c.status)
			}
		}
		http.DefaultClient.CloseIdleConnections()
		s.stop()
		if s.stored.Load() != c.stored || s.got429.Load() != c.got429 || s.got503.Load() != c.got503 || s.requests.Load() != 3 {
			t.Errorf("%+v: stored %d, 429s %d, 503s %d, requests %d", c.o, s.stored.Load(), s.got429.Load(), s.got503.Load(), s.requests.Load())
		}
		s.reset()
		if s.stored.Load() != 0 || s.requests.Load() != 0 {
			t.Errorf("reset left stored %d, requests %d", s.stored.Load(), s.requests.Load())
		}
	}
}

func TestDocID(t *testing.T) {
	for path, want := range map[string]string{
		"/document/v1/ns/music/docid/d7": "id:ns:music::d7",
		"/document/v1/ns/music/docid":    "/document/v1/ns/music/docid",
	} {
		if got := docID(path); got != want {
			t.Errorf("docID(%q) = %q, want %q", path, got, want)
		}
	}
}

// -mode all runs the pace, each latency, capacity and sparse, and its table
// shows the latency rows against the pace.
func TestModeAll_RunsAndTable(t *testing.T) {
	o, err := parseFlags([]string{"-cli", "vespa", "-mode", "all", "-latencies", "20ms, 50ms"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range modesOfAll(o) {
		got = append(got, fmt.Sprintf("%s/%v", m.mode, m.latency))
	}
	if want := "none/0s none/20ms none/50ms capacity/0s sparse/0s"; strings.Join(got, " ") != want {
		t.Errorf("runs %v, want %s", got, want)
	}
	if _, err := parseFlags([]string{"-cli", "vespa", "-latencies", "20"}, io.Discard); err == nil || !strings.Contains(err.Error(), `"20"`) {
		t.Errorf("-latencies 20: %v, want an error naming it", err)
	}
	var b strings.Builder
	err = writeTable(&b, []summary{
		{Mode: "none", Ours: 20000, Theirs: 10000, Ratio: 2, AllStored: true},
		{Mode: "none", Latency: 50 * time.Millisecond, Ours: 10000, Theirs: 4000, Ratio: 2.5, AllStored: true},
		{Mode: "capacity", Ours: 9000, Theirs: 6000, Ratio: 1.5, Ours429: 80, Theirs429: 120, AllStored: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| none | 50ms | 10000 | 4000 | 2.50× | 0.50× |", "| capacity | 0s | 9000 | 6000 | 1.50× | — | 80 / 120 | true |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
