// Package fault holds the emulator's injected failures: what a fault is, the
// rules and scripts that pick one for a request, and how one is run.
package fault

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
// /document/v1 and /search/; OpDeploy (the config server's prepare) is
// matched only by faults that name it.
const (
	OpAny         = Operation("")
	OpGet         = Operation("get")
	OpPut         = Operation("put")
	OpUpdate      = Operation("update")
	OpRemove      = Operation("remove")
	OpVisit       = Operation("visit")
	OpCopy        = Operation("copy")
	OpUpdateWhere = Operation("update-where")
	OpDeleteWhere = Operation("delete-where")
	OpSearch      = Operation("search")
	OpDeploy      = Operation("deploy")
)

// Fault is what happens to one request instead of (or before) its normal
// handling. The zero Fault does nothing. Its fields are documented on
// vespatest.Fault, which converts to it as it is.
type Fault struct {
	Status      int    // 200: an ignored operation
	Message     string // empty: a Vespa-like default for Status
	Backend     bool   // the /document/v1 body carries the document id
	Latency     time.Duration
	Drop        bool
	SoftTimeout bool
	Covered     float64
	ErrorCode   string // the config server's error-code; empty: Status's own
}

func (f Fault) zero() bool { return f == Fault{} }

// Overload is Vespa's 429 when its operation queue is full.
func Overload() Fault {
	return Fault{Status: http.StatusTooManyRequests, Message: "Rejecting execution due to overload: 256 requests already enqueued"}
}

// Unavailable is the 503 JDisc answers when it has no free worker.
func Unavailable() Fault {
	return Fault{Status: http.StatusServiceUnavailable, Message: "Service Unavailable: no available handler threads"}
}

// Timeout is a 504 reported by the backend (the body carries the id).
func Timeout() Fault {
	return Fault{Status: http.StatusGatewayTimeout, Message: "Timed out waiting for the content backend", Backend: true}
}

// InsufficientStorage is the 507 of a feed-blocked content cluster.
func InsufficientStorage() Fault {
	return Fault{Status: http.StatusInsufficientStorage, Backend: true,
		Message: "[INSUFFICIENT_STORAGE @ localhost]: External feed is blocked due to resource exhaustion: disk on node 0 [vespatest] is above limit (0.900 > 0.800)"}
}

// ServerError is a 500 from a fatal dispatch error.
func ServerError() Fault {
	return Fault{Status: http.StatusInternalServerError, Message: "[FATAL_ERROR @ localhost]: injected fault"}
}

// Latency delays the answer by d.
func Latency(d time.Duration) Fault { return Fault{Latency: d} }

// Drop closes the connection without an answer.
func Drop() Fault { return Fault{Drop: true} }

// InvalidApplicationPackage is the config server's refusal of a package
// whose models fail to build: 400 INVALID_APPLICATION_PACKAGE with
// "Invalid application: <detail>" (ModelsBuilder, HttpErrorResponse).
func InvalidApplicationPackage(detail string) Fault {
	return Fault{Status: http.StatusBadRequest, ErrorCode: "INVALID_APPLICATION_PACKAGE", Message: "Invalid application: " + detail}
}

// SoftTimeout is a content node whose soft timeout ends matching after it
// covered the fraction covered of the corpus.
func SoftTimeout(covered float64) Fault { return Fault{SoftTimeout: true, Covered: covered} }

// Ignored answers 200 with X-Vespa-Ignored-Operation: true and drops the write.
func Ignored() Fault { return Fault{Status: http.StatusOK} }

// Rule injects a Fault into matching requests, at random at Rate.
type Rule struct {
	// Op restricts the rule to one operation; OpAny matches all.
	Op Operation
	// Path restricts the rule to raw request paths with this prefix; empty matches all.
	Path string
	// Rate is the probability, in (0, 1], that a matching request gets the
	// fault. Rate 0 (a rule that would never fire) is refused by AddFault
	// and WithFaults; Rate 1 fires on every matching request.
	Rate float64
	// Times caps the number of injections; 0 means no cap.
	Times int
	// Fault is what to inject.
	Fault Fault
}

func (r Rule) Validate() error {
	if r.Rate <= 0 || r.Rate > 1 {
		// A rule of rate 0 would never fire: most likely a forgotten Rate,
		// which a test would take for a fault it survived.
		return fmt.Errorf("vespatest: fault rate %v is outside (0, 1]; use Rate 1 for a fault on every matching request (with Times to cap it)", r.Rate)
	}
	if r.Times < 0 {
		return fmt.Errorf("vespatest: fault Times %d is negative", r.Times)
	}
	if r.Fault.Covered < 0 || r.Fault.Covered > 1 {
		return fmt.Errorf("vespatest: fault Covered %v is outside [0, 1]", r.Fault.Covered)
	}
	if r.Fault.Status != 0 && (r.Fault.Status < 200 || r.Fault.Status > 599) {
		return fmt.Errorf("vespatest: fault status %d is not an HTTP status", r.Fault.Status)
	}
	return nil
}

// Stats counts what was injected.
type Stats struct {
	// ByStatus counts injected statuses.
	ByStatus map[int]int
	// Dropped counts dropped connections.
	Dropped int
	// Delayed counts requests given added latency.
	Delayed int
	// Total counts requests that got any fault.
	Total int
}

type Scripted struct {
	Op     Operation
	Faults []Fault
}

type Set struct {
	Mu      sync.Mutex
	rng     *rand.Rand
	Rules   []*ruleState
	Scripts []*Scripted
	Stats   Stats
}

type ruleState struct {
	Rule
	used int
}

func NewSet(seed uint64) *Set {
	return &Set{rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), Stats: Stats{ByStatus: map[int]int{}}}
}

func (fs *Set) Add(r Rule) {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	fs.Rules = append(fs.Rules, &ruleState{Rule: r})
}

// Pick chooses the fault for one request, if any, and counts it.
func (fs *Set) Pick(op Operation, path string) (Fault, bool) {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	for i, sc := range fs.Scripts {
		if sc.Op != op && (sc.Op != OpAny || op == OpDeploy) {
			continue
		}
		f := sc.Faults[0]
		sc.Faults = sc.Faults[1:]
		if len(sc.Faults) == 0 {
			fs.Scripts = append(fs.Scripts[:i:i], fs.Scripts[i+1:]...)
		}
		if f.zero() {
			return Fault{}, false
		}
		fs.count(f)
		return f, true
	}
	for _, r := range fs.Rules {
		if r.Op != op && (r.Op != OpAny || op == OpDeploy) || !strings.HasPrefix(path, r.Path) {
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

func (fs *Set) count(f Fault) {
	fs.Stats.Total++
	if f.Status != 0 {
		fs.Stats.ByStatus[f.Status]++
	}
	if f.Drop {
		fs.Stats.Dropped++
	}
	if f.Latency > 0 {
		fs.Stats.Delayed++
	}
}

// Outcome tells the caller what is left to do after a fault ran.
type Outcome int

// The outcomes of [Run].
const (
	OutcomeNone    Outcome = iota // handle the request normally
	OutcomeIgnored                // answer success, skip the write
	OutcomeStatus                 // answer with the fault's status
	OutcomeTimeout                // answer with the handler timeout
	OutcomeDone                   // the connection is gone
)

// runFault sleeps and drops as f says; timeout is the request's timeout.
func Run(ctx context.Context, w http.ResponseWriter, r *http.Request, f Fault, timeout time.Duration) Outcome {
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
			return OutcomeDone
		case <-t.C:
		}
		if timedOut {
			return OutcomeTimeout
		}
	}
	if f.Drop {
		dropConnection(w, r)
		return OutcomeDone
	}
	switch {
	case f.Status == http.StatusOK:
		return OutcomeIgnored
	case f.Status != 0:
		return OutcomeStatus
	}
	return OutcomeNone
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

// MessageOf is the error text of f: its Message, or when that is empty a
// Vespa-like message for its Status.
func MessageOf(f Fault) string {
	if f.Message != "" {
		return f.Message
	}
	switch f.Status {
	case http.StatusTooManyRequests:
		return Overload().Message
	case http.StatusServiceUnavailable:
		return Unavailable().Message
	case http.StatusGatewayTimeout:
		return Timeout().Message
	case http.StatusInsufficientStorage:
		return InsufficientStorage().Message
	case http.StatusInternalServerError:
		return ServerError().Message
	}
	return "vespatest: injected " + http.StatusText(f.Status)
}
