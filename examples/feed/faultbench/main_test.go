package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
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
