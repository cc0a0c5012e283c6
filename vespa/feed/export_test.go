package feed

import "net/http"

// SetTransportForTest makes every connection of f send through rt (counting
// included), for tests that serve the emulator's handler in memory.
func SetTransportForTest(f *Feeder, rt http.RoundTripper) {
	for _, c := range f.conns {
		c.hc.Transport = &countingTransport{base: rt, stats: &f.stats}
	}
}

// IdleWorkersForTest returns the number of workers waiting for work.
func IdleWorkersForTest(f *Feeder) int {
	f.sched.mu.Lock()
	defer f.sched.mu.Unlock()
	return len(f.sched.idle)
}
