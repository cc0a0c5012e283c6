package main

import (
	"fmt"
	"io"
	"time"

	"golang.org/x/term"

	"github.com/govespa/govespa/vespa"
)

// progress writes one line of progress over itself on a terminal.
type progress struct {
	w     io.Writer
	shown bool
}

// progressLine returns a progress line for w when w is a terminal, else nil.
func progressLine(w io.Writer) *progress {
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) { //nolint:gosec // a file descriptor fits an int
		return &progress{w: w}
	}
	return nil
}

func (p *progress) show(vp vespa.VisitProgress) {
	s := fmt.Sprintf("visit: %d documents, %.0f/s, %d of %d slices", vp.Stats.Documents, vp.DocumentsPerSecond, vp.Stats.SlicesDone, vp.Stats.Slices)
	if vp.Stats.PercentFinished > 0 {
		s += fmt.Sprintf(", %.1f%%", vp.Stats.PercentFinished)
	}
	if vp.ETA > 0 {
		s += fmt.Sprintf(", %v left", vp.ETA.Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r\033[K%s", s)
	p.shown = true
}

// clear removes the line, so that the summary starts on a clean one.
func (p *progress) clear() {
	if p != nil && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
