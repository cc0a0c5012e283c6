package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
)

func TestProgressLine(t *testing.T) {
	if progressLine(&bytes.Buffer{}) != nil {
		t.Fatal("a progress line on a buffer, which is not a terminal")
	}
	var buf bytes.Buffer
	p := &progress{w: &buf}
	p.clear() // nothing shown yet: nothing to clear
	if buf.Len() != 0 {
		t.Fatalf("clear before show wrote %q", buf.String())
	}
	p.show(vespa.VisitProgress{Stats: vespa.VisitStats{Documents: 1500, SlicesDone: 3, Slices: 8, PercentFinished: 37.5}, DocumentsPerSecond: 750, ETA: 3*time.Second + 300*time.Millisecond})
	want := "visit: 1500 documents, 750/s, 3 of 8 slices, 37.5%, 3s left"
	if got := buf.String(); !strings.HasPrefix(got, "\r") || !strings.HasSuffix(got, want) {
		t.Fatalf("progress line %q, want it to overwrite the line with %q", got, want)
	}
	buf.Reset()
	p.clear()
	if buf.String() != "\r\033[K" {
		t.Fatalf("clear wrote %q", buf.String())
	}
}
