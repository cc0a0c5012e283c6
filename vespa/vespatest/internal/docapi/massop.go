package docapi

import (
	"net/http"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/docid"
	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/httpx"
	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// massOperation serves copy (POST), update-where (PUT) and delete-where
// (DELETE) on visit paths: every document matching the selection is
// processed, with the selection re-checked atomically as its condition.
func (d *docReq) massOperation(spec *visitSpec) {
	var update jsonx.Object
	if d.op == fault.OpUpdateWhere {
		body, ok := d.readBody()
		if !ok {
			return
		}
		wb, err := parseWriteBody(body)
		if err != nil {
			d.failErr(err)
			return
		}
		var ignored bool
		update, ignored, err = parseUpdate(spec.schema, wb.fields, true)
		if err != nil {
			d.failErr(err)
			return
		}
		if ignored {
			if !d.s.IgnoreUndefined {
				_, _, err = parseUpdate(spec.schema, wb.fields, false)
				d.failErr(err)
				return
			}
			d.w.Header().Set("X-Vespa-Ignored-Fields", "true")
		}
	}
	deadline := time.Now().Add(d.massSession(spec))
	spec.wanted = 1 << 62
	count := 0
	var failure string
	next, done := d.s.scan(spec, deadline, func(batch []visited) {
		for _, v := range batch {
			id, err := docid.Parse(v.id)
			if err != nil {
				continue
			}
			switch d.op {
			case fault.OpCopy:
				count++ // one store: copying to another cluster leaves it unchanged
				continue
			case fault.OpDeleteWhere:
				_ = d.s.Store.Mutate(id, func(cur []byte, exists bool) ([]byte, bool, error) {
					if ok, _ := spec.sel.Matches(id, cur); !exists || !ok {
						return nil, false, nil
					}
					return nil, true, nil
				})
				count++
			case fault.OpUpdateWhere:
				sch, _ := d.app.Schema(id.DocType)
				_ = d.s.Store.Mutate(id, func(cur []byte, exists bool) ([]byte, bool, error) {
					if ok, _ := spec.sel.Matches(id, cur); !exists || !ok {
						return nil, false, nil // raced: counted as fine, as in Vespa
					}
					next, err := applyUpdate(sch, cur, update)
					if err != nil {
						failure = err.Error()
						return nil, false, nil //nolint:nilerr // the error is answered through failure
					}
					return next, true, nil
				})
				count++
			}
		}
	})
	body := jsonx.Object{{Key: "pathId", Val: jsonx.String(d.pathID)}, {Key: "documentCount", Val: jsonx.Int(int64(count))}}
	if d.trace > 0 {
		body = append(body, jsonx.Member{Key: "trace", Val: d.traceJSON(docid.ID{})})
	}
	if failure != "" {
		httpx.WriteJSON(d.w, http.StatusInternalServerError, append(body, jsonx.Member{Key: "message", Val: jsonx.String(failure)}))
		return
	}
	if !done {
		body = append(body, jsonx.Member{Key: "continuation", Val: jsonx.String(next.String())})
	}
	httpx.WriteJSON(d.w, http.StatusOK, body)
}

// visitSessionTimeout is DocumentV1ApiHandler.visitTimeout: the visitor
// session ends before the request does, max(timeout − 5 s, 9/10 timeout −
// 100 ms), at least 1 ms, so that it answers before the handler times out.
func visitSessionTimeout(timeout time.Duration) time.Duration {
	return max(time.Millisecond, timeout-5*time.Second, timeout*9/10-100*time.Millisecond)
}

// massSession is how long a mass operation's visitor session runs:
// min(timeChunk, visitSessionTimeout), as parseParameters sets it.
func (d *docReq) massSession(spec *visitSpec) time.Duration {
	chunk, _ := d.params.duration("timeChunk", 60*time.Second)
	return min(chunk, visitSessionTimeout(spec.timeout))
}

// massLatency runs an injected latency on a mass operation. The visitor
// session, not the handler, times out first: Vespa then answers 200 with
// the progress so far as the continuation (a mass operation's session is
// not visitInconsistentBuckets, so its TIMEOUT falls through to SUCCESS in
// DocumentV1ApiHandler.visit), never 504. It reports whether the request is
// answered; otherwise the rest of the fault (status, drop) is still to run.
func (d *docReq) massLatency(spec *visitSpec, latency time.Duration) bool {
	session := d.massSession(spec)
	t := time.NewTimer(min(latency, session))
	defer t.Stop()
	select {
	case <-d.r.Context().Done():
		return true
	case <-t.C:
	}
	if latency < session {
		return false
	}
	body := jsonx.Object{{Key: "pathId", Val: jsonx.String(d.pathID)}, {Key: "documentCount", Val: jsonx.Int(0)}}
	if d.trace > 0 {
		body = append(body, jsonx.Member{Key: "trace", Val: d.traceJSON(docid.ID{})})
	}
	httpx.WriteJSON(d.w, http.StatusOK, append(body, jsonx.Member{Key: "continuation", Val: jsonx.String(spec.token.String())}))
	return true
}
