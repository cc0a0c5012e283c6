package testutil

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
)

func TestShortAnswerServer(t *testing.T) {
	url := ShortAnswerServer(t, 1<<30, `{"a":`)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url+"/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength != 1<<30 || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("answer %d, Content-Length %d, Content-Type %q", resp.StatusCode, resp.ContentLength, resp.Header.Get("Content-Type"))
	}
	b, err := io.ReadAll(resp.Body)
	if string(b) != `{"a":` || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("body %q, %v; want the 5 bytes sent, then an unexpected EOF", b, err)
	}
}

func TestAllocatedBy(t *testing.T) {
	var keep []byte
	got := AllocatedBy(func() { keep = make([]byte, 4<<20) })
	if got < 4<<20 || len(keep) != 4<<20 {
		t.Errorf("AllocatedBy a 4 MiB make = %d bytes", got)
	}
}
