package models_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/models"
	"github.com/govespa/govespa/vespa/retries"
)

// recorder is an http.Handler that answers from a script and records what it
// was asked.
type recorder struct {
	mu       sync.Mutex
	requests []recorded
	agents   []string // User-Agent of each request
	answer   func(n int, r *http.Request) (status int, location string)
}

type recorded struct {
	Method, Host, Path, Auth string
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	n := len(rec.requests)
	rec.requests = append(rec.requests, recorded{r.Method, r.Host, r.URL.Path, r.Header.Get("Authorization")})
	rec.agents = append(rec.agents, r.Header.Get("User-Agent"))
	rec.mu.Unlock()
	status, loc := rec.answer(n, r)
	if loc != "" {
		w.Header().Set("Location", loc)
	}
	w.WriteHeader(status)
	if r.Method == http.MethodGet {
		_, _ = w.Write([]byte("onnx bytes"))
	}
}

func (rec *recorder) got() []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]recorded(nil), rec.requests...)
}

// serve starts a loopback server for rec and returns its URL.
func serve(t *testing.T, rec *recorder) string {
	t.Helper()
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv.URL
}

// config returns a valid configuration whose URLs point at base.
func config(base string) models.ModelConfig {
	c := models.E5SmallV2()
	c.ModelID = ""
	c.ModelURL = base + "/model.onnx"
	c.TokenizerURL = base + "/tokenizer.json"
	return c
}

// noWait is URLValidation without its waits, for tests that count attempts.
var noWait = models.WithValidationPolicy(retries.URLValidation.WithWait(retries.WaitNone()))

func TestValidate_HeadOK(t *testing.T) {
	rec := &recorder{answer: func(int, *http.Request) (int, string) { return 200, "" }}
	base := serve(t, rec)
	if err := config(base).Validate(t.Context(), models.WithHuggingFaceToken("")); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	got := rec.got()
	want := []recorded{{"HEAD", strings.TrimPrefix(base, "http://"), "/model.onnx", ""}, {"HEAD", strings.TrimPrefix(base, "http://"), "/tokenizer.json", ""}}
	if len(got) != len(want) {
		t.Fatalf("requests = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d = %+v, want %+v", i, got[i], want[i])
		}
		if rec.agents[i] != vespa.UserAgent { // one user agent across the SDK
			t.Errorf("request %d: User-Agent %q, want %q", i, rec.agents[i], vespa.UserAgent)
		}
	}
}

func TestValidate_HeadRefusedFallsBackToGet(t *testing.T) {
	for _, refused := range []int{http.StatusMethodNotAllowed, http.StatusNotImplemented} {
		t.Run(http.StatusText(refused), func(t *testing.T) {
			rec := &recorder{answer: func(_ int, r *http.Request) (int, string) {
				if r.Method == http.MethodHead {
					return refused, ""
				}
				return 200, ""
			}}
			base := serve(t, rec)
			if err := config(base).Validate(t.Context(), noWait); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			var methods []string
			for _, r := range rec.got() {
				methods = append(methods, r.Method+" "+r.Path)
			}
			want := "HEAD /model.onnx,GET /model.onnx,HEAD /tokenizer.json,GET /tokenizer.json"
			if strings.Join(methods, ",") != want {
				t.Errorf("requests = %v, want %s", methods, want)
			}
		})
	}
}

func TestValidate_404IsFinalAtOnce(t *testing.T) {
	rec := &recorder{answer: func(_ int, r *http.Request) (int, string) {
		if r.URL.Path == "/model.onnx" {
			return 404, ""
		}
		return 200, ""
	}}
	base := serve(t, rec)
	err := config(base).Validate(t.Context()) // the real policy: a retry would wait 1 s
	var ue *models.URLError
	if !errors.As(err, &ue) {
		t.Fatalf("Validate = %v, want a *URLError", err)
	}
	if ue.Status != 404 || ue.Field != "ModelURL" || ue.URL != base+"/model.onnx" {
		t.Errorf("URLError = %+v", ue)
	}
	if !errors.Is(err, models.ErrURLUnreachable) {
		t.Errorf("errors.Is(%v, ErrURLUnreachable) = false", err)
	}
	for _, s := range []string{base + "/model.onnx", "404"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
	modelRequests := 0
	for _, r := range rec.got() {
		if r.Path == "/model.onnx" {
			modelRequests++
		}
	}
	if modelRequests != 1 {
		t.Errorf("model URL was requested %d times, want 1 (404 is final)", modelRequests)
	}
}

func TestValidate_503ThenOK(t *testing.T) {
	rec := &recorder{answer: func(n int, _ *http.Request) (int, string) {
		if n == 0 {
			return 503, ""
		}
		return 200, ""
	}}
	base := serve(t, rec)
	if err := config(base).Validate(t.Context(), noWait); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if n := len(rec.got()); n != 3 {
		t.Errorf("%d requests, want 3 (503, then 200, then the tokenizer)", n)
	}
}

func TestValidate_503UntilAttemptsRunOut(t *testing.T) {
	rec := &recorder{answer: func(int, *http.Request) (int, string) { return 503, "" }}
	base := serve(t, rec)
	err := config(base).Validate(t.Context(), noWait)
	var ue *models.URLError
	if !errors.As(err, &ue) || ue.Status != 503 {
		t.Fatalf("Validate = %v, want a 503 URLError", err)
	}
	// Both URLs are checked and both failures reported.
	if !strings.Contains(err.Error(), "/model.onnx") || !strings.Contains(err.Error(), "/tokenizer.json") {
		t.Errorf("error %q does not name both URLs", err)
	}
	if n := len(rec.got()); n != 2*retries.URLValidation.MaxAttempts() {
		t.Errorf("%d requests, want %d", n, 2*retries.URLValidation.MaxAttempts())
	}
}

// hostDialer returns a client whose connections all go to the loopback
// server at addr, whatever the host name in the URL, so that tests can use
// several host names without DNS.
func hostDialer(t *testing.T, addr string) *http.Client {
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func TestValidate_TokenOnlyToHuggingFaceHosts(t *testing.T) {
	const token = "hf_secret_token_123"
	rec := &recorder{}
	base := serve(t, rec)
	u, _ := url.Parse(base)
	port := u.Port()
	rec.answer = func(_ int, r *http.Request) (int, string) {
		switch r.URL.Path {
		case "/redirect-away": // from the HF host to another host
			return 302, "http://cdn.example.test:" + port + "/blob"
		case "/redirect-to-hf": // from another host to the HF host
			return 302, "http://hub.hf.test:" + port + "/model"
		}
		return 200, ""
	}
	isHF := func(host string) bool { return host == "hub.hf.test" }
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := config(base)
	c.ModelURL = "http://hub.hf.test:" + port + "/redirect-away"
	c.TokenizerURL = "http://other.example.test:" + port + "/redirect-to-hf"
	err := c.Validate(t.Context(), models.WithHuggingFaceToken(token), models.WithHuggingFaceHosts(isHF),
		models.WithValidationHTTPClient(hostDialer(t, u.Host)), models.WithValidationLogger(logger))
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	got := rec.got()
	if len(got) != 4 {
		t.Fatalf("requests = %+v, want 4", got)
	}
	for _, r := range got {
		host, _, _ := net.SplitHostPort(r.Host)
		wantAuth := ""
		if host == "hub.hf.test" {
			wantAuth = "Bearer " + token
		}
		if r.Auth != wantAuth {
			t.Errorf("%s %s%s: Authorization %q, want %q", r.Method, r.Host, r.Path, r.Auth, wantAuth)
		}
	}
	if strings.Contains(logs.String(), token) {
		t.Errorf("the token appears in the log: %s", logs.String())
	}
	if !strings.Contains(logs.String(), "redirect-away") {
		t.Errorf("the log does not mention the checked URLs: %s", logs.String())
	}
}

func TestValidate_TokenFromEnvironmentNeverInErrors(t *testing.T) {
	const token = "hf_env_token_456"
	t.Setenv("HF_TOKEN", token)
	rec := &recorder{answer: func(int, *http.Request) (int, string) { return 401, "" }}
	base := serve(t, rec)
	u, _ := url.Parse(base)
	c := config(base)
	c.ModelURL = "http://huggingface.co:" + u.Port() + "/private/model.onnx"
	c.TokenizerURL = ""
	c.TokenizerPath = "tokenizer.json"
	err := c.Validate(t.Context(), models.WithValidationHTTPClient(hostDialer(t, u.Host)))
	var ue *models.URLError
	if !errors.As(err, &ue) || ue.Status != 401 {
		t.Fatalf("Validate = %v, want a 401 URLError", err)
	}
	if got := rec.got(); len(got) != 1 || got[0].Auth != "Bearer "+token {
		t.Errorf("requests = %+v, want one carrying the HF_TOKEN", got)
	}
	if strings.Contains(err.Error(), token) {
		t.Errorf("the token appears in the error: %v", err)
	}
}

func TestIsHuggingFaceHost(t *testing.T) {
	for host, want := range map[string]bool{
		"huggingface.co": true, "cdn-lfs.huggingface.co": true, "HuggingFace.co.": true,
		"hf.co": true, "cas-bridge.xethub.hf.co": true,
		"evilhuggingface.co": false, "huggingface.co.evil.com": false, "hf.com": false,
		"data.vespa-cloud.com": false, "127.0.0.1": false, "": false,
	} {
		if got := models.IsHuggingFaceHost(host); got != want {
			t.Errorf("IsHuggingFaceHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestValidate_CancelledContextReturnsAtOnce(t *testing.T) {
	rec := &recorder{answer: func(int, *http.Request) (int, string) { return 200, "" }}
	base := serve(t, rec)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := config(base).Validate(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Validate = %v, want context.Canceled", err)
	}
	if n := len(rec.got()); n != 0 {
		t.Errorf("%d requests after cancellation, want 0", n)
	}
}

func TestValidate_InvalidConfigMakesNoRequest(t *testing.T) {
	rec := &recorder{answer: func(int, *http.Request) (int, string) { return 200, "" }}
	c := config(serve(t, rec))
	c.Dimensions = 0
	if err := c.Validate(t.Context()); !errors.Is(err, models.ErrInvalidConfig) {
		t.Fatalf("Validate = %v, want ErrInvalidConfig", err)
	}
	if n := len(rec.got()); n != 0 {
		t.Errorf("%d requests, want 0", n)
	}
}

func TestValidate_WaitsOfURLValidation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var at []time.Duration
		hc := &http.Client{Transport: testutil.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
			at = append(at, time.Since(start))
			status := 503
			if len(at) == 3 {
				status = 200
			}
			return &http.Response{StatusCode: status, Body: http.NoBody, Request: r}, nil
		})}
		c := config("https://models.example")
		c.TokenizerURL = ""
		c.TokenizerPath = "tokenizer.json"
		if err := c.Validate(t.Context(), models.WithValidationHTTPClient(hc)); err != nil {
			t.Fatalf("Validate: %v", err)
		}
		want := []time.Duration{0, time.Second, 3 * time.Second} // waits 1 s, then 2 s
		if len(at) != len(want) {
			t.Fatalf("requests at %v, want %v", at, want)
		}
		for i := range want {
			if at[i] != want[i] {
				t.Errorf("request %d at %v, want %v", i, at[i], want[i])
			}
		}
	})
}
