package vespatest

import (
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
)

// Operation names the kind of request a fault applies to.
type Operation = fault.Operation

// The operations faults can target. OpAny matches every request to
// /document/v1 and /search/. OpDeploy is the config server's prepare of a
// deployment (POST prepareandactivate, PUT session/<id>/prepared) and is
// matched only by faults that name it: a FaultLatency there is time spent
// building the models, checked against the deploy's timeout as Vespa checks
// it (see [Server.ConfigServerURL]).
const (
	OpAny         = fault.OpAny
	OpGet         = fault.OpGet
	OpPut         = fault.OpPut
	OpUpdate      = fault.OpUpdate
	OpRemove      = fault.OpRemove
	OpVisit       = fault.OpVisit
	OpCopy        = fault.OpCopy
	OpUpdateWhere = fault.OpUpdateWhere
	OpDeleteWhere = fault.OpDeleteWhere
	OpSearch      = fault.OpSearch
	OpDeploy      = fault.OpDeploy
)

// Fault is what happens to one request instead of (or before) its normal
// handling: a Status (in Vespa's JSON envelope; 200 is an ignored
// operation) with its Message, a Backend failure (the body carries the id),
// added Latency (ending at the request's timeout as Vespa would), or a
// dropped connection. The zero Fault does nothing.
type Fault = fault.Fault

// FaultRule injects a Fault into matching requests (by Op and Path prefix),
// at random at Rate, at most Times times (0: no cap). Rate must be in
// (0, 1]: a rule without a rate would never fire, so [Server.AddFault] and
// [WithFaults] refuse it.
type FaultRule = fault.Rule

// FaultStats counts what was injected: ByStatus, Dropped, Delayed, Total.
type FaultStats = fault.Stats

// FaultOverload is Vespa's 429 when its operation queue is full.
func FaultOverload() Fault { return fault.Overload() }

// FaultUnavailable is the 503 JDisc answers when it has no free worker.
func FaultUnavailable() Fault { return fault.Unavailable() }

// FaultTimeout is a 504 reported by the backend (the body carries the id).
func FaultTimeout() Fault { return fault.Timeout() }

// FaultInsufficientStorage is the 507 of a feed-blocked content cluster.
func FaultInsufficientStorage() Fault { return fault.InsufficientStorage() }

// FaultServerError is a 500 from a fatal dispatch error.
func FaultServerError() Fault { return fault.ServerError() }

// FaultLatency delays the answer by d.
func FaultLatency(d time.Duration) Fault { return fault.Latency(d) }

// FaultSoftTimeout is a content node that runs out of time while matching,
// having covered the fraction covered (in [0, 1]) of the corpus: on
// /search/ a 200 with the hits found so far and root.coverage degraded by
// timeout (Vespa's soft timeout, on by default: ProtobufSerialization
// convertToCoverage, JsonRenderer renderCoverage), or 504 with error code 12
// for a query that sets ranking.softtimeout.enable=false. Other operations
// ignore it.
func FaultSoftTimeout(covered float64) Fault { return fault.SoftTimeout(covered) }

// FaultInvalidApplicationPackage, for [OpDeploy], is the config server
// refusing a package whose models fail to build: 400 with error-code
// INVALID_APPLICATION_PACKAGE and message "Invalid application: <detail>"
// (Vespa's ModelsBuilder and HttpErrorResponse.invalidApplicationPackage).
// A package with a field of an unknown type is refused so without a fault.
func FaultInvalidApplicationPackage(detail string) Fault {
	return fault.InvalidApplicationPackage(detail)
}

// FaultDrop closes the connection without an answer.
func FaultDrop() Fault { return fault.Drop() }

// FaultIgnored answers 200 with X-Vespa-Ignored-Operation: true and drops the write.
func FaultIgnored() Fault { return fault.Ignored() }

// AddFault installs a fault rule. Rules are tried in the order added, after
// scripted faults; the first that fires wins.
func (s *Server) AddFault(r FaultRule) error {
	if err := r.Validate(); err != nil {
		return err
	}
	s.faults.Add(r)
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
	s.faults.Scripts = append(s.faults.Scripts, &fault.Scripted{Op: op, Faults: append([]fault.Fault(nil), faults...)})
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
	st := s.faults.Stats
	st.ByStatus = make(map[int]int, len(s.faults.Stats.ByStatus))
	for k, v := range s.faults.Stats.ByStatus {
		st.ByStatus[k] = v
	}
	return st
}
