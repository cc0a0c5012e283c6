package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/integration/jdisc"
	"github.com/govespa/govespa/vespa/deploy"
)

// Starting a target with an application package other than testdata/app,
// and talking to it in raw document and query JSON: the building blocks of
// the rich round trip (suite_rich_test.go) and of its typed variant.

// richAppDir is the application package with a field of every Vespa field
// type (schemas rich and artist, content cluster "richcontent").
const richAppDir = "testdata/richapp"

// appTargetProvider starts (or finds) one kind of target serving the
// application package app; it skips t when the target is not available.
type appTargetProvider struct {
	name  string
	start func(t *testing.T, app string) Target
}

// appTargetProviders are the targets that can serve any application
// package, in order: the emulator (deployed through its config server), the
// JDisc harness (one JVM per package, started with it) and an external Vespa
// (deployed through its config server, replacing the application it runs).
var appTargetProviders = []appTargetProvider{
	{name: "emulator", start: startEmulatorWithApp},
	{name: "jdisc", start: startJDiscWithApp},
	{name: "external", start: startExternalWithApp},
}

// forEachAppTarget runs body as a subtest per target serving app, named
// after the target; a failing subtest dumps the target's logs.
func forEachAppTarget(t *testing.T, app string, body func(t *testing.T, tg Target)) {
	t.Helper()
	for _, p := range appTargetProviders {
		t.Run(p.name, func(t *testing.T) {
			tg := p.start(t, app)
			t.Cleanup(func() {
				if t.Failed() {
					dumpTargetLogs(t, tg)
				}
			})
			body(t, tg)
		})
	}
}

// appTarget is a target serving another application package: its content
// cluster is the first of that package's services.xml.
type appTarget struct {
	Target
	cluster string
}

func (a *appTarget) Cluster() string { return a.cluster }

// withApp wraps tg as serving app.
func withApp(t *testing.T, tg Target, app string) Target {
	t.Helper()
	cluster, err := jdisc.ContentCluster(app)
	if err != nil {
		t.Fatalf("[%s] %v", tg.Name(), err)
	}
	return &appTarget{Target: tg, cluster: cluster}
}

// startEmulatorWithApp starts an emulator and deploys app to it.
func startEmulatorWithApp(t *testing.T, app string) Target {
	t.Helper()
	tg := withApp(t, startEmulatorTarget(t), app)
	deployApp(t, tg, app)
	return tg
}

// startExternalWithApp deploys app to the external Vespa (skipping t when
// there is none). The deploy replaces the application it runs.
func startExternalWithApp(t *testing.T, app string) Target {
	t.Helper()
	tg := withApp(t, startExternalTarget(t), app)
	deployApp(t, tg, app)
	return tg
}

// startJDiscWithApp returns the JDisc harness serving app (started once per
// test binary and package), with an empty store.
func startJDiscWithApp(t *testing.T, app string) Target {
	t.Helper()
	h := jdiscHarnessFor(t, app)
	if err := h.Reset(t.Context()); err != nil {
		t.Fatalf("[jdisc] reset: %v", err)
	}
	return withApp(t, &jdiscTarget{h: h}, app)
}

// deployApp deploys app through tg's config server and waits until the
// container answers.
func deployApp(t *testing.T, tg Target, app string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), tg.Timeout())
	defer cancel()
	cs, err := deploy.NewConfigServer(tg.ConfigServer(), tg.ConfigServerOptions()...)
	if err != nil {
		t.Fatalf("[%s] deploy.NewConfigServer: %v", tg.Name(), err)
	}
	if err := cs.WaitForHealth(ctx, tg.ConfigServer()); err != nil {
		t.Fatalf("[%s] the config server did not come up: %v", tg.Name(), err)
	}
	pkg, err := deploy.NewPackage(app)
	if err != nil {
		t.Fatalf("deploy.NewPackage(%s): %v", app, err)
	}
	params := deploy.Params{ContainerURLs: []string{tg.Endpoint()}}
	if h, ok := tg.(healthURLer); ok {
		params.ContainerURLs = h.deployHealthURLs()
	}
	sess, err := cs.DeployAndWait(ctx, pkg, params)
	if err != nil {
		t.Fatalf("[%s] deploy of %s: %v", tg.Name(), app, err)
	}
	if !sess.Activated {
		t.Fatalf("[%s] deploy of %s: session %+v not activated", tg.Name(), app, sess)
	}
	if err := newTargetClient(t, tg).WaitUntilReady(ctx); err != nil {
		t.Fatalf("[%s] the container did not become ready: %v", tg.Name(), err)
	}
}

// rawAPI sends raw document/v1 and query requests to a target and decodes
// the JSON answers with json.Number for numbers.
type rawAPI struct {
	tg   Target
	base string
	hc   *http.Client
}

// newRawAPI returns a rawAPI for tg, with the HTTP client (credentials,
// TLS) of a vespa.Client made for it.
func newRawAPI(t *testing.T, tg Target) *rawAPI {
	t.Helper()
	return &rawAPI{tg: tg, base: tg.Endpoint(), hc: newTargetClient(t, tg).HTTPClient()}
}

// rawAnswer is a target's answer: its status, body and decoded body (nil
// when it is not JSON).
type rawAnswer struct {
	Status int
	Body   []byte
	JSON   any
}

// do sends method path (relative to the container's base URL) with body,
// when not empty, as JSON.
func (r *rawAPI) do(ctx context.Context, method, path, body string) (*rawAnswer, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	a := &rawAnswer{Status: resp.StatusCode, Body: b}
	if v, err := decodeJSON(b); err == nil {
		a.JSON = v
	}
	return a, nil
}

// decodeJSON decodes b keeping numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// mustDo is do that fails t on a transport error or a status other than
// want.
func (r *rawAPI) mustDo(t *testing.T, method, path, body string, want int) *rawAnswer {
	t.Helper()
	a, err := r.do(t.Context(), method, path, body)
	if err != nil {
		t.Fatalf("[%s] %s %s: %v", r.tg.Name(), method, path, err)
	}
	if a.Status != want {
		t.Fatalf("[%s] %s %s: status %d, want %d: %s", r.tg.Name(), method, path, a.Status, want, clip(a.Body))
	}
	return a
}

// docPath is the document/v1 path of id:ns:doctype::key.
func docPath(ns, doctype, key string) string {
	return "/document/v1/" + url.PathEscape(ns) + "/" + url.PathEscape(doctype) + "/docid/" + url.PathEscape(key)
}

// putRaw puts fields (a JSON object of Vespa's document JSON) as
// id:ns:doctype::key and fails t unless the target answers 200.
func (r *rawAPI) putRaw(t *testing.T, ns, doctype, key, fields string) {
	t.Helper()
	r.mustDo(t, http.MethodPost, docPath(ns, doctype, key), `{"fields":`+fields+`}`, http.StatusOK)
}

// updateRaw sends a partial update (a JSON object of field operations) to
// id:ns:doctype::key and returns the answer.
func (r *rawAPI) updateRaw(t *testing.T, ns, doctype, key, fields string) *rawAnswer {
	t.Helper()
	a, err := r.do(t.Context(), http.MethodPut, docPath(ns, doctype, key), `{"fields":`+fields+`}`)
	if err != nil {
		t.Fatalf("[%s] update %s: %v", r.tg.Name(), key, err)
	}
	return a
}

// getFields gets id:ns:doctype::key and returns its "fields" object.
func (r *rawAPI) getFields(t *testing.T, ns, doctype, key string) map[string]any {
	t.Helper()
	a := r.mustDo(t, http.MethodGet, docPath(ns, doctype, key), "", http.StatusOK)
	return objectAt(t, r.tg.Name(), a.JSON, "fields")
}

// visitFields visits the documents of doctype in ns (in the target's
// cluster) and returns the "fields" object of each, by document ID.
func (r *rawAPI) visitFields(t *testing.T, ns, doctype string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	cont := ""
	for range 100 {
		q := url.Values{"cluster": {r.tg.Cluster()}, "wantedDocumentCount": {"100"}}
		if cont != "" {
			q.Set("continuation", cont)
		}
		path := "/document/v1/" + url.PathEscape(ns) + "/" + url.PathEscape(doctype) + "/docid/?" + q.Encode()
		a := r.mustDo(t, http.MethodGet, path, "", http.StatusOK)
		m, _ := a.JSON.(map[string]any)
		docs, _ := m["documents"].([]any)
		for _, d := range docs {
			dm, _ := d.(map[string]any)
			id, _ := dm["id"].(string)
			f, _ := dm["fields"].(map[string]any)
			if _, dup := out[id]; dup {
				t.Fatalf("[%s] visit of %s/%s: %q visited twice", r.tg.Name(), ns, doctype, id)
			}
			out[id] = f
		}
		c, _ := m["continuation"].(string)
		if c == "" {
			return out
		}
		cont = c
	}
	t.Fatalf("[%s] visit of %s/%s: no end after 100 pages", r.tg.Name(), ns, doctype)
	return nil
}

// query runs a GET /search/ with params and returns the answer, whatever
// its status.
func (r *rawAPI) query(t *testing.T, params url.Values) *rawAnswer {
	t.Helper()
	a, err := r.do(t.Context(), http.MethodGet, "/search/?"+params.Encode(), "")
	if err != nil {
		t.Fatalf("[%s] query %v: %v", r.tg.Name(), params, err)
	}
	return a
}

// queryHits runs yql (with extra params) and returns the hits of root.children
// (each hit's whole object), failing t unless the target answers 200.
func (r *rawAPI) queryHits(t *testing.T, yql string, extra url.Values) []map[string]any {
	t.Helper()
	params := url.Values{"yql": {yql}}
	for k, v := range extra {
		params[k] = v
	}
	a := r.query(t, params)
	if a.Status != http.StatusOK {
		t.Fatalf("[%s] query %q: status %d: %s", r.tg.Name(), yql, a.Status, clip(a.Body))
	}
	root := objectAt(t, r.tg.Name(), a.JSON, "root")
	children, _ := root["children"].([]any)
	hits := make([]map[string]any, 0, len(children))
	for _, c := range children {
		if h, ok := c.(map[string]any); ok {
			hits = append(hits, h)
		}
	}
	return hits
}

// objectAt returns v[key] as an object, failing t when it is not one.
func objectAt(t *testing.T, target string, v any, key string) map[string]any {
	t.Helper()
	m, _ := v.(map[string]any)
	o, ok := m[key].(map[string]any)
	if !ok {
		t.Fatalf("[%s] no %q object in %s", target, key, clipJSON(v))
	}
	return o
}

// clip shortens b for a failure message.
func clip(b []byte) string {
	const n = 2000
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// clipJSON is clip of v encoded as JSON.
func clipJSON(v any) string {
	b, _ := json.Marshal(v)
	return clip(b)
}

// jsonSame reports whether a and b are the same JSON value: numbers
// compared by value (1 and 1.0 are the same), objects whatever their key
// order, arrays in order. A difference is described by the path to it.
func jsonSame(a, b any) (bool, string) {
	return jsonSameAt("", a, b)
}

func jsonSameAt(path string, a, b any) (bool, string) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false, fmt.Sprintf("%s: %s against %s", orRoot(path), clipJSON(a), clipJSON(b))
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok {
				return false, fmt.Sprintf("%s.%s: missing in the second", orRoot(path), k)
			}
			if same, why := jsonSameAt(path+"."+k, v, w); !same {
				return false, why
			}
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				return false, fmt.Sprintf("%s.%s: missing in the first", orRoot(path), k)
			}
		}
		return true, ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false, fmt.Sprintf("%s: %s against %s", orRoot(path), clipJSON(a), clipJSON(b))
		}
		for i := range x {
			if same, why := jsonSameAt(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); !same {
				return false, why
			}
		}
		return true, ""
	case json.Number:
		if y, ok := b.(json.Number); ok && sameNumber(x, y) {
			return true, ""
		}
		return false, fmt.Sprintf("%s: %s against %s", orRoot(path), clipJSON(a), clipJSON(b))
	default:
		if a == b {
			return true, ""
		}
		return false, fmt.Sprintf("%s: %s against %s", orRoot(path), clipJSON(a), clipJSON(b))
	}
}

// sameNumber reports whether x and y are the same number: exactly when
// both are integers (a long such as 9007199254740993, which a float64
// cannot hold, differs from its neighbours), else as float64 (1 and 1.0,
// 1e-7 and 1.0E-7 are the same).
func sameNumber(x, y json.Number) bool {
	ix, okx := new(big.Int).SetString(x.String(), 10)
	iy, oky := new(big.Int).SetString(y.String(), 10)
	if okx && oky {
		return ix.Cmp(iy) == 0
	}
	fx, errx := x.Float64()
	fy, erry := y.Float64()
	return errx == nil && erry == nil && fx == fy
}

func orRoot(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

// expectJSON decodes s (a test's expected JSON) with json.Number, panicking
// on a typo in the test.
func expectJSON(s string) any {
	v, err := decodeJSON([]byte(s))
	if err != nil {
		panic(fmt.Sprintf("bad expected JSON %s: %v", s, err))
	}
	return v
}

// TestJSONSame_Numbers: integers are compared exactly (a long a float64
// rounds to a neighbour is not the same), other numbers by value.
func TestJSONSame_Numbers(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`9007199254740993`, `9007199254740993`, true},
		{`9007199254740993`, `9007199254740992`, false},
		{`{"f_long": 9007199254740993}`, `{"f_long": 9007199254740992}`, false},
		{`1`, `1.0`, true},
		{`1e-7`, `1.0E-7`, true},
		{`0.1`, `0.10000000149011612`, false},
		{`[1, 2]`, `[1, 2.5]`, false},
	} {
		if same, why := jsonSame(expectJSON(c.a), expectJSON(c.b)); same != c.same {
			t.Errorf("jsonSame(%s, %s) = %v (%s), want %v", c.a, c.b, same, why, c.same)
		}
	}
}
