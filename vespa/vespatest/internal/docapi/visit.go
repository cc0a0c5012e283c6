package docapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/docid"
	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/httpx"
	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
	"github.com/govespa/govespa/vespa/vespatest/internal/selection"
	"github.com/govespa/govespa/vespa/vespatest/internal/store"
	"github.com/govespa/govespa/vespa/vespatest/internal/tensor"
)

// visitSpec is a parsed visit-kind request.
type visitSpec struct {
	sel            *selection.Selection
	schema         *schema.Schema
	fields         fieldSet
	tensors        tensor.Format
	wanted         int64
	stream, jsonl  bool
	includeRemoves bool
	from, to       uint64
	token          visitToken
	hasToken       bool
	timeout        time.Duration
	// space is the bucket space visited at the root ("default" or "global");
	// empty with a type in the path, whose own space is visited.
	space string
	app   *schema.Application
	// badType is the content node's error for a selection naming a
	// document type the application lacks; empty when all are known.
	badType string
}

func (d *docReq) serveVisitKind() {
	spec, err := d.parseVisit()
	if errors.Is(err, errStreamedBadSelection) {
		d.hangStreamed()
		return
	}
	if err != nil {
		d.failErr(err)
		return
	}
	if !spec.stream && d.timeout < ImmediateTimeout {
		d.fail(http.StatusGatewayTimeout, "Timeout after "+millis(d.timeout)+"ms")
		return
	}
	if d.visitFault(spec) {
		return
	}
	if spec.badType != "" && d.s.Store.HasBuckets() {
		d.failBadType(spec)
		return
	}
	switch d.op {
	case fault.OpVisit:
		d.visit(spec)
	default:
		d.massOperation(spec)
	}
}

func (d *docReq) parseVisit() (*visitSpec, error) {
	p := d.params
	spec := &visitSpec{timeout: d.timeout}
	massOp := d.op != fault.OpVisit
	if err := p.disallow(d.pathID, "dryRun"); err != nil {
		return nil, err
	}
	var err error
	var selText string
	var hasSel bool
	switch d.op {
	case fault.OpCopy:
		if _, err := p.require("destinationCluster", d.pathID); err != nil {
			return nil, err
		}
		fallthrough
	case fault.OpUpdateWhere, fault.OpDeleteWhere:
		if selText, err = p.require("selection", d.pathID); err != nil {
			return nil, err
		}
		hasSel = true
		if _, err := d.checkCluster(true); err != nil {
			return nil, err
		}
		if err := p.disallow(d.pathID, "concurrency", "fieldSet", "route", "wantedDocumentCount"); err != nil {
			return nil, err
		}
		if _, err := p.duration("timeChunk", 60*time.Second); err != nil {
			return nil, err
		}
	default:
		if selText, hasSel, err = p.get("selection"); err != nil {
			return nil, err
		}
		spec.wanted = 1
		if n, ok, err := p.integer("wantedDocumentCount"); err != nil {
			return nil, err
		} else if ok {
			if n <= 0 {
				return nil, badParam("wantedDocumentCount must be positive")
			}
			spec.wanted = n
		}
		if n, ok, err := p.integer("concurrency"); err != nil {
			return nil, err
		} else if ok && n <= 0 {
			return nil, badParam("concurrency must be positive")
		}
		if spec.stream, err = p.boolean("stream"); err != nil {
			return nil, err
		}
		if _, ok := p["wantedDocumentCount"]; spec.stream && !ok {
			spec.wanted = 1 << 62
		}
		if spec.includeRemoves, err = p.boolean("includeRemoves"); err != nil {
			return nil, err
		}
	}
	slices, hasSlices, err := p.integer("slices")
	if err != nil {
		return nil, err
	}
	sliceID, hasSliceID, err := p.integer("sliceId")
	if err != nil {
		return nil, err
	}
	if hasSlices != hasSliceID {
		return nil, badParam("None or both of 'slices' and 'sliceId' must be set")
	}
	spec.token = visitToken{slices: 1}
	if hasSlices {
		if slices <= 0 {
			return nil, badParam("slices must be positive, but was %d", slices)
		}
		if sliceID < 0 || sliceID >= slices {
			return nil, badParam("sliceId must be in [0, %d), but was %d", slices, sliceID)
		}
		spec.token = visitToken{slices: uint32(min(slices, store.BucketCount)), sliceID: uint32(sliceID)} //nolint:gosec // G115: validated non-negative; a sliceId past bucketCount visits nothing (below)
		if sliceID >= store.BucketCount {
			spec.token.next = store.BucketCount
		}
	}
	// Unsigned, as Long.parseUnsignedLong; the order is checked only when
	// toTimestamp is given, and then even when it is 0
	// (DocumentV1ApiHandler.parseCommonParameters). A toTimestamp of 0 (or
	// none) visits to the newest document.
	if spec.from, _, err = p.unsigned("fromTimestamp"); err != nil {
		return nil, err
	}
	var hasTo bool
	if spec.to, hasTo, err = p.unsigned("toTimestamp"); err != nil {
		return nil, err
	}
	if hasTo && spec.from > spec.to {
		return nil, badParam("toTimestamp must be greater than, or equal to, fromTimestamp")
	}
	if bs, ok, err := p.get("bucketSpace"); err != nil {
		return nil, err
	} else if ok && bs != "default" && bs != "global" {
		return nil, badParam("Bucket space '%s' is not a known bucket space; expected one of default, global", bs)
	} else if d.path.route == routeRoot {
		// Without a type in the path, one bucket space is visited: the
		// default one unless asked. Vespa's CLI visits both in turn.
		spec.space, spec.app = "default", d.app
		if ok {
			spec.space = bs
		}
	}
	if !massOp {
		if d.path.route == routeRoot {
			if _, ok := p["cluster"]; !ok {
				return nil, badParam("Must set 'cluster' parameter to a valid content cluster id when visiting at a root /document/v1/ level")
			}
		}
		if _, err := d.checkCluster(false); err != nil {
			return nil, err
		}
	}
	if d.path.route != routeRoot {
		// Only an update-where parses its body against the type; the other
		// kinds pass the type on in the selection (badType below).
		var known bool
		if spec.schema, known = d.app.Schema(d.path.docType); !known && d.op == fault.OpUpdateWhere {
			return nil, badParam("Document type %s does not exist", d.path.docType)
		}
	}
	if !massOp {
		if spec.fields, err = d.fieldSet(spec.schema, d.path.docType); err != nil {
			return nil, err
		}
		if spec.tensors, err = d.tensorFormat(); err != nil {
			return nil, err
		}
		jsonl, err := acceptsJSONL(d.r.Header.Values("Accept"))
		if err != nil {
			return nil, err
		}
		spec.jsonl = jsonl && spec.stream
		if !spec.jsonl {
			spec.tensors = spec.tensors.WithoutHex()
		}
	}
	if c, ok, err := p.get("continuation"); err != nil {
		return nil, err
	} else if ok {
		t, err := parseVisitToken(c)
		if err != nil || t.slices != spec.token.slices || t.sliceID != spec.token.sliceID {
			return nil, badParam("Failed to parse continuation token '%s': not a token of this visit", c)
		}
		spec.token, spec.hasToken = t, true
	}
	if hasSel {
		if _, err := selection.Parse(selText); err != nil {
			if spec.stream {
				return spec, errStreamedBadSelection
			}
			return nil, badParam("Failed to parse expression: %v", err)
		}
	}
	full := d.pathSelection(selText, hasSel)
	if spec.sel, err = selection.Parse(full); err != nil {
		return nil, badParam("Failed to parse expression: %v", err)
	}
	if t, col, ok := spec.sel.UnknownType(func(t string) bool { _, ok := d.app.Schema(t); return ok }); ok {
		spec.badType = fmt.Sprintf("Failed to parse document select string '%s': Document type '%s' not found at column %d when parsing selection '%s'", full, t, col, full)
	}
	return spec, nil
}

// errStreamedBadSelection is a streamed visit whose selection does not
// parse. Vespa's handler commits 200 before its visitor session parses the
// selection (DocumentV1ApiHandler.visitAndWrite commits, then
// MessageBusVisitorSession fails to start), and the response never ends:
// on the JDisc target not even the status line reached the client (nothing
// is flushed before the first document), in 30 s.
var errStreamedBadSelection = errors.New("streamed visit with a selection that does not parse")

// hangStreamed answers errStreamedBadSelection as Vespa does as far as a
// client can tell: nothing, until the request's timeout (or the client
// leaving), then the connection is cut, so that no client takes anything
// for an answer.
func (d *docReq) hangStreamed() {
	t := time.NewTimer(d.timeout)
	defer t.Stop()
	select {
	case <-d.r.Context().Done():
	case <-t.C:
	}
	panic(http.ErrAbortHandler)
}

// failBadType answers a visit kind whose selection names a type the
// application lacks. The container passes the selection on; the content
// node's visitor fails to parse it (storage visitorthread.cpp, "Failed to
// parse document select string": ILLEGAL_PARAMETERS), so with buckets in
// the cluster a visit fails with 500 and no continuation (a streamed one
// with a message and a continuation after its 200); with none nothing is
// visited and the answer is empty.
func (d *docReq) failBadType(spec *visitSpec) {
	msg := illegalParameters(spec.badType)
	body := jsonx.Object{{Key: "pathId", Val: jsonx.String(d.pathID)}}
	switch {
	case d.op == fault.OpVisit && spec.stream:
		httpx.WriteJSON(d.w, http.StatusOK, append(emptyVisit(body, msg), jsonx.Member{Key: "continuation", Val: jsonx.String(spec.token.String())}))
	case d.op == fault.OpVisit:
		httpx.WriteJSON(d.w, http.StatusInternalServerError, emptyVisit(body, msg))
	default:
		body = append(body, jsonx.Member{Key: "documentCount", Val: jsonx.Int(0)}, jsonx.Member{Key: "message", Val: jsonx.String(msg)})
		httpx.WriteJSON(d.w, http.StatusInternalServerError, body)
	}
}

// pathSelection combines the selection with the path's restrictions, as
// Vespa does: (<selection>) and (<type>) and (id.namespace=='<ns>') and (<group>).
func (d *docReq) pathSelection(sel string, has bool) string {
	var parts []string
	if has {
		parts = append(parts, "("+sel+")")
	}
	p := d.path
	if p.route != routeRoot {
		parts = append(parts, "("+p.docType+")", "(id.namespace=='"+escapeSel(p.namespace)+"')")
		switch {
		case p.hasGroup:
			parts = append(parts, "(id.group=='"+escapeSel(p.group)+"')")
		case p.hasNumber:
			parts = append(parts, "(id.user=="+strconv.FormatUint(p.number, 10)+")")
		}
	}
	if len(parts) == 0 {
		return "true"
	}
	return strings.Join(parts, " and ")
}

func escapeSel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
}

// acceptsJSONL reports whether application/jsonl ranks at least as high as
// application/json in the Accept headers.
func acceptsJSONL(values []string) (bool, error) {
	qJSON, qJSONL := -1.0, -1.0
	for _, v := range values {
		for rng := range strings.SplitSeq(v, ",") {
			rng = strings.TrimSpace(rng)
			if rng == "" {
				continue
			}
			parts := strings.Split(rng, ";")
			mt := strings.ToLower(strings.TrimSpace(parts[0]))
			typ, sub, ok := strings.Cut(mt, "/")
			if !ok || typ == "" || sub == "" || strings.ContainsAny(mt, " \t") {
				return false, badParam("The request contained an unparseable HTTP Accept header. See: https://docs.vespa.ai/en/reference/api/document-v1.html#accept")
			}
			q := 1.0
			for _, prm := range parts[1:] {
				k, val, _ := strings.Cut(strings.TrimSpace(prm), "=")
				if strings.EqualFold(k, "q") {
					f, err := strconv.ParseFloat(val, 64)
					if err != nil {
						return false, badParam("The request contained an unparseable HTTP Accept header. See: https://docs.vespa.ai/en/reference/api/document-v1.html#accept")
					}
					q = f
				}
			}
			switch mt {
			case "application/json":
				qJSON = max(qJSON, q)
			case "application/jsonl":
				qJSONL = max(qJSONL, q)
			}
		}
	}
	return qJSONL >= 0 && qJSONL >= qJSON, nil
}

// visited is one document or tombstone a visit yields.
type visited struct {
	id      string
	fields  json.RawMessage // nil for a remove
	removed bool
}

// scan reads whole buckets from the token's position until at least wanted
// documents are collected, the slice is done, or the deadline passes; emit
// is called per bucket. It returns the token for the rest (done: none).
func (s *Backend) scan(spec *visitSpec, deadline time.Time, emit func([]visited)) (next visitToken, done bool) {
	t := spec.token
	var count int64
	for b := t.nextBucket(t.next); b < store.BucketCount; b = t.nextBucket(b + 1) {
		var batch []visited
		for _, doc := range s.Store.ReadBucket(int(b)) {
			// Both ends are included, as proton's DocumentIterator keeps
			// from <= timestamp <= to.
			ts := uint64(doc.Modified) //nolint:gosec // G115: timestamps are positive microseconds
			if ts < spec.from || spec.to != 0 && ts > spec.to {
				continue
			}
			if doc.Removed() && !spec.includeRemoves {
				continue
			}
			id, err := docid.Parse(doc.Id)
			if err != nil {
				continue
			}
			if spec.space != "" && spec.app.IsGlobal(id.DocType) != (spec.space == "global") {
				continue
			}
			fields := doc.Fields
			if doc.Removed() {
				fields = []byte("{}")
			}
			if ok, _ := spec.sel.Matches(id, fields); !ok {
				continue
			}
			if doc.Removed() {
				batch = append(batch, visited{id: doc.Id, removed: true})
				continue
			}
			batch = append(batch, visited{id: doc.Id, fields: doc.Fields})
		}
		count += int64(len(batch))
		emit(batch)
		t.next = b + 1
		if count >= spec.wanted || time.Now().After(deadline) {
			break
		}
	}
	if t.nextBucket(t.next) >= store.BucketCount {
		return t, true
	}
	return t, false
}

func (s *Backend) renderVisited(spec *visitSpec, v visited) json.RawMessage {
	if v.removed {
		return jsonx.Object{{Key: "remove", Val: jsonx.String(v.id)}}.Marshal()
	}
	sch := spec.schema
	if sch == nil {
		if id, err := docid.Parse(v.id); err == nil {
			sch, _ = s.Application.Load().Schema(id.DocType)
		}
	}
	return jsonx.Object{{Key: "id", Val: jsonx.String(v.id)}, {Key: "fields", Val: renderFields(sch, v.fields, spec.fields, spec.tensors)}}.Marshal()
}

func (d *docReq) visit(spec *visitSpec) {
	deadline := time.Now().Add(max(spec.timeout-5*time.Second, spec.timeout*9/10-100*time.Millisecond))
	if spec.jsonl {
		d.visitJSONL(spec, deadline)
		return
	}
	var buf bytes.Buffer
	var flusher func()
	w := d.w
	if spec.stream {
		w.Header().Set("Content-Type", httpx.JSONContentType)
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		flusher = func() {
			_, _ = w.Write(buf.Bytes())
			buf.Reset()
			_ = rc.Flush()
		}
	}
	buf.WriteString(`{"pathId":`)
	buf.Write(jsonx.String(d.pathID))
	buf.WriteString(`,"documents":[`)
	n := 0
	next, done := d.s.scan(spec, deadline, func(batch []visited) {
		for _, v := range batch {
			if n > 0 {
				buf.WriteByte(',')
			}
			buf.Write(d.s.renderVisited(spec, v))
			n++
		}
		if flusher != nil && buf.Len() > 32<<10 {
			flusher()
		}
	})
	buf.WriteString(`],"documentCount":` + strconv.Itoa(n))
	if d.trace > 0 {
		buf.WriteString(`,"trace":`)
		buf.Write(d.traceJSON(docid.ID{}))
	}
	if !done {
		buf.WriteString(`,"continuation":`)
		buf.Write(jsonx.String(next.String()))
	}
	buf.WriteString("}")
	if flusher != nil {
		flusher()
		return
	}
	w.Header().Set("Content-Type", httpx.JSONContentType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

func (d *docReq) visitJSONL(spec *visitSpec, deadline time.Time) {
	w := d.w
	w.Header().Set("Content-Type", "application/jsonl; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	var buf bytes.Buffer
	n := 0
	t := spec.token
	next, done := d.s.scan(spec, deadline, func(batch []visited) {
		for _, v := range batch {
			if v.removed {
				buf.WriteString(`{"remove":`)
				buf.Write(jsonx.String(v.id))
				buf.WriteString("}\n")
			} else {
				line := jsonx.Object{{Key: "put", Val: jsonx.String(v.id)}, {Key: "fields", Val: renderFields(spec.schema, v.fields, spec.fields, spec.tensors)}}
				line.WriteTo(&buf)
				buf.WriteByte('\n')
			}
			n++
		}
		if len(batch) > 0 {
			t.next = t.nextBucket(t.next) + 1
			fmt.Fprintf(&buf, `{"continuation":{"token":%s,"percentFinished":%s}}`+"\n", jsonx.String(t.String()), formatPercent(t.percent()))
			_, _ = w.Write(buf.Bytes())
			buf.Reset()
			_ = rc.Flush()
		} else {
			t.next = t.nextBucket(t.next) + 1
		}
	})
	fmt.Fprintf(&buf, `{"sessionStats":{"documentCount":%d}}`+"\n", n)
	if done {
		buf.WriteString(`{"continuation":{"percentFinished":100.0}}` + "\n")
	} else {
		fmt.Fprintf(&buf, `{"continuation":{"token":%s,"percentFinished":%s}}`+"\n", jsonx.String(next.String()), formatPercent(next.percent()))
	}
	_, _ = w.Write(buf.Bytes())
}

// visitFault runs an injected fault on a visit kind. A status fault is a
// visitor failure: a streamed visit has already answered 200, so it reports
// the failure in "message" (a JSON Lines message line when negotiated) and
// always gives a continuation; a non-streamed one answers the status with no
// continuation. 429 and 503 are answered as statuses either way. Mass operations fail on their
// first document.
func (d *docReq) visitFault(spec *visitSpec) bool {
	f, ok := d.s.Faults.Pick(d.op, d.pathID)
	if !ok {
		return false
	}
	if d.op != fault.OpVisit && f.Latency > 0 {
		if d.massLatency(spec, f.Latency) {
			return true
		}
		f.Latency = 0
	}
	switch fault.Run(d.r.Context(), d.w, d.r, f, d.timeout) {
	case fault.OutcomeDone:
		return true
	case fault.OutcomeTimeout:
		d.fail(http.StatusGatewayTimeout, "Timeout after "+millis(d.timeout)+"ms")
		return true
	case fault.OutcomeStatus:
	default:
		return false
	}
	msg := fault.MessageOf(f)
	body := jsonx.Object{{Key: "pathId", Val: jsonx.String(d.pathID)}}
	// 429 and 503 come from the handler before a visit starts (its queue is
	// full, or JDisc has no thread), so a streamed visit gets them as its
	// status too; other failures happen while the visit streams.
	streaming := spec.stream && f.Status != http.StatusTooManyRequests && f.Status != http.StatusServiceUnavailable
	switch {
	case d.op == fault.OpVisit && streaming && spec.jsonl:
		// As StreamingJsonLinesResponse: the message, the document count
		// and the continuation to go on from, after a 200.
		d.w.Header().Set("Content-Type", "application/jsonl; charset=UTF-8")
		d.w.WriteHeader(http.StatusOK)
		_, _ = fmt.Fprintf(d.w, `{"message":{"text":%s,"severity":"error"}}`+"\n"+`{"sessionStats":{"documentCount":0}}`+"\n"+`{"continuation":{"token":%s,"percentFinished":%s}}`+"\n",
			jsonx.String(msg), jsonx.String(spec.token.String()), formatPercent(spec.token.percent()))
	case d.op == fault.OpVisit && streaming:
		httpx.WriteJSON(d.w, http.StatusOK, append(emptyVisit(body, msg), jsonx.Member{Key: "continuation", Val: jsonx.String(spec.token.String())}))
	case d.op == fault.OpVisit:
		httpx.WriteJSON(d.w, f.Status, emptyVisit(body, msg))
	default:
		n := 0
		spec.wanted = 1
		d.s.scan(spec, time.Now().Add(time.Second), func(b []visited) { n += len(b) })
		body = append(body, jsonx.Member{Key: "documentCount", Val: jsonx.Int(int64(min(n, 1)))}, jsonx.Member{Key: "message", Val: jsonx.String(msg)})
		httpx.WriteJSON(d.w, f.Status, body)
	}
	return true
}

// emptyVisit is a visit's answer that found nothing, with Vespa's message.
func emptyVisit(body jsonx.Object, msg string) jsonx.Object {
	return append(body, jsonx.Member{Key: "documents", Val: json.RawMessage("[]")}, jsonx.Member{Key: "documentCount", Val: jsonx.Int(0)}, jsonx.Member{Key: "message", Val: jsonx.String(msg)})
}
