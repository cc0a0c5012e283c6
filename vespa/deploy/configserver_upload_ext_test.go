package deploy_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
)

// javaDouble is the grammar of a decimal number that Java's
// Double.parseDouble accepts, which is how Vespa's config server reads the
// timeout parameter (configserver HttpHandler.getRequestTimeout): anything
// else, such as "90s", silently gets the default.
var javaDouble = regexp.MustCompile(`^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?\s*$`)

// serverTimeout parses the timeout parameter as the config server does and
// returns it, or ok=false when the config server would use its default.
func serverTimeout(q string) (time.Duration, bool) {
	if !javaDouble.MatchString(q) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimRight(strings.TrimSpace(q), "fFdD"), 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(int64(f*1000)) * time.Millisecond, true
}

func TestServerTimeout_ParsesAsTheConfigServer(t *testing.T) {
	for q, want := range map[string]time.Duration{"90": 90 * time.Second, "2.5": 2500 * time.Millisecond, "0.001": time.Millisecond, "1e2": 100 * time.Second} {
		if got, ok := serverTimeout(q); !ok || got != want {
			t.Errorf("%q: %v, %v; want %v", q, got, ok, want)
		}
	}
	for _, q := range []string{"90s", "1m30s", "", "PT90S"} {
		if _, ok := serverTimeout(q); ok {
			t.Errorf("%q parsed; the config server would not", q)
		}
	}
}

func TestTimeoutParam(t *testing.T) {
	for d, want := range map[time.Duration]string{
		90 * time.Second: "90", 2500 * time.Millisecond: "2.5", time.Millisecond: "0.001",
		time.Nanosecond: "0.001", 1500*time.Millisecond + 999*time.Microsecond: "1.5", 30 * time.Minute: "1800",
	} {
		got := deploy.TimeoutParam(d)
		if got != want {
			t.Errorf("TimeoutParam(%v) = %q, want %q", d, got, want)
		}
		if back, ok := serverTimeout(got); !ok || back != max(d.Truncate(time.Millisecond), time.Millisecond) {
			t.Errorf("the config server reads %q as %v, %v; want %v", got, back, ok, d)
		}
	}
}

// recorder is a config server that records each deploy's query and answers.
type recorder struct {
	mu      sync.Mutex
	queries []string
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	rc.mu.Lock()
	rc.queries = append(rc.queries, r.URL.RawQuery)
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"session-id":"2","activated":true,"message":"ok","log":[]}`)
}

func TestDeploy_TimeoutAsTheConfigServerParsesIt(t *testing.T) {
	rc := &recorder{}
	cs := newConfigServer(t, rc)
	pkg := appPackage(t)

	if _, err := cs.Deploy(t.Context(), pkg, deploy.Params{Timeout: 90 * time.Second}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
	defer cancel()
	if _, err := cs.Deploy(ctx, pkg, deploy.Params{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Deploy(context.Background(), pkg, deploy.Params{}); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.queries) != 3 {
		t.Fatalf("%d deploys", len(rc.queries))
	}
	q := func(i int) string {
		v, _ := urlQuery(rc.queries[i])
		return v
	}
	if got, ok := serverTimeout(q(0)); !ok || got != 90*time.Second {
		t.Errorf("Params.Timeout 90 s sent as %q: the config server reads %v (ok %v)", q(0), got, ok)
	}
	if got, ok := serverTimeout(q(1)); !ok || got > 45*time.Second || got < 40*time.Second {
		t.Errorf("ctx with 45 s left sent timeout %q: the config server reads %v (ok %v), want about 45 s", q(1), got, ok)
	}
	if _, has := urlQuery(rc.queries[2]); has {
		t.Errorf("no deadline and no Timeout sent %q, want no timeout (the server's default)", rc.queries[2])
	}
	if _, err := cs.Deploy(t.Context(), pkg, deploy.Params{Timeout: -time.Second}); err == nil || len(rc.queries) != 3 { // no request: the lock is free
		t.Errorf("a negative timeout: %v, %d deploys", err, len(rc.queries))
	}
}

// urlQuery returns the timeout parameter of a raw query.
func urlQuery(raw string) (string, bool) {
	for _, kv := range strings.Split(raw, "&") {
		if v, ok := strings.CutPrefix(kv, "timeout="); ok {
			return v, true
		}
	}
	return "", false
}

// dropper is a config server that reads each upload whole, counts it, and
// closes the connection without answering: the reply is lost after the
// server may have acted.
type dropper struct {
	mu      sync.Mutex
	uploads int
	bytes   []int
}

func (d *dropper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, _ := io.Copy(io.Discard, r.Body)
	d.mu.Lock()
	d.uploads++
	d.bytes = append(d.bytes, int(n))
	d.mu.Unlock()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

func TestDeploy_LostReplyIsOneUploadAndAClearError(t *testing.T) {
	d := &dropper{}
	srv := httptest.NewServer(d)
	defer srv.Close()
	cs, err := deploy.NewConfigServer(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.DeployAndWait(t.Context(), appPackage(t), deploy.Params{})
	d.mu.Lock()
	uploads, sizes := d.uploads, d.bytes
	d.mu.Unlock()
	if uploads != 1 || sizes[0] == 0 {
		t.Errorf("%d uploads (%v bytes), want exactly 1", uploads, sizes)
	}
	if !errors.Is(err, deploy.ErrOutcomeUnknown) {
		t.Fatalf("error %v, want ErrOutcomeUnknown", err)
	}
	for _, want := range []string{"no reply", "not sent again", "/application/v2/tenant/default/application/default"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	// Nothing sent (a refused connection) says so, and is no unknown outcome.
	srv.Close()
	_, err = cs.Deploy(t.Context(), appPackage(t), deploy.Params{})
	if err == nil || errors.Is(err, deploy.ErrOutcomeUnknown) || !strings.Contains(err.Error(), "nothing was sent") {
		t.Errorf("deploy to a closed port: %v, want an error saying nothing was sent", err)
	}
}

func TestDeploy_ContextEndingDuringTheUploadIsAnUnknownOutcome(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		close(started)
		<-r.Context().Done() // the server works on; the client gives up
	}))
	defer srv.Close()
	cs, err := deploy.NewConfigServer(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err = cs.Deploy(ctx, appPackage(t), deploy.Params{})
	if !errors.Is(err, deploy.ErrOutcomeUnknown) || !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want ErrOutcomeUnknown and context.Canceled", err)
	}
}

// TestDeploy_RedirectElsewhereIsNotFollowed: a config server behind a proxy
// that redirects the upload to another origin gets an error; the package
// never reaches the other host.
func TestDeploy_RedirectElsewhereIsNotFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	cs := serveConfigServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	_, err := cs.Deploy(t.Context(), appPackage(t), deploy.Params{})
	if !errors.Is(err, vespa.ErrRedirect) || errors.Is(err, deploy.ErrOutcomeUnknown) || elsewhere.Load() != 0 {
		t.Errorf("Deploy = %v, %d requests elsewhere; want ErrRedirect (an answer: no unknown outcome) and none", err, elsewhere.Load())
	}
}

// TestDeploy_GatewayTimeoutIsAnUnknownOutcome: a 504 from a proxy in front
// of the config server says nothing of what the config server did.
func TestDeploy_GatewayTimeoutIsAnUnknownOutcome(t *testing.T) {
	for _, status := range []int{http.StatusBadGateway, http.StatusGatewayTimeout} {
		f := &fakeConfigServer{deployStatus: status, deployReply: `<html>gateway</html>`}
		_, err := newConfigServer(t, f).Deploy(t.Context(), appPackage(t), deploy.Params{})
		var e *deploy.Error
		if !errors.Is(err, deploy.ErrOutcomeUnknown) || !errors.As(err, &e) || e.Status != status || len(f.zips) != 1 {
			t.Errorf("%d: Deploy = %v after %d uploads; want ErrOutcomeUnknown carrying the %d, after 1", status, err, len(f.zips), status)
		}
	}
	f := &fakeConfigServer{deployStatus: http.StatusServiceUnavailable, deployReply: `{"error-code":"UNAVAILABLE","message":"busy"}`}
	if _, err := newConfigServer(t, f).Deploy(t.Context(), appPackage(t), deploy.Params{}); errors.Is(err, deploy.ErrOutcomeUnknown) || !errors.Is(err, vespa.ErrUnavailable) {
		t.Errorf("503: %v, want a known refusal (vespa.ErrUnavailable)", err)
	}
}

// failingFS is an fs.FS whose file "schemas/broken.sd" cannot be read.
type failingFS struct{ fstest.MapFS }

type failingFile struct{ fs.File }

func (failingFile) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func (f failingFS) Open(name string) (fs.File, error) {
	file, err := f.MapFS.Open(name)
	if err == nil && name == "schemas/broken.sd" {
		return failingFile{file}, nil
	}
	return file, err
}

// TestDeploy_UnreadablePackageFileIsNamed: a file that cannot be read while
// the upload streams ends it with that cause, not with an unknown outcome:
// the server got a truncated body, which it cannot take for a package.
func TestDeploy_UnreadablePackageFileIsNamed(t *testing.T) {
	cs := serveConfigServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return // a truncated body: no answer
		}
		io.WriteString(w, `{"session-id":"2","activated":true}`)
	}))
	pkg, err := deploy.NewPackageFS(failingFS{testutil.MapFS("services.xml", "<services/>", "schemas/broken.sd", strings.Repeat("x", 1<<20))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.Deploy(t.Context(), pkg, deploy.Params{})
	if err == nil || errors.Is(err, deploy.ErrOutcomeUnknown) || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "schemas/broken.sd") {
		t.Errorf("Deploy = %v; want the read failure of schemas/broken.sd, not an unknown outcome", err)
	}
}
