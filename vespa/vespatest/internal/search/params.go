package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// params are the request parameters after flattening: full dotted names to text values.
type params map[string]string

// maxBodyBytes bounds a POST body.
const maxBodyBytes = 16 << 20

// rawJSONPrefixes name the objects kept as raw JSON text instead of being flattened, as Vespa's
// Json2SingleLevelMap does.
var rawJSONPrefixes = []string{"input.", "select.where", "select.grouping"}

// readParams collects the parameters of a GET or POST request. POST JSON bodies are flattened
// into dotted names; URL query parameters override the body.
func readParams(r *http.Request) (params, error) {
	p := params{}
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		if err != nil {
			return nil, fmt.Errorf("could not read request body: %w", err)
		}
		if len(body) > maxBodyBytes {
			return nil, fmt.Errorf("request body larger than %d bytes", maxBodyBytes)
		}
		if len(bytes.TrimSpace(body)) > 0 {
			if err := flattenBody(body, p); err != nil {
				return nil, err
			}
		}
	}
	for k, vs := range r.URL.Query() {
		if len(vs) > 0 {
			p[k] = vs[len(vs)-1]
		}
	}
	return p, nil
}

// flattenBody flattens a JSON object body into p.
func flattenBody(body []byte, p params) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root map[string]json.RawMessage
	if err := dec.Decode(&root); err != nil || root == nil {
		return fmt.Errorf("Could not parse JSON request body: not a JSON object")
	}
	if dec.More() {
		return fmt.Errorf("Could not parse JSON request body: trailing data after the JSON object")
	}
	return flattenObject("", root, p, 0)
}

func flattenObject(prefix string, obj map[string]json.RawMessage, p params, depth int) error {
	if depth > 64 {
		return fmt.Errorf("Could not parse JSON request body: nested too deeply")
	}
	for k, raw := range obj {
		name := prefix + k
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		switch raw[0] {
		case '{':
			if keepRaw(name) {
				p[name] = string(raw)
				continue
			}
			var sub map[string]json.RawMessage
			if err := json.Unmarshal(raw, &sub); err != nil {
				return fmt.Errorf("Could not parse JSON request body: %w", err)
			}
			if err := flattenObject(name+".", sub, p, depth+1); err != nil {
				return err
			}
		case '[':
			p[name] = string(raw)
		case '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("Could not parse JSON request body: %w", err)
			}
			p[name] = s
		case 'n':
			// null: the parameter is not set
		default:
			p[name] = string(raw)
		}
	}
	return nil
}

func keepRaw(name string) bool {
	for _, pre := range rawJSONPrefixes {
		if strings.HasPrefix(name, pre) {
			return true
		}
	}
	return false
}

// get returns the value of the parameter with the given full name (case-sensitive) or any of its
// aliases (case-insensitive), and whether one was set. A full name wins over an alias.
func (p params) get(full string, aliases ...string) (string, bool) {
	if v, ok := p[full]; ok {
		return v, true
	}
	for k, v := range p {
		for _, a := range aliases {
			if strings.EqualFold(k, a) {
				return v, true
			}
		}
	}
	return "", false
}

// rankInput returns the query tensor named by feature (e.g. "query(q)") from input.<feature>,
// ranking.features.<feature> or rankfeature.<feature>.
func (p params) rankInput(feature string) (string, bool) {
	for _, pre := range []string{"input.", "ranking.features.", "rankfeature."} {
		if v, ok := p[pre+feature]; ok {
			return v, true
		}
	}
	return "", false
}
