package vespa

import (
	"time"
)

// VisitProgress is what [VisitRequest.Progress] is told about a visit.
type VisitProgress struct {
	// Stats are the visit's counters so far.
	Stats VisitStats
	// Elapsed is the time since the visit started.
	Elapsed time.Duration
	// DocumentsPerSecond is Stats.Documents over Elapsed.
	DocumentsPerSecond float64
	// ETA is the time left, estimated from Stats.PercentFinished at the pace
	// so far; zero while nothing says how far the visit is (Vespa reports
	// percentFinished on streamed pages only, [VisitRequest.Stream], and a
	// slice counts once it is finished).
	ETA time.Duration
	// Done reports whether every slice is finished: the last call of a
	// visit that completed.
	Done bool
}

// defaultProgressInterval is the least time between two Progress calls
// when VisitRequest.ProgressInterval is zero.
const defaultProgressInterval = time.Second

// visitReporter calls VisitRequest.Progress on the loop's goroutine.
type visitReporter struct {
	v     *Visitor
	start time.Time
	t     *time.Ticker
}

func (v *Visitor) newReporter() *visitReporter {
	r := &visitReporter{v: v, start: time.Now()}
	if v.req.Progress != nil {
		every := v.req.ProgressInterval
		if every <= 0 {
			every = defaultProgressInterval
		}
		r.t = time.NewTicker(every)
	}
	return r
}

// tick is the ticker's channel, or nil (never ready) without Progress.
func (r *visitReporter) tick() <-chan time.Time {
	if r.t == nil {
		return nil
	}
	return r.t.C
}

func (r *visitReporter) report() {
	st := r.v.Stats()
	p := VisitProgress{Stats: st, Elapsed: time.Since(r.start), Done: st.Slices > 0 && st.SlicesDone == st.Slices}
	if secs := p.Elapsed.Seconds(); secs > 0 {
		p.DocumentsPerSecond = float64(st.Documents) / secs
	}
	if pc := st.PercentFinished; pc > 0 && pc < 100 {
		p.ETA = time.Duration(float64(p.Elapsed) * (100 - pc) / pc)
	}
	r.v.req.Progress(p)
}

// finish stops the ticker and reports once more.
func (r *visitReporter) finish() {
	if r.t == nil {
		return
	}
	r.t.Stop()
	r.report()
}

// checkpoint calls VisitRequest.Checkpoint after a page was delivered.
func (v *Visitor) checkpoint() {
	if v.req.Checkpoint == nil {
		return
	}
	v.mu.Lock()
	token := v.progress.encode()
	v.mu.Unlock()
	v.req.Checkpoint(token, v.Stats())
}
