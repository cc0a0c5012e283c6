package vespa_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
)

// This file holds the client's tests against hostile but ordinary servers
// on loopback: redirects, answers that are not Vespa's, huge and lying
// answers, servers that never answer, Retry-After extremes, a connection
// reset after the status line.

const docAnswer = `{"pathId":"/document/v1/ns/music/docid/a","id":"id:ns:music::a"}`

// elsewhere is a server that must never be reached: it counts requests and
// remembers whether any carried credentials.
type elsewhere struct {
	*httptest.Server
	hits  atomic.Int64
	creds atomic.Bool
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.hits.Add(1)
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Secret") != "" {
			e.creds.Store(true)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, docAnswer)
	}))
	t.Cleanup(e.Close)
	return e
}

func TestClient_RedirectsAreErrors(t *testing.T) {
	ops := []struct {
		name string
		run  func(*vespa.Client) error
	}{
		{"put", func(c *vespa.Client) error {
			_, err := c.Put(context.Background(), testID, map[string]any{"title": "x"}, vespa.OperationOptions{})
			return err
		}},
		{"update", func(c *vespa.Client) error {
			_, err := c.Update(context.Background(), testID, vespa.NewUpdate().Assign("title", "y"), vespa.OperationOptions{})
			return err
		}},
		{"remove", func(c *vespa.Client) error {
			_, err := c.Remove(context.Background(), testID, vespa.OperationOptions{})
			return err
		}},
		{"get", func(c *vespa.Client) error {
			_, err := c.Get(context.Background(), testID, vespa.OperationOptions{})
			return err
		}},
		{"feeder connection (SendOnce)", func(c *vespa.Client) error {
			_, err := c.SendOnce(context.Background(), c.NewHTTPClient(), vespa.OpPut, testID, []byte(`{"fields":{}}`), vespa.OperationOptions{})
			return err
		}},
	}
	for _, code := range []int{301, 302, 303, 307, 308} {
		for _, op := range ops {
			t.Run(fmt.Sprintf("%d %s", code, op.name), func(t *testing.T) {
				other := newElsewhere(t)
				front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, other.URL+r.URL.Path+"?token=hidden", code)
				}))
				defer front.Close()
				c := newTestClient(t, front.URL, vespa.WithToken("s3cr3t"), vespa.WithHeader("X-Secret", "v"))
				err := op.run(c)
				var ve *vespa.Error
				if !errors.As(err, &ve) || ve.Status != code || !errors.Is(err, vespa.ErrRedirect) {
					t.Fatalf("got %v, want an *Error with status %d matching ErrRedirect", err, code)
				}
				if !strings.HasPrefix(ve.Location, other.URL) || !strings.Contains(err.Error(), other.URL) {
					t.Errorf("the error does not name the Location: %v", err)
				}
				if strings.Contains(err.Error(), "hidden") || strings.Contains(err.Error(), "s3cr3t") {
					t.Errorf("the error shows a query or the token: %v", err)
				}
				if other.hits.Load() != 0 || other.creds.Load() {
					t.Errorf("the redirect target got %d requests (credentials: %v)", other.hits.Load(), other.creds.Load())
				}
			})
		}
	}
}

func TestClient_HTTPClientNeverTakesCredentialsElsewhere(t *testing.T) {
	other := newElsewhere(t)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
	}))
	defer front.Close()
	c := newTestClient(t, front.URL, vespa.WithToken("s3cr3t"), vespa.WithHeader("X-Secret", "v"))

	t.Run("a same-origin redirect through a following client is refused too", func(t *testing.T) {
		var gets atomic.Int64
		c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				gets.Add(1)
				_, _ = io.WriteString(w, docAnswer)
				return
			}
			http.Redirect(w, r, "/elsewhere", http.StatusMovedPermanently)
		}))
		hc := &http.Client{Transport: c.HTTPClient().Transport} // follows redirects: a POST becomes a GET
		_, err := c.SendOnce(context.Background(), hc, vespa.OpPut, testID, []byte(`{"fields":{}}`), vespa.OperationOptions{})
		if err == nil || gets.Load() != 0 {
			t.Fatalf("the put became a GET that succeeded: %v, %d GETs", err, gets.Load())
		}
	})
	t.Run("a redirect-following client on the transport is refused at the hop", func(t *testing.T) {
		hc := &http.Client{Transport: c.HTTPClient().Transport} // follows redirects
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, front.URL+"/document/v1/ns/music/docid/a", strings.NewReader("{}"))
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatal("the redirect to another origin was followed")
		}
		if other.hits.Load() != 0 {
			t.Errorf("the other host got %d requests", other.hits.Load())
		}
	})
	t.Run("a direct request to another origin goes without credentials", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, other.URL+"/y", nil)
		resp, err := c.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if other.creds.Load() {
			t.Error("the token or a WithHeader value went to another origin")
		}
	})
}

func TestClient_TwoHundredThatIsNotVespa(t *testing.T) {
	bodies := map[string]string{
		"an HTML login page":   "<html><body>Please log in</body></html>",
		"a truncated object":   `{"pathId":"/document/v1/ns/music/docid/a","id":"id:ns:mu`,
		"an empty body":        "",
		"JSON null":            "null",
		"an empty object":      "{}",
		"another JSON object":  `{"status":"ok"}`,
		"a JSON array":         `[{"pathId":"/x"}]`,
		"a gzip-less bytes ok": "OK",
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, body)
			}))
			_, err := c.Put(context.Background(), testID, map[string]any{"title": "x"}, vespa.OperationOptions{})
			if !errors.Is(err, vespa.ErrMalformedResponse) {
				t.Fatalf("got %v, want ErrMalformedResponse", err)
			}
			if body != "" && !strings.Contains(err.Error(), strings.Fields(body)[0][:min(8, len(strings.Fields(body)[0]))]) {
				t.Errorf("the error has no excerpt of the body: %v", err)
			}
		})
	}
}

func TestClient_HugeAnswerIsNotAllocated(t *testing.T) {
	const size = 1 << 30
	c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(size))
		chunk := []byte(`{"pathId":"/document/v1/ns/music/docid/a","fields":{"blob":"` + strings.Repeat("x", 1<<16))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk[:min(len(chunk), size-sent)]); err != nil {
				return // the client hung up: good
			}
		}
	}), vespa.WithDocumentLimit(8<<20))
	var err error
	got := testutil.AllocatedBy(func() { _, err = c.Get(context.Background(), testID, vespa.OperationOptions{}) })
	if !errors.Is(err, vespa.ErrResponseTooLarge) {
		t.Fatalf("got %v, want ErrResponseTooLarge", err)
	}
	if got > 64<<20 {
		t.Errorf("a 1 GiB answer allocated %d MiB with a limit of 8 MiB", got>>20)
	}
}

func TestClient_LyingContentLength(t *testing.T) {
	url := testutil.ShortAnswerServer(t, 1<<30, docAnswer)
	c := newTestClient(t, url, vespa.WithRetryAttempts(1))
	var err error
	got := testutil.AllocatedBy(func() { _, err = c.Get(context.Background(), testID, vespa.OperationOptions{}) })
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want the body cut short", err)
	}
	if got > 16<<20 {
		t.Errorf("a 66-byte answer claiming 1 GiB allocated %d MiB", got>>20)
	}
}

func TestClient_ResetAfterStatusLine(t *testing.T) {
	var requests atomic.Int64
	url := testutil.RawServer(t, func(conn net.Conn) {
		defer conn.Close()
		if _, err := testutil.ReadRequest(conn); err != nil {
			return
		}
		requests.Add(1)
		// The server applied the update and starts to answer; then the
		// connection drops.
		_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"pathId\":")
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // a reset, not a clean close
		}
	})
	c := newTestClient(t, url, vespa.WithRetryPolicy(fastSyncPolicy))
	ctx := context.Background()
	cases := []struct {
		name   string
		update *vespa.Update
		opts   vespa.OperationOptions
		want   int64
	}{
		{"an increment is not re-sent", vespa.NewUpdate().Increment("n", 1), vespa.OperationOptions{}, 1},
		{"an add is not re-sent", vespa.NewUpdate().Add("tags", []string{"a"}), vespa.OperationOptions{}, 1},
		{"a conditional assign is not re-sent", vespa.NewUpdate().Assign("title", "x"), vespa.OperationOptions{Condition: "music.n==1"}, 1},
		{"an assign is re-sent", vespa.NewUpdate().Assign("title", "x"), vespa.OperationOptions{}, retries.DefaultSyncRequestAttempts},
		{"an increment with Resend is re-sent", vespa.NewUpdate().Increment("n", 1), vespa.OperationOptions{Resend: true}, retries.DefaultSyncRequestAttempts},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			requests.Store(0)
			_, err := c.Update(ctx, testID, tc.update, tc.opts)
			if err == nil {
				t.Fatal("no error after the connection dropped")
			}
			if got := requests.Load(); got != tc.want {
				t.Errorf("the server got %d requests, want %d (%v)", got, tc.want, err)
			}
		})
	}
	t.Run("a refused connection is retried even for an increment", func(t *testing.T) {
		addr := testutil.FreeLoopbackAddr(t) // nothing listens there
		var dials atomic.Int64
		c := newTestClient(t, "http://"+addr, vespa.WithRetryPolicy(fastSyncPolicy.WithMaxAttempts(3).WithOnRetry(func(retries.Outcome, time.Duration) { dials.Add(1) })))
		_, err := c.Update(t.Context(), testID, vespa.NewUpdate().Increment("n", 1), vespa.OperationOptions{})
		if err == nil || dials.Load() != 2 {
			t.Errorf("%d retries (%v), want 2: nothing reached a server", dials.Load(), err)
		}
	})
}

func TestClient_RetryAfterExtremes(t *testing.T) {
	cases := []struct {
		name, value string
		want        time.Duration // the wait before the second attempt, at least
		max         time.Duration
	}{
		{"a day is cut to 60 s", "86400", retries.MaxRetryAfter, retries.MaxRetryAfter + 2*time.Second},
		{"a number that overflows is cut to 60 s", "999999999999999999999999", retries.MaxRetryAfter, retries.MaxRetryAfter + 2*time.Second},
		{"a negative value is ignored", "-30", 0, 2 * time.Second},
		{"an HTTP date 20 s ahead is honoured", "date+20s", 20 * time.Second, 22 * time.Second},
		{"an HTTP date in the past is no wait", "date-1h", 0, 2 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var times []time.Time
				rt := testutil.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
					times = append(times, time.Now())
					if len(times) > 1 {
						return jsonResponse(200, docAnswer), nil
					}
					resp := jsonResponse(429, `{"message":"slow down"}`)
					v := tc.value
					if rest, ok := strings.CutPrefix(v, "date"); ok {
						d, _ := time.ParseDuration(rest)
						v = time.Now().Add(d).UTC().Format(http.TimeFormat)
					}
					resp.Header.Set("Retry-After", v)
					return resp, nil
				})
				c := newTestClient(t, "http://localhost:8080", vespa.WithBaseTransport(rt))
				if _, err := c.Put(t.Context(), testID, map[string]any{"a": 1}, vespa.OperationOptions{}); err != nil {
					t.Fatal(err)
				}
				if len(times) != 2 {
					t.Fatalf("%d attempts", len(times))
				}
				if d := times[1].Sub(times[0]); d < tc.want || d > tc.max {
					t.Errorf("waited %v, want within [%v, %v]", d, tc.want, tc.max)
				}
			})
		})
	}
}

// callInRetryWait runs call with a client that every answer sends away for
// 30 s (429 "overloaded" with Retry-After, for pathID), under a 10 s
// deadline and in a synctest bubble, and returns call's error.
func callInRetryWait(t *testing.T, pathID string, call func(context.Context, *vespa.Client) error) (err error) {
	synctest.Test(t, func(t *testing.T) {
		rt := testutil.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp := jsonResponse(429, `{"pathId":"`+pathID+`","message":"overloaded"}`)
			resp.Header.Set("Retry-After", "30")
			return resp, nil
		})
		c := newTestClient(t, "http://localhost:8080", vespa.WithBaseTransport(rt))
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		err = call(ctx, c)
	})
	return err
}

func TestClient_DeadlineInRetryWaitKeepsTheCause(t *testing.T) {
	err := callInRetryWait(t, "/document/v1/ns/music/docid/a", func(ctx context.Context, c *vespa.Client) error {
		_, err := c.Put(ctx, testID, map[string]any{"a": 1}, vespa.OperationOptions{})
		return err
	})
	var ve *vespa.Error
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, vespa.ErrTooManyRequests) || !errors.As(err, &ve) || ve.Message != "overloaded" {
		t.Fatalf("got %v, want it to match both DeadlineExceeded and ErrTooManyRequests", err)
	}
}

func TestClient_PerCallHeaders(t *testing.T) {
	var got http.Header
	c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		_, _ = io.WriteString(w, docAnswer)
	}), vespa.WithToken("tok"))
	_, err := c.Put(context.Background(), testID, map[string]any{"a": 1}, vespa.OperationOptions{
		Header: http.Header{"X-Request-Id": {"r-1"}, "Authorization": {"Bearer other"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Get("X-Request-Id") != "r-1" || got.Get("Authorization") != "Bearer tok" {
		t.Errorf("headers %v: want the per-call header and the client's own Authorization", got)
	}
}

func TestWithTransportWrapper_Invalid(t *testing.T) {
	if _, err := vespa.NewClient("http://localhost:8080", vespa.WithTransportWrapper(nil)); err == nil {
		t.Error("a nil wrapper was accepted")
	}
	nilWrap := func(http.RoundTripper) http.RoundTripper { return nil }
	if _, err := vespa.NewClient("http://localhost:8080", vespa.WithTransportWrapper(nilWrap)); err == nil {
		t.Error("a wrapper returning nil was accepted")
	}
}

func TestClient_TransportErrorsDoNotRepeatTheQuery(t *testing.T) {
	addr := testutil.FreeLoopbackAddr(t)
	c := newTestClient(t, "http://"+addr, vespa.WithRetryAttempts(1))
	_, err := c.RemoveWhere(context.Background(), vespa.SelectionRequest{Selection: "music.secret == 'hidden-value'", DocType: "music", Namespace: "ns", Cluster: "c"})
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), "hidden-value") || strings.Contains(err.Error(), "selection=") {
		t.Errorf("the error repeats the query: %v", err)
	}
}

func TestHealth_HostileAnswers(t *testing.T) {
	for name, tc := range map[string]struct {
		status int
		body   string
		want   error
	}{
		"an HTML 200":        {200, "<html>login</html>", vespa.ErrMalformedResponse},
		"an empty 200":       {200, "", vespa.ErrMalformedResponse},
		"a 401 page":         {401, "<html>no</html>", vespa.ErrUnauthorized},
		"a 403 page":         {403, "<html>no</html>", vespa.ErrForbidden},
		"a redirect":         {302, "", vespa.ErrRedirect},
		"an initializing up": {503, `{"status":{"code":"initializing"}}`, vespa.ErrNotReady},
	} {
		t.Run(name, func(t *testing.T) {
			c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.status == 302 {
					http.Redirect(w, r, "https://login.example/", tc.status)
					return
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			if err := c.Health(context.Background()); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestClient_ClientCertificateGoesNowhereElse(t *testing.T) {
	pki := newTestPKI(t)
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a request with the client certificate reached another origin")
	}))
	defer other.Close()
	c := newTestClient(t, "https://127.0.0.1:1", vespa.WithCertificate(pki.client), vespa.WithInsecureSkipVerify())
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, other.URL+"/", nil)
	resp, err := c.HTTPClient().Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("a request to another origin went through a client with a client certificate")
	}
}

func TestVisit_DeadlineInRetryWaitKeepsTheCause(t *testing.T) {
	err := callInRetryWait(t, "/document/v1/ns/music/docid/", func(ctx context.Context, c *vespa.Client) error {
		_, err := c.RemoveWhere(ctx, vespa.SelectionRequest{Selection: "true", DocType: "music", Namespace: "ns", Cluster: "c"})
		return err
	})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, vespa.ErrTooManyRequests) {
		t.Fatalf("got %v, want it to match both DeadlineExceeded and ErrTooManyRequests", err)
	}
}
