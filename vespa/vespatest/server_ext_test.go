package vespatest_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/vespatest"
)

func do(t *testing.T, hc *http.Client, method, url, body string) (int, string) {
	t.Helper()
	code, _, b := doH(t, hc, method, url, body)
	return code, b
}

func h2cClient() *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &p}}
}

func TestServer_speaksPriorKnowledgeH2C(t *testing.T) {
	s := vespatest.NewTestServer(t)
	hc := h2cClient()
	defer hc.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/document/v1/ns/music/docid/1", strings.NewReader(`{"fields":{"a":"b"}}`))
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
		t.Fatalf("proto %s status %d", resp.Proto, resp.StatusCode)
	}
}

func TestServer_updatesAndConditions(t *testing.T) {
	s := newMusicServer(t, "title", "string", "year", "int", "tags", "array<string>",
		"ws", "weightedset<string>", "m", "map<string,int>", "t", "tensor<float>(cat{})", "v", "tensor(x[3])")
	hc, doc := s.Client(), s.URL()+"/document/v1/ns/music/docid/a"
	steps := []struct {
		method, url, body string
		status            int
	}{
		{"POST", doc, `{"fields":{"title":"x","year":2000,"tags":["a"],"ws":{"k":1},"t":{"p":1},"v":[1,2,3]}}`, 200},
		{"POST", doc, `{"fields":{"nope":1}}`, 400},
		{"PUT", doc, `{"fields":{"year":{"increment":5},"tags":{"add":["b","c"]},"ws":{"match":{"element":"k","increment":2}}}}`, 200},
		{"PUT", doc, `{"fields":{"tags":{"remove":["a"]},"m{x}":{"assign":7},"t":{"modify":{"operation":"add","cells":{"p":2}}}}}`, 200},
		{"PUT", doc, `{"fields":{"v":{"modify":{"operation":"multiply","addresses":[{"address":{"x":"1"},"value":10}]}}}}`, 200},
		{"PUT", doc + "?condition=" + `music.year%3D%3D1`, `{"fields":{"title":{"assign":"no"}}}`, 412},
		{"PUT", doc + "?condition=" + `music.year%3D%3D2005`, `{"fields":{"title":{"assign":null}}}`, 200},
		{"PUT", s.URL() + "/document/v1/ns/music/docid/new", `{"fields":{"year":{"assign":1}}}`, 200},
		{http.MethodDelete, s.URL() + "/document/v1/ns/music/docid/new?condition=true", ``, 412},
		{"PUT", s.URL() + "/document/v1/ns/music/docid/new?create=true&condition=false", `{"fields":{"year":{"assign":1}}}`, 200},
	}
	for i, st := range steps {
		if got, body := do(t, hc, st.method, st.url, st.body); got != st.status {
			t.Fatalf("step %d: %s %s: %d %s, want %d", i, st.method, st.url, got, body, st.status)
		}
	}
	got, _ := s.Document("id:ns:music::a")
	want := `{"year":2005,"tags":["b","c"],"ws":{"k":3},"t":{"type":"tensor<float>(cat{})","cells":{"p":3}},"v":{"type":"tensor(x[3])","values":[1,20,3]},"m":{"x":7}}`
	if !jsonEq(got, []byte(want)) {
		t.Errorf("document %s, want %s", got, want)
	}
	if _, ok := s.Document("id:ns:music::new"); !ok {
		t.Error("create=true with a condition on a missing document did not create it")
	}
}

func jsonEq(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestServer_faultsAreReproducibleAndCounted(t *testing.T) {
	run := func() []int {
		s := vespatest.NewTestServer(t, vespatest.WithSeed(7), vespatest.WithFaults(vespatest.FaultRule{
			Op: vespatest.OpPut, Rate: 0.5, Fault: vespatest.FaultOverload()}))
		var out []int
		for range 20 {
			st, _ := do(t, s.Client(), "POST", s.URL()+"/document/v1/ns/music/docid/1", `{"fields":{}}`)
			out = append(out, st)
		}
		if n := s.FaultStats().ByStatus[429]; n == 0 || n == 20 {
			t.Errorf("%d of 20 got 429 at rate 0.5", n)
		}
		return out
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different faults: %v vs %v", a, b)
	}
}

func TestServer_scriptedFaults(t *testing.T) {
	s := vespatest.NewTestServer(t, vespatest.WithMaxRequestBytes(64))
	s.ScriptFaults(vespatest.OpAny, vespatest.FaultUnavailable(), vespatest.Fault{}, vespatest.FaultInsufficientStorage())
	url := s.URL() + "/document/v1/ns/music/docid/1"
	for i, want := range []int{503, 200, 507, 200} {
		if st, body := do(t, s.Client(), "POST", url, `{"fields":{}}`); st != want {
			t.Errorf("request %d: %d %s, want %d", i, st, body, want)
		}
	}
	if st, body := do(t, s.Client(), "POST", url, `{"fields":{"a":"`+strings.Repeat("x", 100)+`"}}`); st != 413 || !strings.Contains(body, "exceeds maximum size of 64 bytes") {
		t.Errorf("oversized: %d %s", st, body)
	}
	// POST: the client does not retry it on a fresh connection that was closed.
	s.ScriptFaults(vespatest.OpPut, vespatest.FaultDrop())
	if err := postOnce(t, http.DefaultClient, url); err == nil {
		t.Error("a dropped HTTP/1.1 connection gave no error")
	}
	s.ScriptFaults(vespatest.OpPut, vespatest.FaultDrop())
	h2 := h2cClient()
	if err := postOnce(t, h2, url); err == nil {
		t.Error("a dropped HTTP/2 stream gave no error")
	}
	h2.CloseIdleConnections()
	s.ScriptFaults(vespatest.OpGet, vespatest.FaultLatency(time.Second))
	if st, body := do(t, s.Client(), "GET", url+"?timeout=5ms", ""); st != 504 || !strings.Contains(body, "Timeout after 5ms") {
		t.Errorf("latency over the timeout: %d %s", st, body)
	}
	if got := s.FaultStats(); got.Dropped != 2 || got.Total != 5 {
		t.Errorf("stats %+v", got)
	}
}

func TestServer_TLSWithClientCertificatesAndToken(t *testing.T) {
	s := vespatest.NewTestServer(t, vespatest.WithClientCertificates(), vespatest.WithToken("secret"))
	if !strings.HasPrefix(s.URL(), "https://") {
		t.Fatalf("URL %s", s.URL())
	}
	if st, body := do(t, s.Client(), "GET", s.URL()+"/state/v1/health", ""); st != 200 {
		t.Fatalf("with cert and token: %d %s", st, body)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CACertificatePEM())
	certPEM, keyPEM := s.ClientCertificatePEM()
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	noToken := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}}
	if st, _ := do(t, noToken, "GET", s.URL()+"/state/v1/health", ""); st != 403 {
		t.Errorf("without token: %d, want 403", st)
	}
	noCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL()+"/state/v1/health", nil)
	if resp, err := noCert.Do(req); err == nil {
		resp.Body.Close()
		t.Error("a client without certificate got through")
	}
}

// postOnce posts an empty document and returns the transport error.
func postOnce(t *testing.T, hc *http.Client, url string) error {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"fields":{}}`))
	resp, err := hc.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

func TestServer_healthStateMachine(t *testing.T) {
	s := vespatest.NewTestServer(t, vespatest.WithHealth("initializing"))
	check := func(wantCode string, wantStatus int) {
		t.Helper()
		_, body := do(t, s.Client(), "GET", s.URL()+"/state/v1/health", "")
		var h struct{ Status struct{ Code string } }
		_ = json.Unmarshal([]byte(body), &h)
		st, _ := do(t, s.Client(), "GET", s.URL()+"/status.html", "")
		if h.Status.Code != wantCode || st != wantStatus {
			t.Errorf("health %q status.html %d, want %q %d", h.Status.Code, st, wantCode, wantStatus)
		}
	}
	check("initializing", 404)
	deploy(t, s, "default") // a deploy brings the container up
	check("up", 200)
	if err := s.SetHealth("down"); err != nil {
		t.Fatal(err)
	}
	check("down", 404)
}

func TestServer_deployReplacesSchemas(t *testing.T) {
	s := vespatest.NewTestServer(t)
	url := s.URL() + "/document/v1/ns/book/docid/1"
	if st, _ := do(t, s.Client(), "POST", url, `{"fields":{"x":1}}`); st != 200 {
		t.Fatalf("lenient mode rejected a put: %d", st)
	}
	deploy(t, s, "default")
	// A put is parsed against its type (400); a get and a visit are passed
	// on, and the content node, which holds the old document's bucket, fails
	// on the unknown type (500; see the tests of unknown_type_ext_test.go).
	for _, c := range [][4]string{ // method, path, body, status and text
		{"POST", url, `{"fields":{"x":1}}`, `400 "message":"Document type book does not exist"`},
		{"GET", url, "", "500 Unknown document type book"},
		{"GET", s.URL() + "/document/v1/ns/book/docid", "", "500 Document type 'book' not found"},
	} {
		want, text, _ := strings.Cut(c[3], " ")
		if st, body := do(t, s.Client(), c[0], c[1], c[2]); strconv.Itoa(st) != want || !strings.Contains(body, text) {
			t.Errorf("%s %s, unknown type after deploy: %d %s, want %s", c[0], c[1], st, body, c[3])
		}
	}
	music := s.URL() + "/document/v1/ns/music/docid/1"
	if st, body := do(t, s.Client(), "POST", music, `{"fields":{"artist":"a","nope":1}}`); st != 400 || !strings.Contains(body, "Field 'nope' is not defined in document type 'music'") {
		t.Errorf("unknown field: %d %s", st, body)
	}
	_, body := do(t, http.DefaultClient, "GET", s.ConfigServerURL()+
		"/application/v2/tenant/default/application/default/environment/prod/region/default/instance/default/serviceconverge", "")
	if !strings.Contains(body, `"converged":true`) || !strings.Contains(body, `"wantedGeneration":2`) {
		t.Errorf("serviceconverge: %s", body)
	}
}

func TestServer_applicationDir(t *testing.T) {
	dir := testutil.AppDir(t, map[string]string{"services.xml": servicesXML, "schemas/music.sd": musicSD})
	s := vespatest.NewTestServer(t, vespatest.WithApplicationDir(dir))
	st, body := do(t, s.Client(), "GET", s.URL()+"/document/v1/ns/music/docid/1?cluster=content", "")
	if st != 400 || !strings.Contains(body, "only 'music'") {
		t.Errorf("cluster from services.xml: %d %s", st, body)
	}
	if _, err := vespatest.Start(vespatest.WithApplicationDir(filepath.Join(dir, "missing"))); err == nil {
		t.Error("a missing application directory gave no error")
	}
}

func TestParseSchema(t *testing.T) {
	sch, err := vespatest.ParseSchema(`schema doc {
    document doc {
        field title type string { indexing: summary | index }   # a comment
        field tags type array<string> { indexing: attribute }
        field emb type tensor<float>(x[4]) {
            indexing: attribute | summary
            attribute { distance-metric: angular }
        }
        struct s { field a type int {} }
    }
    field synthetic type string { indexing: input title }
    rank-profile default { first-phase { expression: nativeRank } }
}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []vespatest.Field{{Name: "title", Type: "string", Indexed: true, Indexing: "summary | index"},
		{Name: "tags", Type: "array<string>", Indexing: "attribute"},
		{Name: "emb", Type: "tensor<float>(x[4])", DistanceMetric: "angular", Indexing: "attribute | summary"}}
	if sch.Name != "doc" || len(sch.Fields) != len(want) {
		t.Fatalf("got %+v", sch)
	}
	for i := range want {
		if sch.Fields[i] != want[i] {
			t.Errorf("field %d = %+v, want %+v", i, sch.Fields[i], want[i])
		}
	}
	if len(sch.RankProfiles) != 1 || sch.RankProfiles[0].Name != "default" || sch.RankProfiles[0].FirstPhase != "nativeRank" {
		t.Errorf("rank profiles %+v", sch.RankProfiles)
	}
}

func TestParseSchema_withoutProfilesDeclaresNone(t *testing.T) {
	sch, err := vespatest.ParseSchema(`schema doc { document doc { field a type string { indexing: summary } } }`)
	if err != nil {
		t.Fatal(err)
	}
	if sch.RankProfiles == nil || len(sch.RankProfiles) != 0 {
		t.Errorf("RankProfiles = %#v, want empty and non-nil (profiles modelled, none declared)", sch.RankProfiles)
	}
	s := vespatest.NewTestServer(t, vespatest.WithSchema(sch))
	st, body := do(t, s.Client(), http.MethodGet, s.URL()+"/search/?yql=select+*+from+doc+where+true&ranking=bm25", "")
	if st != http.StatusBadRequest || !strings.Contains(body, "schema 'doc' does not contain requested rank profile 'bm25'") {
		t.Errorf("%d %s", st, body)
	}
}

func TestParseSchema_rankProfilesAndIndexing(t *testing.T) {
	sch, err := vespatest.ParseSchema(`schema music {
    document music {
        field title type string {
            indexing {
                input title | summary | index;
            }
        }
        field popularity type int { indexing: attribute }
        field embedding type tensor<float>(x[3]) {
            indexing: attribute | index
            attribute { distance-metric: angular }
        }
    }
    rank-profile bm25 {
        first-phase {
            expression: bm25(title)
        }
    }
    rank-profile hybrid inherits bm25, closeness {
        inputs {
            query(q) tensor<float>(x[3])
            query(w) double: 0.5
        }
        function pop() {
            expression: attribute(popularity) / 100
        }
        first-phase {
            expression {
                bm25(title)
                + query(w) * pop
            }
            keep-rank-count: 100
        }
        second-phase { expression: firstPhase }
    }
}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := sch.Fields[0]; got.Indexing != "input title | summary | index" || !got.Indexed {
		t.Errorf("title = %+v", got)
	}
	if got := sch.Fields[2]; got.Indexing != "attribute | index" || !got.Indexed || got.DistanceMetric != "angular" {
		t.Errorf("embedding = %+v", got)
	}
	if len(sch.RankProfiles) != 2 {
		t.Fatalf("rank profiles %+v", sch.RankProfiles)
	}
	if p := sch.RankProfiles[0]; p.Name != "bm25" || p.FirstPhase != "bm25(title)" || p.Inherits != nil {
		t.Errorf("bm25 = %+v", p)
	}
	p := sch.RankProfiles[1]
	if p.Name != "hybrid" || strings.Join(p.Inherits, ",") != "bm25,closeness" ||
		p.FirstPhase != "bm25(title) + query(w) * pop" || p.SecondPhase != "firstPhase" ||
		p.Functions["pop"] != "attribute(popularity) / 100" ||
		p.Inputs["query(w)"] != "0.5" || p.Inputs["query(q)"] != "" || len(p.Inputs) != 2 {
		t.Errorf("hybrid = %+v", p)
	}
}
