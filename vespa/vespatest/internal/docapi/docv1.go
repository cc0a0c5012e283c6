// Package docapi is the emulator's /document/v1: single-document operations
// with conditions, visiting with continuation tokens and slices, and
// update-where, delete-where and copy, answered as Vespa's handler answers.
package docapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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

// docReq is one /document/v1 request being served.
type docReq struct {
	s       *Backend
	w       http.ResponseWriter
	r       *http.Request
	pathID  string
	path    docPath
	params  params
	app     *schema.Application
	op      fault.Operation
	timeout time.Duration
	trace   int64
}

func (d *docReq) reply(status int, withID bool, id docid.ID, extra ...jsonx.Member) {
	body := jsonx.Object{{Key: "pathId", Val: jsonx.String(d.pathID)}}
	if withID {
		body = append(body, jsonx.Member{Key: "id", Val: jsonx.String(id.Full)})
	}
	if d.trace > 0 {
		body = append(body, jsonx.Member{Key: "trace", Val: d.traceJSON(id)})
	}
	body = append(body, extra...)
	httpx.WriteJSON(d.w, status, body)
}

func (d *docReq) traceJSON(id docid.ID) json.RawMessage {
	msg := fmt.Sprintf("vespatest: %s %s", d.op, id.Full)
	if id.Full == "" {
		msg = fmt.Sprintf("vespatest: %s %s", d.op, d.pathID)
	}
	return json.RawMessage(`[{"message":` + string(jsonx.String(msg)) + `}]`)
}

func (d *docReq) fail(status int, msg string) {
	httpx.WriteJSON(d.w, status, jsonx.Object{{Key: "pathId", Val: jsonx.String(d.pathID)}, {Key: "message", Val: jsonx.String(msg)}})
}

func (d *docReq) failID(status int, id docid.ID, msg string) {
	d.reply(status, true, id, jsonx.Member{Key: "message", Val: jsonx.String(msg)})
}

// failErr answers a parameter or parse error with 400.
func (d *docReq) failErr(err error) { d.fail(http.StatusBadRequest, err.Error()) }

// schemaOf returns the schema of docType (nil in lenient mode), or the
// parameter error Vespa answers for a document type the application does not
// declare.
func (d *docReq) schemaOf(docType string) (*schema.Schema, error) {
	sch, ok := d.app.Schema(docType)
	if !ok {
		return nil, badParam("Document type %s does not exist", docType)
	}
	return sch, nil
}

func (s *Backend) ServeDocV1(w http.ResponseWriter, r *http.Request) {
	d := &docReq{s: s, w: w, r: r, pathID: httpx.RawPath(r), app: s.Application.Load()}
	p, err := parseDocPath(d.pathID)
	if errors.Is(err, errNoRoute) {
		d.fail(http.StatusNotFound, "Nothing at '"+d.pathID+"'. Available paths are:\n"+availablePaths)
		return
	}
	if err != nil {
		d.failErr(err)
		return
	}
	d.path = p
	allowed := p.route.allowed()
	if r.Method == http.MethodOptions {
		w.Header().Set("Allow", strings.Join(allowed, ","))
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !contains(allowed, r.Method) {
		d.fail(http.StatusMethodNotAllowed, fmt.Sprintf("'%s' not allowed at '%s'. Allowed methods are: %s", r.Method, d.pathID, strings.Join(allowed, ", ")))
		return
	}
	d.params = parseParams(r.URL.RawQuery)
	d.op = operationOf(p.route, r.Method)
	if d.timeout, err = d.params.duration("timeout", 180*time.Second); err != nil {
		d.failErr(err)
		return
	}
	if d.trace, _, err = d.params.integer("tracelevel"); err != nil {
		d.failErr(err)
		return
	}
	if p.route.isDocument() {
		d.serveDocument() //nolint:contextcheck // it uses the request context, d.r.Context()
		return
	}
	d.serveVisitKind() //nolint:contextcheck // it uses the request context, d.r.Context()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// operationsOf lists, by method, the operation a request is on a document
// route and on a visit route. Any other method is a DELETE.
var operationsOf = map[string]struct{ document, visit fault.Operation }{
	http.MethodGet:    {fault.OpGet, fault.OpVisit},
	http.MethodPost:   {fault.OpPut, fault.OpCopy},
	http.MethodPut:    {fault.OpUpdate, fault.OpUpdateWhere},
	http.MethodDelete: {fault.OpRemove, fault.OpDeleteWhere},
}

func operationOf(rt route, method string) fault.Operation {
	ops, ok := operationsOf[method]
	if !ok {
		ops = operationsOf[http.MethodDelete]
	}
	if rt.isDocument() {
		return ops.document
	}
	return ops.visit
}

// readBody reads the request body, inflating gzip, and enforces the size limit.
func (d *docReq) readBody() ([]byte, bool) {
	var rd io.Reader = d.r.Body
	if strings.EqualFold(d.r.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(d.r.Body)
		if err != nil {
			d.fail(http.StatusBadRequest, "failed reading gzipped request body: "+err.Error())
			return nil, false
		}
		defer func() { _ = zr.Close() }() // the body was read to its end or abandoned
		rd = zr
	}
	limit := d.s.MaxRequestBytes
	body, err := io.ReadAll(io.LimitReader(rd, limit+1))
	if err != nil {
		d.fail(http.StatusBadRequest, "failed reading request body: "+err.Error())
		return nil, false
	}
	if int64(len(body)) > limit {
		n, _ := io.Copy(io.Discard, rd)
		d.fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("Document operation request size %d bytes exceeds maximum size of %d bytes. See https://docs.vespa.ai/en/writing/document-v1-api-guide.html#request-size-limit", int64(len(body))+n, limit))
		return nil, false
	}
	return body, true
}

// ImmediateTimeout is the emulator's floor for document/v1's timeout: a
// request with a shorter one is answered as Vespa answers a request its
// handler did not finish in time, 504 "Timeout after <n>ms" without an id
// (DocumentV1ApiHandler.handleTimeout), since on Vespa dispatch alone takes
// longer. Parameter errors are answered first, as Vespa answers them before
// dispatch.
const ImmediateTimeout = 5 * time.Millisecond

// injectFault runs a fault for this request; it reports whether the request
// was answered (or dropped) and whether the operation should be skipped as
// "ignored".
func (d *docReq) injectFault(id docid.ID, hasID bool) (answered, ignored bool) {
	if d.timeout < ImmediateTimeout {
		d.fail(http.StatusGatewayTimeout, "Timeout after "+millis(d.timeout)+"ms")
		return true, false
	}
	f, ok := d.s.Faults.Pick(d.op, d.pathID)
	if !ok {
		return false, false
	}
	switch fault.Run(d.r.Context(), d.w, d.r, f, d.timeout) {
	case fault.OutcomeDone:
		return true, false
	case fault.OutcomeTimeout:
		d.fail(http.StatusGatewayTimeout, "Timeout after "+millis(d.timeout)+"ms")
		return true, false
	case fault.OutcomeIgnored:
		d.w.Header().Set("X-Vespa-Ignored-Operation", "true")
		return false, true
	case fault.OutcomeStatus:
		msg := fault.MessageOf(f)
		if f.Backend && hasID {
			d.failID(f.Status, id, msg)
		} else {
			d.fail(f.Status, msg)
		}
		return true, false
	}
	return false, false
}

// checkCluster validates the cluster parameter of a visit, as Vespa's
// resolveCluster: without one, a deployment with several content clusters is
// an error.
func (d *docReq) checkCluster(required bool) (string, error) {
	c, ok, err := d.params.get("cluster")
	if err != nil {
		return "", err
	}
	names := d.app.ClusterNames()
	if !ok {
		if required {
			return "", badParam("Must specify 'cluster' at '%s'", d.pathID)
		}
		if len(names) == 1 {
			return names[0], nil
		}
		return "", badParam("Please specify one of the content clusters in your Vespa deployment: '%s'", strings.Join(names, "', '"))
	}
	if !contains(names, c) {
		return "", badParam("Your Vespa deployment has no content cluster '%s', only '%s'", c, strings.Join(names, "', '"))
	}
	return c, nil
}

func (d *docReq) serveDocument() {
	id, err := d.path.documentID()
	if err != nil {
		d.failErr(err)
		return
	}
	switch d.op {
	case fault.OpGet:
		d.get(id)
	case fault.OpPut, fault.OpUpdate, fault.OpRemove:
		d.write(id)
	}
}

func (d *docReq) get(id docid.ID) {
	if err := d.params.disallow(d.pathID, "dryRun"); err != nil {
		d.failErr(err)
		return
	}
	// A get names a cluster only to route to it: without one, Vespa sends it
	// on the default-get route, which finds the cluster holding the document
	// type (DocumentV1ApiHandler.parametersFromRequest resolves "cluster"
	// only when it is given), so several clusters are no error.
	if _, ok := d.params["cluster"]; ok {
		if _, err := d.checkCluster(false); err != nil {
			d.failErr(err)
			return
		}
	}
	// The handler routes a get of any type; the field set (the type's
	// "[document]" unless given) is parsed on the content node.
	sch, known := d.app.Schema(id.DocType)
	name, hasFS, err := d.params.get("fieldSet")
	if err != nil {
		d.failErr(err)
		return
	}
	if !hasFS {
		name = id.DocType + ":[document]"
	}
	fsErr := fieldSetError(d.app, name)
	var fs fieldSet
	if known && fsErr == "" && hasFS {
		if fs, err = parseFieldSet(name, sch); err != nil {
			d.failErr(err)
			return
		}
	}
	tf, err := d.tensorFormat()
	if err != nil {
		d.failErr(err)
		return
	}
	if answered, _ := d.injectFault(id, true); answered {
		return
	}
	if fsErr != "" && d.s.Store.HasReplica(id) {
		d.failID(http.StatusInternalServerError, id, illegalParameters(fsErr))
		return
	}
	e, found := d.s.Store.Get(id)
	if !found || !known || fsErr != "" {
		d.reply(http.StatusNotFound, true, id)
		return
	}
	d.reply(http.StatusOK, true, id, jsonx.Member{Key: "fields", Val: renderFields(sch, e.Fields, fs, tf)})
}

func (d *docReq) tensorFormat() (tensor.Format, error) {
	v, ok, err := d.params.get("format.tensors")
	if err != nil || !ok {
		return tensor.Short, err
	}
	tf, ok := tensor.ParseFormat(v)
	if !ok {
		return 0, badParam("Unknown tensor format '%s'; expected one of short, long, short-value, long-value, hex, hex-value", v)
	}
	return tf, nil
}

// writeBody is the parsed body of a put or update.
type writeBody struct {
	fields    json.RawMessage
	condition string
	create    bool
}

func parseWriteBody(body []byte) (writeBody, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return writeBody{}, errors.New("expected start of root object, got null")
	}
	obj, err := jsonx.ParseObject(body)
	if err != nil {
		return writeBody{}, fmt.Errorf("failed parsing document: %s", jsonErrorText(body, err))
	}
	var wb writeBody
	if c, ok := obj.Get("condition"); ok {
		if err := json.Unmarshal(c, &wb.condition); err != nil {
			return writeBody{}, fmt.Errorf("failed parsing document: condition must be a string")
		}
	}
	if c, ok := obj.Get("create"); ok {
		if err := json.Unmarshal(c, &wb.create); err != nil {
			return writeBody{}, fmt.Errorf("failed parsing document: create must be a boolean")
		}
	}
	f, ok := obj.Get("fields")
	if !ok {
		return writeBody{}, errors.New(`document is missing the required "fields" field`)
	}
	if t := bytes.TrimSpace(f); len(t) == 0 || t[0] != '{' {
		return writeBody{}, fmt.Errorf("failed parsing document: expected 'fields' to be an object")
	}
	wb.fields = f
	return wb, nil
}

// jsonErrorText phrases a JSON syntax error like Jackson does, where cheap.
func jsonErrorText(body []byte, err error) string {
	if errors.Is(err, jsonx.ErrNotObject) {
		return "Unexpected token, expected start of root object"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 && int(se.Offset) <= len(body) {
		i := int(se.Offset) - 1
		for i < len(body) && strings.ContainsRune(" \t\r\n", rune(body[i])) {
			i++
		}
		r := []rune(string(body[i:]))
		if len(r) > 0 {
			detail := err.Error()
			prev := bytes.TrimRight(body[:i], " \t\r\n")
			if len(prev) > 0 && (prev[len(prev)-1] == '{' || prev[len(prev)-1] == ',') {
				detail = "was expecting double-quote to start field name"
			}
			return fmt.Sprintf("Unexpected character ('%c' (code %d / 0x%x)): %s", r[0], r[0], r[0], detail)
		}
	}
	return err.Error()
}

func (d *docReq) write(id docid.ID) {
	dry, err := d.params.boolean("dryRun")
	if err != nil {
		d.failErr(err)
		return
	}
	if dry {
		d.reply(http.StatusOK, true, id)
		return
	}
	if _, _, err := d.params.get("route"); err != nil {
		d.failErr(err)
		return
	}
	cond, hasCond, err := d.params.get("condition")
	if err != nil {
		d.failErr(err)
		return
	}
	_, hasCreate, err := d.params.get("create")
	if err != nil {
		d.failErr(err)
		return
	}
	create, _ := d.params.boolean("create")
	var body []byte
	if d.op != fault.OpRemove {
		var ok bool
		if body, ok = d.readBody(); !ok {
			return
		}
	}
	if _, known := d.app.Schema(id.DocType); !known && d.op == fault.OpRemove {
		// A remove is not parsed against its type: it is routed, and no
		// content cluster's document selection accepts the unknown type, so
		// DocumentRouteSelectorPolicy.select answers DocumentIgnoredReply and
		// the handler 200 with X-Vespa-Ignored-Operation (DocumentV1ApiHandler
		// handle, Outcome IGNORED).
		if answered, _ := d.injectFault(id, true); answered {
			return
		}
		d.w.Header().Set("X-Vespa-Ignored-Operation", "true")
		d.reply(http.StatusOK, true, id)
		return
	}
	sch, err := d.schemaOf(id.DocType)
	if err != nil {
		d.failErr(err)
		return
	}
	var wb writeBody
	if d.op != fault.OpRemove {
		if wb, err = parseWriteBody(body); err != nil {
			d.failErr(err)
			return
		}
		if !hasCond {
			cond = wb.condition
		}
		if !hasCreate {
			create = wb.create
		}
	}
	if d.op == fault.OpRemove {
		create = false
	}
	answered, ignored := d.injectFault(id, true)
	if answered {
		return
	}
	var ignoredFields bool
	var putFields []byte
	var update jsonx.Object
	switch d.op {
	case fault.OpPut:
		putFields, ignoredFields, err = NormalizeFields(sch, wb.fields, d.s.IgnoreUndefined)
		if fe := (*fieldValueError)(nil); errors.As(err, &fe) {
			err = fmt.Errorf("In document '%s': %w", id.Full, err)
		}
	case fault.OpUpdate:
		update, ignoredFields, err = parseUpdate(sch, wb.fields, d.s.IgnoreUndefined)
	}
	if err != nil {
		d.failErr(err)
		return
	}
	if ignoredFields {
		d.w.Header().Set("X-Vespa-Ignored-Fields", "true")
	}
	if ignored {
		d.reply(http.StatusOK, true, id)
		return
	}
	var sel *selection.Selection
	if cond != "" {
		if sel, err = selection.CheckCondition(cond, func(t string) bool { _, ok := d.app.Schema(t); return ok }, sch); err != nil {
			d.failID(http.StatusInternalServerError, id, illegalParameters(err.Error()))
			return
		}
	}
	outcome := d.s.applyWrite(id, sch, d.op, putFields, update, sel, create)
	switch outcome.status {
	case http.StatusOK:
		d.reply(http.StatusOK, true, id)
	default:
		d.failID(outcome.status, id, outcome.message)
	}
}

// writeOutcome is the backend's answer to a write.
type writeOutcome struct {
	status  int
	message string
}

// applyWrite performs a put, update or remove atomically, with test-and-set.
// A nil sel is no condition.
func (s *Backend) applyWrite(id docid.ID, sch *schema.Schema, op fault.Operation, putFields []byte, update jsonx.Object, sel *selection.Selection, create bool) writeOutcome {
	out := writeOutcome{status: http.StatusOK}
	err := s.Store.Mutate(id, func(cur []byte, exists bool) ([]byte, bool, error) {
		if sel != nil && !(create && !exists) {
			if !exists {
				out = conditionFailed(id, "Document does not exist")
				return nil, false, nil
			}
			match, err := sel.Matches(id, cur)
			if err != nil {
				out = writeOutcome{http.StatusBadRequest, "Failed to evaluate test and set condition: " + err.Error()}
				return nil, false, nil //nolint:nilerr // the error is answered through out
			}
			if !match {
				out = conditionFailed(id, fmt.Sprintf("Condition did not match document nodeIndex=0 bucket=%x", 0x2000000000000000|uint64(store.BucketOf(id)))) //nolint:gosec // G115: a bucket index, 0..4095
				return nil, false, nil
			}
		}
		switch op {
		case fault.OpPut:
			return putFields, true, nil
		case fault.OpRemove:
			return nil, exists, nil
		}
		if !exists && !create {
			return nil, false, nil // an update of a missing document is dropped silently
		}
		base := []byte("{}")
		if exists {
			base = cur
		}
		next, err := applyUpdate(sch, base, update)
		if err != nil {
			out = writeOutcome{http.StatusBadRequest, err.Error()}
			return nil, false, nil //nolint:nilerr // the error is answered through out
		}
		return next, true, nil
	})
	if err != nil {
		return writeOutcome{http.StatusInternalServerError, err.Error()}
	}
	return out
}

// illegalParameters is the message of a content node's ILLEGAL_PARAMETERS
// reply (DocumentProtocol.ERROR_ILLEGAL_PARAMETERS, 251005).
func illegalParameters(detail string) string {
	return "[UNKNOWN(251005) @ tcp/vespatest:19112/default]: ReturnCode(ILLEGAL_PARAMETERS, " + detail + ") "
}

func conditionFailed(id docid.ID, detail string) writeOutcome {
	return writeOutcome{http.StatusPreconditionFailed,
		"[UNKNOWN(251013) @ tcp/vespatest:19112/default]: ReturnCode(TEST_AND_SET_CONDITION_FAILED, " + detail + ") "}
}
