package feed

import "time"

// Progress is what [Config.Progress] is told about a feed.
type Progress struct {
	// Stats are the feeder's counters now.
	Stats Stats
	// Elapsed is the time since the feeder was created.
	Elapsed time.Duration
	// OperationsPerSecond is the operations with an outcome (and skipped
	// ones) over Elapsed.
	OperationsPerSecond float64
	// ETA is the time left at the pace so far, from
	// [Config.ExpectedOperations]; zero when that is not set, before any
	// outcome, and once every expected operation has one.
	ETA time.Duration
	// Final is set on the last call, made by [Feeder.Close].
	Final bool
}

// defaultProgressInterval is the time between two Progress calls when
// Config.ProgressInterval is zero.
const defaultProgressInterval = time.Second

// reporter calls Config.Progress on a goroutine of its own.
type reporter struct {
	start time.Time
	stop  chan struct{} // closed by Close
	done  chan struct{} // closed once the final call returned
}

// startReporter starts f's reporter, if Config.Progress is set.
func (f *Feeder) startReporter() {
	if f.cfg.Progress == nil {
		return
	}
	every := f.cfg.ProgressInterval
	if every <= 0 {
		every = defaultProgressInterval
	}
	r := &reporter{start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	f.reporter = r
	go func() {
		defer close(r.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				f.cfg.Progress(f.progress(false))
			case <-r.stop:
				f.cfg.Progress(f.progress(true))
				return
			}
		}
	}()
}

// stopReporter makes the final Progress call and waits for it.
func (f *Feeder) stopReporter() {
	if r := f.reporter; r != nil {
		close(r.stop)
		<-r.done
	}
}

func (f *Feeder) progress(final bool) Progress {
	st := f.Stats()
	p := Progress{Stats: st, Elapsed: time.Since(f.reporter.start), Final: final}
	done := st.Operations + st.Skipped
	if secs := p.Elapsed.Seconds(); secs > 0 {
		p.OperationsPerSecond = float64(done) / secs
	}
	if left := f.cfg.ExpectedOperations - done; left > 0 && p.OperationsPerSecond > 0 && !final {
		p.ETA = time.Duration(float64(left) / p.OperationsPerSecond * float64(time.Second))
	}
	return p
}
