package vespatest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/vespatest"
)

func compareBody(c fixture, setup caseSetup, got []byte, base string) error {
	switch {
	case c.BodyMatch == "status-only":
		return nil
	case c.BodyMatch == "contains":
		for _, s := range c.Contains {
			if !bytes.Contains(got, []byte(s)) {
				return fmt.Errorf("body lacks %q: %s", s, clip(got))
			}
		}
		return nil
	case c.ResponseFormat == "empty":
		if len(got) != 0 {
			return fmt.Errorf("body %q, want empty", got)
		}
		return nil
	}
	want, err := decode(c.ResponseBody)
	if err != nil {
		return err
	}
	have, err := decode(got)
	if err != nil {
		return fmt.Errorf("body is not JSON: %w: %s", err, clip(got))
	}
	// Config-server URLs echo the request's host.
	if c.file == "deploy.json" {
		b, _ := json.Marshal(want)
		for _, h := range []string{"http://host:123", "http://foo:1337"} {
			b = bytes.ReplaceAll(b, []byte(h), []byte(base))
		}
		want, _ = decode(b)
	}
	wm, _ := want.(map[string]any)
	hm, _ := have.(map[string]any)
	switch setup.mode {
	case "ignore-trace":
		if wm["trace"] != nil && hm["trace"] != nil {
			wm["trace"], hm["trace"] = "(trace)", "(trace)"
		}
	case "free-message":
		if m, ok := hm["message"].(string); ok && m != "" && wm["message"] != nil {
			hm["message"] = wm["message"]
		}
	case "ignore-continuation":
		if hm["continuation"] != nil && wm["continuation"] != nil {
			hm["continuation"] = wm["continuation"]
		}
	}
	switch c.BodyMatch {
	case "subset", "contains-fields":
		if !testutil.Subset(want, have) {
			return fmt.Errorf("body %s does not contain %s", clip(got), c.ResponseBody)
		}
	case "message-prefix":
		wmsg, _ := wm["message"].(string)
		hmsg, _ := hm["message"].(string)
		if !strings.HasPrefix(hmsg, wmsg) {
			return fmt.Errorf("message %q does not start with %q", hmsg, wmsg)
		}
		delete(wm, "message")
		delete(hm, "message")
		if !reflect.DeepEqual(wm, hm) {
			return fmt.Errorf("body %s, want %s", clip(got), c.ResponseBody)
		}
	default:
		if !reflect.DeepEqual(want, have) {
			return fmt.Errorf("body %s, want %s", clip(got), c.ResponseBody)
		}
	}
	return nil
}

// visitAll follows continuations from the first response and returns every
// document (or JSONL line) and the key set of the first page.
func visitAll(s *vespatest.Server, first *http.Request, got []byte, jsonl bool) ([]any, error) {
	var docs []any
	for range 10_000 {
		var token string
		if jsonl {
			for line := range strings.SplitSeq(strings.TrimSpace(string(got)), "\n") {
				v, err := decode([]byte(line))
				if err != nil {
					return nil, err
				}
				m := v.(map[string]any)
				if c, ok := m["continuation"].(map[string]any); ok {
					token, _ = c["token"].(string)
					continue
				}
				if _, ok := m["sessionStats"]; ok {
					continue
				}
				docs = append(docs, v)
			}
		} else {
			v, err := decode(got)
			if err != nil {
				return nil, err
			}
			m := v.(map[string]any)
			list, _ := m["documents"].([]any)
			docs = append(docs, list...)
			token, _ = m["continuation"].(string)
		}
		if token == "" {
			return docs, nil
		}
		req := first.Clone(first.Context())
		q := req.URL.Query()
		q.Set("continuation", token)
		req.URL.RawQuery = q.Encode()
		resp, err := s.Client().Do(req)
		if err != nil {
			return nil, err
		}
		got, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	return nil, fmt.Errorf("visit did not end")
}

// compareVisit compares the union of all pages with the fixture's documents.
func compareVisit(s *vespatest.Server, req *http.Request, c fixture, got []byte) error {
	jsonl := c.ResponseFormat == "jsonl"
	have, err := visitAll(s, req, got, jsonl)
	if err != nil {
		return err
	}
	var want []any
	if jsonl {
		var lines []map[string]any
		_ = json.Unmarshal(c.ResponseBody, &lines)
		for _, l := range lines {
			if l["continuation"] == nil && l["sessionStats"] == nil {
				want = append(want, any(l))
			}
		}
	} else {
		var page map[string]any
		_ = json.Unmarshal(c.ResponseBody, &page)
		want, _ = page["documents"].([]any)
		first, _ := decode(got)
		for k := range page {
			if _, ok := first.(map[string]any)[k]; !ok && k != "continuation" {
				return fmt.Errorf("first page lacks %q: %s", k, clip(got))
			}
		}
	}
	key := func(list []any) []string {
		var out []string
		for _, d := range list {
			b, _ := json.Marshal(d)
			out = append(out, string(b))
		}
		sort.Strings(out)
		return out
	}
	if !reflect.DeepEqual(key(want), key(have)) {
		return fmt.Errorf("visited %v, want %v", key(have), key(want))
	}
	return nil
}

// compareMass sums documentCount over all chunks of a mass operation.
func compareMass(s *vespatest.Server, req *http.Request, c fixture, got []byte) error {
	var want map[string]any
	_ = json.Unmarshal(c.ResponseBody, &want)
	have, err := decode(got)
	if err != nil {
		return err
	}
	h := have.(map[string]any)
	if h["documentCount"] != want["documentCount"] || h["pathId"] != want["pathId"] {
		return fmt.Errorf("body %s, want %s", clip(got), c.ResponseBody)
	}
	return nil
}
