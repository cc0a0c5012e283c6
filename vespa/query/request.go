package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NoHits asks for zero hits in [Request.Hits] (hits=0), as grouping-only
// queries do; a zero Hits means Vespa's default instead.
const NoHits = -1

// Request is one query: the parameters of /search/. Zero fields are not sent,
// so Vespa's defaults (or the query profile's) apply. A Request is plain data
// and is not modified by [Client.Search]; it may be reused and shared once
// built.
//
// The typed fields are applied after Params, so they win over a parameter of
// the same name in Params.
type Request struct {
	// YQL is the statement (yql), for instance from [Builder.YQL].
	YQL string
	// Query is the user query in Vespa's simple query language (query, or
	// model.queryString), used alone or through userQuery() in YQL.
	Query string
	// Hits is the number of hits to return (hits). 0: Vespa's default, 10;
	// [NoHits]: none (hits=0), for grouping output only.
	Hits int
	// Offset is the number of hits to skip (offset). 0: none.
	//
	// Hits and Offset are one of two ways to page; the other is the
	// statement's own limit and offset ([Builder.Limit], [Builder.Offset]).
	// When the statement has either, Vespa takes both values from it and
	// ignores Hits and Offset (MinimalQueryInserter). Use Hits and Offset to
	// page through one statement; the statement's for a window that belongs
	// to the query itself.
	Offset int
	// Ranking is the rank profile (ranking.profile). Empty: "default".
	Ranking string
	// Timeout is the query's timeout in Vespa (timeout, sent in
	// milliseconds, rounded up). The whole call, retries included, waits at
	// most 1.1×Timeout + 1 s (see [Client.Search]). 0: Vespa's default,
	// 500 ms, which bounds the call the same way.
	Timeout time.Duration
	// Inputs are the query's rank inputs, sent as input.query(<name>). The
	// name is the tensor's name ("q" gives input.query(q)); a name that
	// already has parentheses, such as "query(q)", is used as it is. A string
	// value is sent as it is, as tensor literal text ("[1,2,3]",
	// "{{x:a}:1.0}", "embed(e5, @text)"); any other value (a []float32, a
	// map[string]float64, a number, json.RawMessage) is sent as its JSON
	// encoding, which Vespa reads as the short tensor form.
	Inputs map[string]any
	// Summary is the document summary class to render
	// (presentation.summary). Empty: the schema's default.
	Summary string
	// Timing adds [Result.Timing] (presentation.timing).
	Timing bool
	// TraceLevel (1–9) adds [Result.Trace] (trace.level). 0: no trace.
	TraceLevel int
	// Params are any other request parameters, by their full or dotted
	// names ("ranking.matching.numThreadsPerSearch", "model.restrict",
	// "userinput" for a userInput(@userinput)). They are encoded as Vespa
	// reads them, the same for GET and POST: a value that is a JSON object
	// (a map, a struct, a json.RawMessage "{...}") is flattened into dotted
	// names ({"ranking": {"profile": "p"}} is ranking.profile=p), except
	// under input.* and at select.where and select.grouping, where Vespa
	// keeps objects as JSON; an object given as a rank feature value
	// (ranking.features.query(q), rankfeature.query(q)) is a tensor and is
	// sent as its JSON text. Strings are sent as they are, every other value
	// as its JSON text. A name given twice (flat and nested) is an error.
	Params map[string]any
	// GET sends the request as a GET with URL parameters instead of a POST
	// with a JSON body (the default). GET requests are limited by URL length.
	GET bool
	// Header holds HTTP headers of this request only (a request ID, say),
	// sent with the core client's own; the client's Authorization,
	// User-Agent and vespa.WithHeader values win over the same names. Nil:
	// none.
	Header http.Header
}

// errEmptyRequest is returned for a nil request.
var errEmptyRequest = errors.New("query: nil request")

// keepsObjects reports whether Vespa keeps a JSON object under this dotted
// name as raw JSON text rather than flattening it into dotted names: only
// under input.* and at select.where and select.grouping (Json2SingleLevelMap
// in container-search's search handler). Everywhere else a POSTed object
// {"ranking":{"profile":"p"}} is read as ranking.profile=p.
func keepsObjects(name string) bool {
	return strings.HasPrefix(name, "input.") || name == "select.where" || name == "select.grouping"
}

// isFeatureValue reports whether name is a rank feature value set through
// ranking.features.<feature> or rankfeature.<feature>, such as
// ranking.features.query(q). An object there is a tensor: flattening it
// would make bogus names (ranking.features.query(q).a), so it is sent as its
// JSON text, in a POST as in a GET, which Vespa parses as the tensor.
func isFeatureValue(name string) bool {
	return (strings.HasPrefix(name, "ranking.features.") || strings.HasPrefix(name, "rankfeature.")) &&
		strings.HasSuffix(name, ")")
}

// flatten adds the leaves of v under name to out, as Vespa reads a POST
// body: objects become dotted names except where [keepsObjects] says
// otherwise; arrays and scalars are leaves. Any Go value that encodes as a
// JSON object (a map, a struct, a json.RawMessage "{...}") is an object.
func flatten(out map[string]any, name string, v any) error {
	if v == nil {
		return fmt.Errorf("query: parameter %q is nil", name)
	}
	m, isObject, err := asObject(v)
	if err != nil {
		return fmt.Errorf("query: parameter %q: %w", name, err)
	}
	switch {
	case !isObject:
		if raw, ok := v.(json.RawMessage); ok {
			// A raw scalar or array: decode it, so that a JSON string is
			// sent as its text, not with its quotes.
			if v, err = decodeJSON(raw); err != nil {
				return fmt.Errorf("query: parameter %q: %w", name, err)
			}
		}
	case name != "" && keepsObjects(name):
		v = m
	case isFeatureValue(name):
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("query: parameter %q: %w", name, err)
		}
		v = string(b)
	default:
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k == "" {
				return fmt.Errorf("query: parameter %q has an empty key", name)
			}
			key := k
			if name != "" {
				key = name + "." + k
			}
			if err := flatten(out, key, m[k]); err != nil {
				return err
			}
		}
		return nil
	}
	if _, dup := out[name]; dup {
		return fmt.Errorf("query: parameter %q is given twice", name)
	}
	out[name] = v
	return nil
}

// asObject returns v as a map when its JSON encoding is an object.
func asObject(v any) (map[string]any, bool, error) {
	var b []byte
	switch x := v.(type) {
	case map[string]any:
		return x, true, nil
	case string, bool, int, int64, float64, json.Number:
		return nil, false, nil
	case json.RawMessage:
		b = bytes.TrimSpace(x)
	default:
		switch reflect.Indirect(reflect.ValueOf(v)).Kind() {
		case reflect.Map, reflect.Struct:
		default:
			return nil, false, nil
		}
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, false, err
		}
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, false, nil
	}
	m, err := decodeJSON(b)
	if err != nil {
		return nil, false, err
	}
	return m.(map[string]any), true, nil
}

// decodeJSON decodes one JSON value, numbers as json.Number so that they
// are sent as written.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return x, nil
}

// inputName returns the feature name of an input: q -> query(q).
func inputName(name string) (string, error) {
	if name == "" {
		return "", errors.New("query: empty input name")
	}
	if strings.ContainsAny(name, "()") {
		return name, nil
	}
	if err := checkIdent(name); err != nil {
		return "", fmt.Errorf("query: input %q: %w", name, err)
	}
	return "query(" + name + ")", nil
}

// params returns the request's parameters by their flat dotted names, as
// Vespa reads them from a GET's URL or a POST's body (see [flatten]), and
// their Go values.
func (r *Request) params() (map[string]any, error) {
	p := make(map[string]any, len(r.Params)+len(r.Inputs)+4)
	if err := flatten(p, "", r.Params); err != nil {
		return nil, err
	}
	if r.YQL != "" {
		p["yql"] = r.YQL
	}
	if r.Query != "" {
		p["query"] = r.Query
	}
	switch {
	case r.Hits == NoHits:
		p["hits"] = 0
	case r.Hits > 0:
		p["hits"] = r.Hits
	case r.Hits < 0:
		return nil, fmt.Errorf("query: invalid hits %d", r.Hits)
	}
	if r.Offset < 0 {
		return nil, fmt.Errorf("query: negative offset %d", r.Offset)
	} else if r.Offset > 0 {
		p["offset"] = r.Offset
	}
	if r.Ranking != "" {
		p["ranking.profile"] = r.Ranking
	}
	if r.Timeout < 0 {
		return nil, fmt.Errorf("query: negative timeout %v", r.Timeout)
	} else if r.Timeout > 0 {
		p["timeout"] = strconv.FormatInt(int64((r.Timeout+time.Millisecond-1)/time.Millisecond), 10) + "ms"
	}
	if r.Summary != "" {
		p["presentation.summary"] = r.Summary
	}
	if r.Timing {
		p["presentation.timing"] = true
	}
	if r.TraceLevel < 0 {
		return nil, fmt.Errorf("query: negative trace level %d", r.TraceLevel)
	} else if r.TraceLevel > 0 {
		p["trace.level"] = r.TraceLevel
	}
	for name, v := range r.Inputs {
		n, err := inputName(name)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, fmt.Errorf("query: input %q is nil", name)
		}
		if raw, ok := v.(json.RawMessage); ok {
			x, err := decodeJSON(raw)
			if err != nil {
				return nil, fmt.Errorf("query: input %q: %w", name, err)
			}
			v = x
		}
		p["input."+n] = v
	}
	return p, nil
}

// body returns the JSON body of a POST: one object of flat names, which
// Vespa reads exactly as the URL parameters of the same request's GET.
func (r *Request) body() ([]byte, error) {
	p, err := r.params()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("query: encode request: %w", err)
	}
	return b, nil
}

// values returns the URL parameters of a GET.
func (r *Request) values() (url.Values, error) {
	p, err := r.params()
	if err != nil {
		return nil, err
	}
	v := make(url.Values, len(p))
	for _, k := range slices.Sorted(maps.Keys(p)) {
		s, err := paramText(p[k])
		if err != nil {
			return nil, fmt.Errorf("query: parameter %q: %w", k, err)
		}
		v.Set(k, s)
	}
	return v, nil
}

// paramText renders a parameter value as URL parameter text: a string as
// it is, anything else as its JSON encoding, which is the text Vespa reads
// for the same value in a POST body (a number as written, an array or a kept
// object as its JSON).
func paramText(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
