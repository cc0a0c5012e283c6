package feed

import (
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/govespa/govespa/vespa"
)

// Stats is a snapshot of a feeder's counters, taken by [Feeder.Stats]. Counts
// of operations count each operation once, whatever its attempts; counts of
// responses count every HTTP response.
type Stats struct {
	// Operations is the number of operations that have an outcome
	// (Succeeded + Failed, skipped ones excluded).
	Operations int64
	// Succeeded counts operations that got a 2xx.
	Succeeded int64
	// Failed counts operations that did not succeed, cancelled ones and
	// malformed feed-file lines included.
	Failed int64
	// Cancelled counts the failed operations that were cancelled.
	Cancelled int64
	// Skipped counts operations not sent because the journal holds them.
	Skipped int64
	// Pending is the number of operations accepted and not yet finished.
	Pending int64
	// Inflight is the number of operations being sent now (attempts in
	// flight).
	Inflight int64
	// Waiting is the number of operations parked before their next attempt;
	// they hold no in-flight slot.
	Waiting int64
	// InflightLimit is the adaptive limit in force.
	InflightLimit int

	// FailuresByStatus counts failed operations by the HTTP status of their
	// last response; 0 means no response (transport failure, malformed
	// line, cancellation).
	FailuresByStatus map[int]int64
	// OutcomesByStatus counts finished operations by the status of their
	// last response (successes included); operations without a response are
	// left out.
	OutcomesByStatus map[int]int64
	// ResponsesByStatus counts every HTTP response by status.
	ResponsesByStatus map[int]int64
	// Requests counts requests sent (attempts).
	Requests int64
	// Retries counts retries by reason: "429", "503", "504", "transport",
	// and "other" for statuses that a custom [Config.Retries] retries.
	Retries map[string]int64
	// JournalMismatches counts operations fed again because the journal's
	// record at their place differs from their content (see [Journal]).
	JournalMismatches int64

	// BytesSent and BytesReceived count request and response body bytes on
	// the wire (after compression).
	BytesSent int64
	// BytesReceived counts response body bytes; see BytesSent.
	BytesReceived int64

	// Latency describes the time from an operation's first attempt to its
	// outcome, over the operations that were sent.
	Latency LatencyStats
	// Elapsed is the time since the first operation was enqueued.
	Elapsed time.Duration
	// Throughput is Succeeded per second over Elapsed.
	Throughput float64
}

// LatencyStats summarises latencies. Percentiles come from a log-scale
// histogram and are accurate to about 6 %.
type LatencyStats struct {
	// Min is the shortest latency.
	Min time.Duration
	// Avg is the mean latency.
	Avg time.Duration
	// P50 is the median latency.
	P50 time.Duration
	// P99 is the 99th-percentile latency.
	P99 time.Duration
	// Max is the longest latency.
	Max time.Duration
}

// Retry reasons.
const (
	reason429 = iota
	reason503
	reason504
	reasonTransport
	reasonOther
	numReasons
)

var reasonNames = [numReasons]string{"429", "503", "504", "transport", "other"}

// maxStatus bounds the statuses counted one by one; others count as 0.
const maxStatus = 600

// histogram is a lock-free log-linear histogram of durations in
// microseconds: 8 sub-buckets per power of two.
type histogram struct {
	counts [64 * 8]atomic.Int64
	sum    atomic.Int64 // microseconds
	n      atomic.Int64
	min    atomic.Int64 // microseconds+1; 0 means none
	max    atomic.Int64
}

func histIndex(us int64) int {
	if us < 8 {
		return int(us)
	}
	b := bits.Len64(uint64(us)) - 1 // 3 ≤ b ≤ 62
	sub := int(us>>(b-3)) & 7
	return (b-2)*8 + sub
}

// histLow returns the smallest value of bucket i.
func histLow(i int) int64 {
	if i < 8 {
		return int64(i)
	}
	b := i/8 + 2
	return (8 + int64(i%8)) << (b - 3)
}

func (h *histogram) record(d time.Duration) {
	us := max(int64(d/time.Microsecond), 0)
	h.counts[histIndex(us)].Add(1)
	h.sum.Add(us)
	h.n.Add(1)
	for {
		m := h.min.Load()
		if (m != 0 && m-1 <= us) || h.min.CompareAndSwap(m, us+1) {
			break
		}
	}
	for {
		m := h.max.Load()
		if m >= us || h.max.CompareAndSwap(m, us) {
			break
		}
	}
}

func (h *histogram) snapshot() LatencyStats {
	n := h.n.Load()
	if n == 0 {
		return LatencyStats{}
	}
	us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
	lo, hi := h.min.Load()-1, h.max.Load()
	s := LatencyStats{Min: us(lo), Max: us(hi), Avg: us(h.sum.Load() / n)}
	quantile := func(q float64) time.Duration {
		rank := int64(q*float64(n-1)) + 1
		var seen int64
		for i := range h.counts {
			seen += h.counts[i].Load()
			if seen >= rank {
				mid := (histLow(i) + histLow(i+1)) / 2
				return us(max(lo, min(hi, mid)))
			}
		}
		return us(hi)
	}
	s.P50, s.P99 = quantile(0.50), quantile(0.99)
	return s
}

// collector holds a feeder's live counters.
type collector struct {
	started           atomic.Int64 // unix nanos of the first enqueue; 0: none yet
	succeeded         atomic.Int64
	failed            atomic.Int64
	cancelled         atomic.Int64
	skipped           atomic.Int64
	inflight          atomic.Int64
	waiting           atomic.Int64
	journalMismatches atomic.Int64
	requests          atomic.Int64
	bytesOut          atomic.Int64
	bytesIn           atomic.Int64
	failures          [maxStatus]atomic.Int64
	outcomes          [maxStatus]atomic.Int64
	responses         [maxStatus]atomic.Int64
	retries           [numReasons]atomic.Int64
	latency           histogram
}

func statusIndex(s int) int {
	if s < 0 || s >= maxStatus {
		return 0
	}
	return s
}

func (c *collector) start() {
	if c.started.Load() == 0 {
		c.started.CompareAndSwap(0, time.Now().UnixNano())
	}
}

// retried counts a retry of the outcome (r, err) of an attempt.
func (c *collector) retried(r *vespa.Result, err error) {
	reason := reasonTransport
	if r != nil {
		switch r.Status {
		case 429:
			reason = reason429
		case 503:
			reason = reason503
		case 504:
			reason = reason504
		default:
			reason = reasonOther
		}
	}
	c.retries[reason].Add(1)
}

// outcome counts a finished operation.
func (c *collector) outcome(o *Outcome, sent bool) {
	switch {
	case o.Skipped:
		c.skipped.Add(1)
		return
	case o.Err == nil:
		c.succeeded.Add(1)
	default:
		c.failed.Add(1)
		c.failures[statusIndex(o.Status)].Add(1)
		if o.Cancelled() {
			c.cancelled.Add(1)
		}
	}
	if o.Status != 0 {
		c.outcomes[statusIndex(o.Status)].Add(1)
	}
	if sent {
		c.latency.record(o.Latency)
	}
}

func countMap(a []atomic.Int64) map[int]int64 {
	m := map[int]int64{}
	for i := range a {
		if v := a[i].Load(); v != 0 {
			m[i] = v
		}
	}
	return m
}

func (c *collector) snapshot() Stats {
	s := Stats{
		Succeeded:         c.succeeded.Load(),
		Failed:            c.failed.Load(),
		Cancelled:         c.cancelled.Load(),
		Skipped:           c.skipped.Load(),
		Inflight:          c.inflight.Load(),
		Waiting:           c.waiting.Load(),
		JournalMismatches: c.journalMismatches.Load(),
		Requests:          c.requests.Load(),
		BytesSent:         c.bytesOut.Load(),
		BytesReceived:     c.bytesIn.Load(),
		FailuresByStatus:  countMap(c.failures[:]),
		OutcomesByStatus:  countMap(c.outcomes[:]),
		ResponsesByStatus: countMap(c.responses[:]),
		Retries:           map[string]int64{},
		Latency:           c.latency.snapshot(),
	}
	s.Operations = s.Succeeded + s.Failed
	for i := range c.retries {
		if v := c.retries[i].Load(); v != 0 {
			s.Retries[reasonNames[i]] = v
		}
	}
	if t := c.started.Load(); t != 0 {
		s.Elapsed = time.Since(time.Unix(0, t))
		if s.Elapsed > 0 {
			s.Throughput = float64(s.Succeeded) / s.Elapsed.Seconds()
		}
	}
	return s
}
