package vespa_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
)

func loadFixture(t *testing.T, name string, v any) {
	t.Helper()
	b := testutil.ReadFixture(t, name)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

type fixtureRequest struct {
	Method   string            `json:"method"`
	Path     string            `json:"path"`
	Query    map[string]string `json:"query"`
	RawQuery string            `json:"raw_query"`
	Headers  map[string]string `json:"headers"`
	Body     json.RawMessage   `json:"body"`
}

type docIDCase struct {
	Name      string         `json:"name"`
	Kind      string         `json:"kind"`
	Input     *string        `json:"input"`
	InputSpec string         `json:"input_spec"`
	Valid     bool           `json:"valid"`
	Parsed    map[string]any `json:"parsed"`
	Error     string         `json:"error"`
	// path cases
	Request  fixtureRequest `json:"request"`
	Status   *int           `json:"status"`
	ParsedID map[string]any `json:"parsed_id"`
	Response map[string]any `json:"response_body"`
}

var repeatSpec = regexp.MustCompile(`\{REPEAT:(.):(\d+)\}`)

func (c docIDCase) input(t *testing.T) string {
	if c.Input != nil {
		return *c.Input
	}
	return repeatSpec.ReplaceAllStringFunc(c.InputSpec, func(m string) string {
		sm := repeatSpec.FindStringSubmatch(m)
		n, err := strconv.Atoi(sm[2])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Repeat(sm[1], n)
	})
}

// Where govespa's parser knowingly differs from the server's: IDs the server
// accepts but /document/v1 cannot address (see ParseDocumentID).
var clientRejects = map[string]string{
	"id-06-valid": "user-specified part is empty",
	"id-09-valid": "negative",
	"id-12-valid": "document type is empty",
}

func TestConformance_DocIDParse(t *testing.T) {
	var cases []docIDCase
	loadFixture(t, "docid.json", &cases)
	n := 0
	for _, c := range cases {
		if c.Kind != "parse" {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			in := c.input(t)
			id, err := vespa.ParseDocumentID(in)
			if reason, ok := clientRejects[c.Name]; ok {
				if err == nil || !strings.Contains(err.Error(), reason) {
					t.Fatalf("ParseDocumentID(%q) = %v, want an error saying %q", in, err, reason)
				}
				return
			}
			if !c.Valid {
				if err == nil {
					t.Fatalf("ParseDocumentID(%q) accepted an ID the server rejects (%s)", in, c.Error)
				}
				if len(in) < 100 && !strings.Contains(err.Error(), strconv.Quote(in)) {
					t.Errorf("error %q does not quote the ID", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseDocumentID(%q): %v", in, err)
			}
			p := c.Parsed
			if id.Namespace != p["namespace"] || id.DocType != p["documentType"] {
				t.Errorf("namespace/type = %q/%q, want %v/%v", id.Namespace, id.DocType, p["namespace"], p["documentType"])
			}
			if us, ok := p["userSpecific"].(string); ok && id.UserSpecific != us {
				t.Errorf("user-specific = %q, want %q", id.UserSpecific, us)
			}
			if num, ok := p["number"].(float64); ok {
				if !id.HasNumber || float64(id.Number) != num {
					t.Errorf("number = %v (has %v), want %v", id.Number, id.HasNumber, num)
				}
			} else if id.HasNumber {
				t.Errorf("unexpected number %d", id.Number)
			}
			if g, _ := p["group"].(string); id.Group != g {
				t.Errorf("group = %q, want %q", id.Group, g)
			}
			if canon, ok := p["canonical"].(string); ok && id.String() != canon {
				t.Errorf("String() = %q, want canonical %q", id.String(), canon)
			}
			if back := serverIDFromPath(t, id.Path()); back != id.String() {
				t.Errorf("the server would read our path %s as %q, want %q", id.Path(), back, id.String())
			}
		})
	}
	if n == 0 {
		t.Fatal("no parse cases in docid.json")
	}
}

// serverIDFromPath builds the document ID the way Vespa's handler does: split
// the raw path on '/', form-decode each segment, and join the rest with '/'.
func serverIDFromPath(t *testing.T, rawPath string) string {
	t.Helper()
	segs := strings.Split(strings.TrimPrefix(rawPath, "/"), "/")
	for i, s := range segs {
		d, err := url.QueryUnescape(s)
		if err != nil {
			t.Fatalf("segment %q of %s does not decode: %v", s, rawPath, err)
		}
		if d == "" || d == "." || d == ".." {
			t.Fatalf("segment %d of %s decodes to %q, which the server rejects", i, rawPath, d)
		}
		segs[i] = d
	}
	if len(segs) < 6 || segs[0] != "document" || segs[1] != "v1" {
		t.Fatalf("%s is not a document path", rawPath)
	}
	ns, typ, rest := segs[2], segs[3], segs[4:]
	kv := ""
	switch rest[0] {
	case "docid":
		rest = rest[1:]
	case "number":
		n, err := strconv.ParseUint(rest[1], 10, 64)
		if err != nil {
			t.Fatalf("number segment %q: %v", rest[1], err)
		}
		kv, rest = "n="+strconv.FormatUint(n, 10), rest[2:]
	case "group":
		kv, rest = "g="+rest[1], rest[2:]
	default:
		t.Fatalf("%s: unknown route %q", rawPath, rest[0])
	}
	if len(rest) == 0 {
		t.Fatalf("%s has no document part (a visit path)", rawPath)
	}
	return "id:" + ns + ":" + typ + ":" + kv + ":" + strings.Join(rest, "/")
}

func TestConformance_DocIDPaths(t *testing.T) {
	var cases []docIDCase
	loadFixture(t, "docid.json", &cases)
	for _, c := range cases {
		if c.Kind != "path" || c.Response["id"] == nil {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			want := c.Response["id"].(string)
			// Our reading of Vespa's path decoding agrees with the fixture.
			if got := serverIDFromPath(t, c.Request.Path); got != want {
				t.Fatalf("decoding %s gives %q, the server gives %q", c.Request.Path, got, want)
			}
			id, err := vespa.ParseDocumentID(want)
			if err != nil {
				if strings.Contains(want, "/::") { // a type containing '/': no real application has one
					return
				}
				t.Fatalf("ParseDocumentID(%q): %v", want, err)
			}
			if got := serverIDFromPath(t, id.Path()); got != want {
				t.Errorf("our path %s reads back as %q, want %q", id.Path(), got, want)
			}
		})
	}
}

type docv1Case struct {
	Name        string            `json:"name"`
	Request     fixtureRequest    `json:"request"`
	Status      *int              `json:"status"`
	RespHeaders map[string]string `json:"response_headers"`
	RespBody    json.RawMessage   `json:"response_body"`
	RespRaw     *string           `json:"response_body_raw"`
	BodyMatch   string            `json:"body_match"`
}

var singleDocPath = regexp.MustCompile(`^/document/v1/[^/]+/[^/]+/(docid/[^/]|group/[^/]+/[^/]|number/[^/]+/[^/])`)

// TestConformance_DocV1 replays each single-document exchange of docv1.json:
// the request govespa sends for it must mean the same to Vespa (method,
// document ID, parameters, body), and the recorded response must decode to
// the same result and error.
func TestConformance_DocV1(t *testing.T) {
	var cases []docv1Case
	loadFixture(t, "docv1.json", &cases)
	n := 0
	for _, c := range cases {
		kind, ok := map[string]vespa.OperationKind{
			"GET": vespa.OpGet, "POST": vespa.OpPut, "PUT": vespa.OpUpdate, "DELETE": vespa.OpRemove,
		}[c.Request.Method]
		if !ok || !singleDocPath.MatchString(c.Request.Path) || c.Status == nil {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) { replayDocV1(t, c, kind) })
	}
	if n < 15 {
		t.Fatalf("only %d single-document cases found", n)
	}
}

func replayDocV1(t *testing.T, c docv1Case, kind vespa.OperationKind) {
	body := []byte(nil)
	if c.RespRaw != nil {
		body = []byte(*c.RespRaw)
	} else if len(c.RespBody) > 0 && string(c.RespBody) != "null" {
		var buf bytes.Buffer
		if err := json.Compact(&buf, c.RespBody); err != nil {
			t.Fatal(err)
		}
		body = buf.Bytes()
	}
	srv := newFakeVespa(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		for k, v := range c.RespHeaders {
			w.Header().Set(k, v)
		}
		w.WriteHeader(*c.Status)
		_, _ = w.Write(body)
	})
	client, err := vespa.NewClient(srv.URL, vespa.WithRetryAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	wantID := serverIDFromPath(t, c.Request.Path)
	id, err := vespa.ParseDocumentID(wantID)
	if err != nil {
		t.Fatalf("the fixture's ID %q: %v", wantID, err)
	}
	opts, skip := optionsFromQuery(t, c.Request.Query)
	if kind == vespa.OpGet {
		skip["dryRun"] = true // by design never sent on a get: Vespa refuses it there
	}

	var reqBody []byte
	if kind == vespa.OpPut || kind == vespa.OpUpdate {
		reqBody = rawBody(c.Request.Body)
	}
	res, err := client.SendOnce(context.Background(), nil, kind, id, reqBody, opts)
	if err != nil {
		t.Fatalf("SendOnce: %v", err)
	}
	got := srv.last(t)

	// The request.
	if got.Method != c.Request.Method {
		t.Errorf("method %s, want %s", got.Method, c.Request.Method)
	}
	if back := serverIDFromPath(t, got.RawPath); back != wantID {
		t.Errorf("the server reads our path %s as %q, want %q", got.RawPath, back, wantID)
	}
	for k, want := range c.Request.Query {
		if skip[k] {
			continue
		}
		gotV := lastValue(got.Query[k])
		if k == "timeout" {
			if d1, d2 := vespaDuration(t, gotV), vespaDuration(t, want); d1 != d2 {
				t.Errorf("timeout %q (%v), want %q (%v)", gotV, d1, want, d2)
			}
			continue
		}
		if gotV != want {
			t.Errorf("query %s = %q, want %q (sent %s)", k, gotV, want, got.RequestURI)
		}
	}
	for k := range got.Query {
		if _, ok := c.Request.Query[k]; !ok {
			t.Errorf("sent query parameter %s that the case does not have (%s)", k, got.RequestURI)
		}
	}
	if !bytes.Equal(got.Body, reqBody) {
		t.Errorf("sent body %q, want %q", got.Body, reqBody)
	}
	if kind == vespa.OpPut && len(got.Body) > 0 {
		// Put with the fields as a value sends the same {"fields":...}.
		var env struct{ Fields json.RawMessage }
		if json.Unmarshal(c.Request.Body, &env) == nil && len(env.Fields) > 0 {
			if _, err := client.Put(context.Background(), id, env.Fields, opts); err != nil && vespaStatus(err) != *c.Status {
				t.Errorf("Put: %v", err)
			}
			if !jsonEqual(t, srv.last(t).Body, []byte(`{"fields":`+string(env.Fields)+`}`)) {
				t.Errorf("Put sent %s", srv.last(t).Body)
			}
		}
	}

	// The result.
	if res.Status != *c.Status {
		t.Errorf("status %d, want %d", res.Status, *c.Status)
	}
	var resp map[string]json.RawMessage
	_ = json.Unmarshal(c.RespBody, &resp)
	checkString(t, "pathId", res.PathID, resp["pathId"], "")
	checkString(t, "id", res.ServerID, resp["id"], "")
	checkString(t, "message", res.Message, resp["message"], c.BodyMatch)
	if tr := resp["trace"]; tr != nil && !jsonEqual(t, res.Trace, tr) {
		t.Errorf("trace %s, want %s", res.Trace, tr)
	}
	if f := resp["fields"]; f != nil && !jsonEqual(t, res.Fields, f) {
		t.Errorf("fields %s, want %s", res.Fields, f)
	}
	if res.IgnoredOperation != (c.RespHeaders["X-Vespa-Ignored-Operation"] == "true") {
		t.Errorf("IgnoredOperation = %v", res.IgnoredOperation)
	}

	// The error.
	err = vespa.ErrorFromResult(res, kind.String())
	if *c.Status/100 == 2 {
		if err != nil {
			t.Errorf("ErrorFromResult = %v, want nil", err)
		}
		return
	}
	var ve *vespa.Error
	if !errors.As(err, &ve) || ve.StatusCode() != *c.Status || ve.ID != id.String() || ve.Op != kind.String() {
		t.Fatalf("ErrorFromResult = %#v", err)
	}
	if sentinel, ok := statusSentinels[*c.Status]; ok && !errors.Is(err, sentinel) {
		t.Errorf("errors.Is(%v, %v) = false", err, sentinel)
	}
	if res.Message != "" && !strings.Contains(err.Error(), res.Message) {
		t.Errorf("error %q does not hold Vespa's message", err)
	}
}

// optionsFromQuery maps a case's query to OperationOptions. skip names the
// parameters govespa cannot (or by design does not) send: an empty route,
// dryRun=false, which are Vespa's defaults or errors.
func optionsFromQuery(t *testing.T, q map[string]string) (vespa.OperationOptions, map[string]bool) {
	var o vespa.OperationOptions
	set := map[string]func(v string){
		"condition":      func(v string) { o.Condition = v },
		"create":         func(v string) { o.Create = v == "true" },
		"route":          func(v string) { o.Route = v },
		"timeout":        func(v string) { o.Timeout = vespaDuration(t, v) },
		"tracelevel":     func(v string) { o.TraceLevel, _ = strconv.Atoi(v) },
		"fieldSet":       func(v string) { o.FieldSet = v },
		"cluster":        func(v string) { o.Cluster = v },
		"dryRun":         func(v string) { o.DryRun = v == "true" },
		"format.tensors": func(v string) { o.TensorFormat = v },
	}
	skip := map[string]bool{}
	for k, v := range q {
		f, ok := set[k]
		if !ok {
			t.Fatalf("query parameter %s=%s has no option", k, v)
		}
		f(v)
		if v == "" || v == "false" {
			skip[k] = true
		}
	}
	return o, skip
}

// vespaDuration reads a Vespa time string: a number with an optional unit
// (ks, s, ms, µs); a bare number is seconds.
func vespaDuration(t *testing.T, s string) time.Duration {
	t.Helper()
	unit, num := time.Second, s
	for _, u := range []struct {
		suffix string
		d      time.Duration
	}{{"ks", 1000 * time.Second}, {"ms", time.Millisecond}, {"µs", time.Microsecond}, {"s", time.Second}} {
		if strings.HasSuffix(s, u.suffix) {
			unit, num = u.d, strings.TrimSuffix(s, u.suffix)
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		t.Fatalf("time string %q: %v", s, err)
	}
	return time.Duration(f * float64(unit))
}

func rawBody(b json.RawMessage) []byte {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		return []byte(s)
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, b)
	return buf.Bytes()
}

func lastValue(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

func checkString(t *testing.T, name, got string, want json.RawMessage, match string) {
	t.Helper()
	var w string
	if want != nil {
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if match == "message-prefix" && name == "message" {
		if !strings.HasPrefix(got, w) {
			t.Errorf("%s %q does not start with %q", name, got, w)
		}
		return
	}
	if got != w {
		t.Errorf("%s %q, want %q", name, got, w)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func vespaStatus(err error) int {
	var ve *vespa.Error
	if errors.As(err, &ve) {
		return ve.Status
	}
	return -1
}
