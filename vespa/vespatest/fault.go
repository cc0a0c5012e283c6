package vespatest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Operation names the kind of request a fault applies to.
type Operation string

// The operations faults can target. OpAny matches every request to
// /document/v1 and /search/.
const (
	OpAny         Operation = ""
	OpGet         Operation = "get"
	OpPut         Operation = "put"
	OpUpdate      Operation = "update"
	OpRemove      Operation = "remove"
	OpVisit       Operation = "visit"
	OpCopy        Operation = "copy"
	OpUpdateWhere Operation = "update-where"
	OpDeleteWhere Operation = "delete-where"
	OpSearch      Operation = "search"
)

// Fault is what happens to one request instead of (or before) its normal
// handling. The zero Fault does nothing.
type Fault struct {
	// Status, when not zero, is the HTTP status to answer with, in Vespa's
	// JSON envelope for the API hit. 200 means "ignored operation": the write
	// is dropped and answered with X-Vespa-Ignored-Operation: true.
	Status int
	// Message is the error text; empty means a Vespa-like default for Status.
	Message string
	// Backend marks a failure reported by the content backend: the
	// /document/v1 body then carries the document "id" (507, backend 504,
	// 412, rejected 400), which handler-level failures (429, 413, 500) lack.
	Backend bool
	// Latency is added before answering. If it reaches the request's
	// timeout, the answer is Vespa's: on /document/v1 its handler timeout,
	// 504 "Timeout after <n>ms" without an id (the timeout parameter); on
	// /search/ a result with error code 12 "Timed out" and status 504, the
	// query's timeout being its timeout parameter, the YQL timeout
	// annotation or Vespa's default of 500 ms.
	Latency time.Duration
	// Drop closes the connection without an answer (HTTP/1.1) or resets the
	// stream (HTTP/2).
	Drop bool
}

func (f Fault) zero() bool { return f == Fault{} }

// FaultOverload is Vespa's 429 when its operation queue is full.
func FaultOverload() Fault {
	return Fault{Status: http.StatusTooManyRequests, Message: "Rejecting execution due to overload: 256 requests already enqueued"}
}

// FaultUnavailable is the 503 JDisc answers when it has no free worker.
func FaultUnavailable() Fault {
	return Fault{Status: http.StatusServiceUnavailable, Message: "Service Unavailable: no available handler threads"}
}

// FaultTimeout is a 504 reported by the backend (the body carries the id).
func FaultTimeout() Fault {
	return Fault{Status: http.StatusGatewayTimeout, Message: "Timed out waiting for the content backend", Backend: true}
}

// FaultInsufficientStorage is the 507 of a feed-blocked content cluster.
func FaultInsufficientStorage() Fault {
	return Fault{Status: http.StatusInsufficientStorage, Backend: true,
		Message: "[INSUFFICIENT_STORAGE @ localhost]: External feed is blocked due to resource exhaustion: disk on node 0 [vespatest] is above limit (0.900 > 0.800)"}
}

// FaultServerError is a 500 from a fatal dispatch error.
func FaultServerError() Fault {
	return Fault{Status: http.StatusInternalServerError, Message: "[FATAL_ERROR @ localhost]: injected fault"}
}

// FaultLatency delays the answer by d.
func FaultLatency(d time.Duration) Fault { return Fault{Latency: d} }

// FaultDrop closes the connection without an answer.
func FaultDrop() Fault { return Fault{Drop: true} }

// FaultIgnored answers 200 with X-Vespa-Ignored-Operation: true and drops the write.
func FaultIgnored() Fault { return Fault{Status: http.StatusOK} }

// FaultRule injects a Fault into matching requests, at random at Rate.
type FaultRule struct {
	// Op restricts the rule to one operation; OpAny matches all.
	Op Operation
	// Path restricts the rule to raw request paths with this prefix; empty matches all.
	Path string
	// Rate is the probability, in [0, 1], that a matching request gets the fault.
	Rate float64
	// Times caps the number of injections; 0 means no cap.
	Times int
	// Fault is what to inject.
	Fault Fault
}

func (r FaultRule) validate() error {
	if r.Rate < 0 || r.Rate > 1 {
		return fmt.Errorf("vespatest: fault rate %v is outside [0, 1]", r.Rate)
	}
	if r.Times < 0 {
		return fmt.Errorf("vespatest: fault Times %d is negative", r.Times)
	}
	if r.Fault.Status != 0 && (r.Fault.Status < 200 || r.Fault.Status > 599) {
		return fmt.Errorf("vespatest: fault status %d is not an HTTP status", r.Fault.Status)
	}
	return nil
}

// FaultStats counts what was injected.
type FaultStats struct {
	// ByStatus counts injected statuses.
	ByStatus map[int]int
	// Dropped counts dropped connections.
	Dropped int
	// Delayed counts requests given added latency.
	Delayed int
	// Total counts requests that got any fault.
	Total int
}

type scripted struct {
	op     Operation
	faults []Fault
}

type faultSet struct {
	mu      sync.Mutex
	rng     *rand.Rand
	rules   []*ruleState
	scripts []*scripted
	stats   FaultStats
}

type ruleState struct {
	FaultRule
	used int
}

func newFaultSet(seed uint64) *faultSet {
	return &faultSet{rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), stats: FaultStats{ByStatus: map[int]int{}}}
}

func (fs *faultSet) add(r FaultRule) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.rules = append(fs.rules, &ruleState{FaultRule: r})
}

// pick chooses the fault for one request, if any, and counts it.
func (fs *faultSet) pick(op Operation, path string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, sc := range fs.scripts {
		if sc.op != OpAny && sc.op != op {
			continue
		}
		f := sc.faults[0]
		sc.faults = sc.faults[1:]
		if len(sc.faults) == 0 {
			fs.scripts = append(fs.scripts[:i:i], fs.scripts[i+1:]...)
		}
		if f.zero() {
			return Fault{}, false
		}
		fs.count(f)
		return f, true
	}
	for _, r := range fs.rules {
		if r.Op != OpAny && r.Op != op || !strings.HasPrefix(path, r.Path) {
			continue
		}
		if r.Times > 0 && r.used >= r.Times {
			continue
		}
		if r.Rate < 1 && fs.rng.Float64() >= r.Rate {
			continue
		}
		r.used++
		fs.count(r.Fault)
		return r.Fault, true
	}
	return Fault{}, false
}

func (fs *faultSet) count(f Fault) {
	fs.stats.Total++
	if f.Status != 0 {
		fs.stats.ByStatus[f.Status]++
	}
	if f.Drop {
		fs.stats.Dropped++
	}
	if f.Latency > 0 {
		fs.stats.Delayed++
	}
}

// AddFault installs a fault rule. Rules are tried in the order added, after
// scripted faults; the first that fires wins.
func (s *Server) AddFault(r FaultRule) error {
	if err := r.validate(); err != nil {
		return err
	}
	s.faults.add(r)
	return nil
}

// ScriptFaults queues faults for the next requests of op (OpAny: any
// operation), one fault per request, in order. A zero Fault in the list lets
// that request through untouched. Scripts run before rules.
func (s *Server) ScriptFaults(op Operation, faults ...Fault) {
	if len(faults) == 0 {
		return
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.scripts = append(s.faults.scripts, &scripted{op: op, faults: append([]Fault(nil), faults...)})
}

// ClearFaults removes every rule and script. Counters are kept.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.rules, s.faults.scripts = nil, nil
}

// FaultStats returns a copy of the injection counters.
func (s *Server) FaultStats() FaultStats {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	st := s.faults.stats
	st.ByStatus = make(map[int]int, len(s.faults.stats.ByStatus))
	for k, v := range s.faults.stats.ByStatus {
		st.ByStatus[k] = v
	}
	return st
}

// faultOutcome tells the caller what is left to do after a fault ran.
type faultOutcome int

const (
	faultNone    faultOutcome = iota // handle the request normally
	faultIgnored                     // answer success, skip the write
	faultStatus                      // answer with the fault's status
	faultTimeout                     // answer with the handler timeout
	faultDone                        // the connection is gone
)

// runFault sleeps and drops as f says; timeout is the request's timeout.
func runFault(ctx context.Context, w http.ResponseWriter, r *http.Request, f Fault, timeout time.Duration) faultOutcome {
	if f.Latency > 0 {
		wait := f.Latency
		timedOut := timeout > 0 && wait >= timeout
		if timedOut {
			wait = timeout
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return faultDone
		case <-t.C:
		}
		if timedOut {
			return faultTimeout
		}
	}
	if f.Drop {
		dropConnection(w, r)
		return faultDone
	}
	switch {
	case f.Status == http.StatusOK:
		return faultIgnored
	case f.Status != 0:
		return faultStatus
	}
	return faultNone
}

// dropConnection ends the exchange without an answer.
func dropConnection(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 1 {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close() // dropping the connection is the fault: nothing to report
			return
		}
	}
	panic(http.ErrAbortHandler)
}

func defaultFaultMessage(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return FaultOverload().Message
	case http.StatusServiceUnavailable:
		return FaultUnavailable().Message
	case http.StatusGatewayTimeout:
		return FaultTimeout().Message
	case http.StatusInsufficientStorage:
		return FaultInsufficientStorage().Message
	case http.StatusInternalServerError:
		return FaultServerError().Message
	}
	return "vespatest: injected " + http.StatusText(status)
}
