package vespatest

import (
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
)

// Operation names the kind of request a fault applies to.
type Operation string

// The operations faults can target. OpAny matches every request to
// /document/v1 and /search/. OpDeploy is the config server's prepare of a
// deployment (POST prepareandactivate, PUT session/<id>/prepared) and is
// matched only by faults that name it: a FaultLatency there is time spent
// building the models, checked against the deploy's timeout as Vespa checks
// it (see [Server.ConfigServerURL]).
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
	OpDeploy      Operation = "deploy"
)

// Fault is what happens to one request instead of (or before) its normal
// handling: a Status (in Vespa's JSON envelope; 200 is an ignored
// operation) with its Message, a Backend failure (the body carries the id),
// added Latency (ending at the request's timeout as Vespa would), or a
// dropped connection. The zero Fault does nothing. The Fault* functions
// return the usual ones.
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
	// SoftTimeout, on /search/, is a content node that runs out of time
	// while matching: it answers with what it found in the fraction Covered
	// of the corpus. With soft timeout on (Vespa's default) that is a 200
	// with those hits and coverage.degraded.timeout; a query that sets
	// ranking.softtimeout.enable=false gets the hard timeout, 504 with
	// error code 12. Other operations ignore it.
	SoftTimeout bool
	// Covered is the fraction of the documents a SoftTimeout covered, in [0, 1].
	Covered float64
	// ErrorCode, on the config server (OpDeploy), is the error-code of the
	// answer; empty means the one Vespa's HttpErrorResponse pairs with
	// Status.
	ErrorCode string
}

// FaultRule injects a Fault into matching requests (by Op and Path prefix),
// at random at Rate, at most Times times (0: no cap).
type FaultRule struct {
	// Op restricts the rule to one operation; OpAny matches all.
	Op Operation
	// Path restricts the rule to raw request paths with this prefix; empty matches all.
	Path string
	// Rate is the probability, in (0, 1], that a matching request gets the
	// fault. Rate 0 (a rule that would never fire) is refused by [Server.AddFault]
	// and [WithFaults]; Rate 1 fires on every matching request.
	Rate float64
	// Times caps the number of injections; 0 means no cap.
	Times int
	// Fault is what to inject.
	Fault Fault
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

// model returns r as the emulator's fault package holds it (Fault and
// FaultStats have the same fields as their model, and convert as they are).
func (r FaultRule) model() fault.Rule {
	return fault.Rule{Op: fault.Operation(r.Op), Path: r.Path, Rate: r.Rate, Times: r.Times, Fault: fault.Fault(r.Fault)}
}

// FaultOverload is Vespa's 429 when its operation queue is full.
func FaultOverload() Fault { return Fault(fault.Overload()) }

// FaultUnavailable is the 503 JDisc answers when it has no free worker.
func FaultUnavailable() Fault { return Fault(fault.Unavailable()) }

// FaultTimeout is a 504 reported by the backend (the body carries the id).
func FaultTimeout() Fault { return Fault(fault.Timeout()) }

// FaultInsufficientStorage is the 507 of a feed-blocked content cluster.
func FaultInsufficientStorage() Fault { return Fault(fault.InsufficientStorage()) }

// FaultServerError is a 500 from a fatal dispatch error.
func FaultServerError() Fault { return Fault(fault.ServerError()) }

// FaultLatency delays the answer by d.
func FaultLatency(d time.Duration) Fault { return Fault(fault.Latency(d)) }

// FaultSoftTimeout is a content node that runs out of time while matching,
// having covered the fraction covered (in [0, 1]) of the corpus: on
// /search/ a 200 with the hits found so far and root.coverage degraded by
// timeout (Vespa's soft timeout, on by default: ProtobufSerialization
// convertToCoverage, JsonRenderer renderCoverage), or 504 with error code 12
// for a query that sets ranking.softtimeout.enable=false. Other operations
// ignore it.
func FaultSoftTimeout(covered float64) Fault { return Fault(fault.SoftTimeout(covered)) }

// FaultInvalidApplicationPackage, for [OpDeploy], is the config server
// refusing a package whose models fail to build: 400 with error-code
// INVALID_APPLICATION_PACKAGE and message "Invalid application: <detail>"
// (Vespa's ModelsBuilder and HttpErrorResponse.invalidApplicationPackage).
// A package with a field of an unknown type is refused so without a fault.
func FaultInvalidApplicationPackage(detail string) Fault {
	return Fault(fault.InvalidApplicationPackage(detail))
}

// FaultDrop closes the connection without an answer.
func FaultDrop() Fault { return Fault(fault.Drop()) }

// FaultIgnored answers 200 with X-Vespa-Ignored-Operation: true and drops the write.
func FaultIgnored() Fault { return Fault(fault.Ignored()) }

// AddFault installs a fault rule. Rules are tried in the order added, after
// scripted faults; the first that fires wins.
func (s *Server) AddFault(r FaultRule) error {
	m := r.model()
	if err := m.Validate(); err != nil {
		return err
	}
	s.faults.Add(m)
	return nil
}

// ScriptFaults queues faults for the next requests of op (OpAny: any
// operation), one fault per request, in order. A zero Fault in the list lets
// that request through untouched. Scripts run before rules.
func (s *Server) ScriptFaults(op Operation, faults ...Fault) {
	if len(faults) == 0 {
		return
	}
	s.faults.Mu.Lock()
	defer s.faults.Mu.Unlock()
	m := make([]fault.Fault, len(faults))
	for i, f := range faults {
		m[i] = fault.Fault(f)
	}
	s.faults.Scripts = append(s.faults.Scripts, &fault.Scripted{Op: fault.Operation(op), Faults: m})
}

// ClearFaults removes every rule and script. Counters are kept.
func (s *Server) ClearFaults() {
	s.faults.Mu.Lock()
	defer s.faults.Mu.Unlock()
	s.faults.Rules, s.faults.Scripts = nil, nil
}

// FaultStats returns a copy of the injection counters.
func (s *Server) FaultStats() FaultStats {
	s.faults.Mu.Lock()
	defer s.faults.Mu.Unlock()
	st := FaultStats(s.faults.Stats)
	st.ByStatus = make(map[int]int, len(s.faults.Stats.ByStatus))
	for k, v := range s.faults.Stats.ByStatus {
		st.ByStatus[k] = v
	}
	return st
}
