package search

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/httpx"
	"github.com/govespa/govespa/vespa/vespatest/internal/vtime"
)

// Limits and defaults of the query API, as Vespa's defaults.
const (
	// MaxHits is Vespa's default maxHits: more hits requested is an error (400, code 3).
	MaxHits = 400
	// MaxOffset is Vespa's default maxOffset.
	MaxOffset = 1000
	// DefaultHits is the number of hits returned when hits is not given.
	DefaultHits = 10
	// DefaultTimeout is Vespa's default query timeout.
	DefaultTimeout = 500 * time.Millisecond
	// ImmediateTimeout is the emulator's floor: a query with a shorter timeout always times out
	// (504, code 12), as it does on a real Vespa, where dispatch alone takes longer.
	ImmediateTimeout = 5 * time.Millisecond
)

const limitsDoc = ". See https://docs.vespa.ai/en/reference/api/query.html#native-execution-parameters"

// NewHandler returns the /search/ handler evaluating queries over c. It serves GET and POST
// (a JSON object body, flattened into dotted parameter names) and renders results and errors as
// Vespa does; see the package documentation for what is supported. It is safe for concurrent use
// when c is.
func NewHandler(c Corpus) http.Handler {
	return &handler{corpus: c, now: time.Now}
}

type handler struct {
	corpus  Corpus
	now     func() time.Time
	vectors vectorCache
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	res := h.serve(r)
	body := res.render()
	w.Header().Set("Content-Type", httpx.JSONContentType)
	w.WriteHeader(httpStatus(res.errors, len(res.hits) > 0))
	_, _ = w.Write(body)
}

// request is a validated query request.
type request struct {
	p          params
	rawURI     string // the path and query as sent, for "Invalid request [...]" messages
	hits       int
	offset     int
	timeout    time.Duration
	timeoutSet bool          // the request gave a timeout (parameter or YQL)
	latency    time.Duration // injected before execution (WithLatency)
	traceLevel int
	timing     bool
}

func errorResult(e resultError) *result { return &result{errors: []resultError{e}} }

func (h *handler) serve(r *http.Request) *result {
	start := h.now()
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		return errorResult(resultError{code: http.StatusMethodNotAllowed, summary: "Method not allowed",
			message: "Only GET and POST are supported by /search/"})
	}
	p, err := readParams(r)
	if err != nil {
		return errorResult(illegalQuery(err.Error()))
	}
	req, e := parseRequest(p)
	if e != nil {
		return errorResult(*e)
	}
	if e := h.checkSearchChain(p); e != nil {
		return errorResult(*e)
	}
	req.rawURI = r.URL.RequestURI()
	if e := globalMaxGroupsInRequest(p, req.rawURI); e != nil {
		return errorResult(*e)
	}
	req.latency = latencyFrom(r.Context())
	res, e := h.execute(r.Context(), req, start)
	if e != nil {
		return errorResult(*e)
	}
	return res
}

// parseRequest validates the native execution parameters.
func parseRequest(p params) (*request, *resultError) {
	for _, name := range []string{"maxHits", "maxOffset", "maxQueryItems"} {
		if _, ok := p.get(name); ok {
			return nil, &resultError{code: CodeUnspecified, summary: summaryUnspecified,
				message: name + " must be specified in a query profile."}
		}
	}
	for _, name := range []string{"select.where", "select.grouping", "select"} {
		if _, ok := p[name]; ok {
			e := notImplemented(notImplementedMsg("the JSON query language (" + name + ")"))
			return nil, &e
		}
	}
	if f, ok := p.get("presentation.format", "format"); ok && f != "" && f != "json" && f != "default" {
		e := notImplemented(notImplementedMsg("presentation.format=" + f + " (only JSON)"))
		return nil, &e
	}
	req := &request{p: p, hits: DefaultHits, timeout: DefaultTimeout}
	var e *resultError
	if req.hits, e = intParam(p, DefaultHits, "hits", "hits", "count"); e != nil {
		return nil, e
	}
	if req.offset, e = intParam(p, 0, "offset", "offset", "start"); e != nil {
		return nil, e
	}
	if req.traceLevel, e = intParam(p, 0, "trace.level", "trace.level", "tracelevel"); e != nil {
		return nil, e
	}
	if v, ok := p.get("timeout"); ok {
		d, err := vtime.Parse(v)
		if err != nil {
			ill := illegalQuery(fmt.Sprintf("Could not set 'timeout': Error parsing '%s': Invalid number '%s'", v, v))
			return nil, &ill
		}
		req.timeout, req.timeoutSet = d, true
	}
	if v, ok := p.get("presentation.timing"); ok {
		req.timing = v == "true"
	}
	if req.hits > MaxHits {
		ill := illegalQuery(fmt.Sprintf("%d hits requested, configured limit: %d%s", req.hits, MaxHits, limitsDoc))
		return nil, &ill
	}
	if req.offset > MaxOffset {
		ill := illegalQuery(fmt.Sprintf("Offset of %d requested, configured limit: %d%s", req.offset, MaxOffset, limitsDoc))
		return nil, &ill
	}
	return req, nil
}

func notImplementedMsg(what string) string {
	return (&notImplementedError{what: what}).Error()
}

// intParam reads a non-negative integer parameter by full name and aliases.
func intParam(p params, def int, display, full string, aliases ...string) (int, *resultError) {
	v, ok := p.get(full, aliases...)
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		e := illegalQuery(fmt.Sprintf("Could not set '%s': '%s' is not a valid integer", display, v))
		return 0, &e
	}
	if n < 0 {
		e := illegalQuery(fmt.Sprintf("Could not set '%s': '%s' must be a positive number, not %d", display, display, n))
		return 0, &e
	}
	return n, nil
}

// checkSearchChain refuses a searchChain the container lacks, as
// SearchHandler does once the parameters are valid: "No search chain named
// '%s' was found" (code 4). The container has "default", "native" and
// "vespa", and one chain per content cluster.
func (h *handler) checkSearchChain(p params) *resultError {
	name, ok := p.get("searchChain", "searchchain")
	if !ok || name == "" {
		return nil
	}
	switch name {
	case "default", "native", "vespa":
		return nil
	}
	for _, s := range h.corpus.Schemas() {
		if h.clusterOf(s.Name) == name {
			return nil
		}
	}
	if len(h.corpus.Schemas()) == 0 && h.clusterOf("") == name {
		return nil
	}
	e := invalidParameter("No search chain named '" + name + "' was found")
	return &e
}
