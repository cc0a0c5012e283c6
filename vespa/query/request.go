package query

import (
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
	// "userinput" for a userInput(@userinput)). A nested map[string]any is
	// flattened into dotted names, except under input.*, select.where and
	// select.grouping, where Vespa keeps objects as JSON. Strings, booleans
	// and numbers are sent as their text; other values as JSON.
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

// rawPrefix reports whether Vespa keeps an object under this dotted name as
// raw JSON rather than flattening it.
func rawPrefix(name string) bool {
	return strings.HasPrefix(name, "input.") || name == "select.where" || name == "select.grouping" ||
		strings.HasPrefix(name, "ranking.features.") || strings.HasPrefix(name, "rankfeature.")
}

// flatten adds the leaves of v under name to out.
func flatten(out map[string]any, name string, v any) error {
	m, ok := v.(map[string]any)
	if !ok || rawPrefix(name) {
		if v == nil {
			return fmt.Errorf("query: parameter %q is nil", name)
		}
		out[name] = v
		return nil
	}
	for k, sub := range m {
		if k == "" {
			return fmt.Errorf("query: parameter %q has an empty key", name)
		}
		key := k
		if name != "" {
			key = name + "." + k
		}
		if err := flatten(out, key, sub); err != nil {
			return err
		}
	}
	return nil
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

// params returns the request's parameters as flat names (except the input
// object) and Go values.
func (r *Request) params() (map[string]any, map[string]any, error) {
	p := make(map[string]any, len(r.Params)+4)
	if err := flatten(p, "", r.Params); err != nil {
		return nil, nil, err
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
		return nil, nil, fmt.Errorf("query: invalid hits %d", r.Hits)
	}
	if r.Offset < 0 {
		return nil, nil, fmt.Errorf("query: negative offset %d", r.Offset)
	} else if r.Offset > 0 {
		p["offset"] = r.Offset
	}
	if r.Ranking != "" {
		p["ranking.profile"] = r.Ranking
	}
	if r.Timeout < 0 {
		return nil, nil, fmt.Errorf("query: negative timeout %v", r.Timeout)
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
		return nil, nil, fmt.Errorf("query: negative trace level %d", r.TraceLevel)
	} else if r.TraceLevel > 0 {
		p["trace.level"] = r.TraceLevel
	}
	var inputs map[string]any
	if len(r.Inputs) > 0 {
		inputs = make(map[string]any, len(r.Inputs))
		for name, v := range r.Inputs {
			n, err := inputName(name)
			if err != nil {
				return nil, nil, err
			}
			if v == nil {
				return nil, nil, fmt.Errorf("query: input %q is nil", name)
			}
			inputs[n] = v
		}
	}
	return p, inputs, nil
}

// body returns the JSON body of a POST.
func (r *Request) body() ([]byte, error) {
	p, inputs, err := r.params()
	if err != nil {
		return nil, err
	}
	if inputs != nil {
		if old, ok := p["input"].(map[string]any); ok {
			maps.Copy(old, inputs)
		} else {
			p["input"] = inputs
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("query: encode request: %w", err)
	}
	return b, nil
}

// values returns the URL parameters of a GET.
func (r *Request) values() (url.Values, error) {
	p, inputs, err := r.params()
	if err != nil {
		return nil, err
	}
	v := make(url.Values, len(p)+len(inputs))
	for _, k := range slices.Sorted(maps.Keys(p)) {
		s, err := paramText(p[k])
		if err != nil {
			return nil, fmt.Errorf("query: parameter %q: %w", k, err)
		}
		v.Set(k, s)
	}
	for k, in := range inputs {
		s, err := paramText(in)
		if err != nil {
			return nil, fmt.Errorf("query: input %q: %w", k, err)
		}
		v.Set("input."+k, s)
	}
	return v, nil
}

// paramText renders a parameter value as URL parameter text: scalars as
// their text, anything else as JSON.
func paramText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case json.RawMessage:
		return string(x), nil
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint8, reflect.Uint16,
		reflect.Uint32, reflect.Uint64, reflect.Float32:
		return fmt.Sprint(v), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
