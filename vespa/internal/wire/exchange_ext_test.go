package wire_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/internal/wire"
)

// counting is a server that counts its requests and answers with h.
func counting(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestExchange_RedirectsAreNotFollowed(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			other, hits := counting(t, func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, `{"pathId":"/x","id":"id:a:b::c"}`)
			})
			front, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/document/v1/a/b/docid/c?secret=s3cr3t", code)
			})
			x := wire.New(wire.Config{})
			_, err := x.Do(context.Background(), &wire.Request{
				Op: "put", Path: "/document/v1/a/b/docid/c", Method: http.MethodPost,
				URL: front.URL + "/document/v1/a/b/docid/c", Body: []byte(`{"fields":{}}`),
				Header: http.Header{"Authorization": {"Bearer tok"}},
			})
			we, ok := wire.FailureOf(err)
			if !ok || we.Status != code || !errors.Is(err, wire.ErrRedirect) {
				t.Fatalf("got %v, want an *Error with status %d matching ErrRedirect", err, code)
			}
			if !strings.HasPrefix(we.Location, other.URL) || strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("Location %q, error %q: want the target without its query", we.Location, err)
			}
			if hits.Load() != 0 {
				t.Errorf("the other host got %d requests", hits.Load())
			}
		})
	}
}

func TestExchange_SameOrigin(t *testing.T) {
	var otherAuth atomic.Value
	other, otherHits := counting(t, func(w http.ResponseWriter, r *http.Request) {
		otherAuth.Store(r.Header.Get("Authorization"))
	})
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/here":
			http.Redirect(w, r, "/there", http.StatusTemporaryRedirect)
		case "/there":
			body, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s %s", r.Header.Get("Authorization"), body)
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		}
	})
	x := wire.New(wire.Config{CheckRedirect: wire.SameOrigin})
	req := func(path string) *wire.Request {
		return &wire.Request{Op: "deploy", Path: path, Method: http.MethodPost, URL: srv.URL + path,
			Body: []byte("zip"), Header: http.Header{"Authorization": {"Bearer tok"}}}
	}
	resp, err := x.Do(context.Background(), req("/here"))
	if err != nil || string(resp.Body) != "Bearer tok zip" {
		t.Fatalf("a same-origin redirect: %v, %+v", err, resp)
	}
	_, err = x.Do(context.Background(), req("/away"))
	if !errors.Is(err, wire.ErrRedirect) || otherHits.Load() != 0 {
		t.Fatalf("a redirect to another origin: %v, %d requests there", err, otherHits.Load())
	}
}

func TestExchange_Limit(t *testing.T) {
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(bytes.Repeat([]byte("x"), 10_000))
	})
	x := wire.New(wire.Config{})
	_, err := x.Do(context.Background(), &wire.Request{Op: "get", Method: http.MethodGet, URL: srv.URL, Limit: 1000})
	we, ok := wire.FailureOf(err)
	if !ok || !errors.Is(err, wire.ErrResponseTooLarge) || we.Status != 200 {
		t.Fatalf("got %v", err)
	}
}

func TestExchange_Timeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	x := wire.New(wire.Config{})
	start := time.Now()
	_, err := x.Do(context.Background(), &wire.Request{Op: "query", Path: "/search/", Method: http.MethodGet,
		URL: srv.URL + "/search/?yql=secret+stuff", Timeout: 100 * time.Millisecond})
	we, ok := wire.FailureOf(err)
	if !ok || we.Status != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a transport *Error matching DeadlineExceeded", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), srv.URL) {
		t.Errorf("the error repeats the URL: %v", err)
	}
}

func TestExchange_PrepareAndStreamedBody(t *testing.T) {
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%d %s %s", r.ContentLength, r.Header.Get("X-Signature"), body)
	})
	x := wire.New(wire.Config{})
	resp, err := x.Do(context.Background(), &wire.Request{
		Op: "submit", Method: http.MethodPost, URL: srv.URL + "/",
		BodyReader: strings.NewReader("hello"), ContentLength: 5,
		Prepare: func(r *http.Request) error { r.Header.Set("X-Signature", r.Method+" "+r.URL.Path); return nil },
	})
	if err != nil || string(resp.Body) != "5 POST / hello" {
		t.Fatalf("%v, %+v", err, resp)
	}
}

func TestStatusError(t *testing.T) {
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "86400")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, "<html>slow down</html>")
	})
	x := wire.New(wire.Config{})
	resp, err := x.Do(context.Background(), &wire.Request{Op: "query", Method: http.MethodGet, URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	e := wire.StatusError("query", "", "/search/", resp, "")
	f, _ := wire.FailureOf(e)
	if !errors.Is(e, wire.ErrTooManyRequests) || f.Message != "<html>slow down</html>" {
		t.Errorf("got %v", e)
	}
	if d, ok := f.RetryAfter, f.HasRetryAfter; !ok || d != wire.MaxRetryAfter {
		t.Errorf("Retry-After %v, %v; want the cap", d, ok)
	}
	for status, want := range map[int]error{400: wire.ErrBadRequest, 401: wire.ErrUnauthorized, 403: wire.ErrForbidden,
		404: wire.ErrNotFound, 409: wire.ErrConflict, 412: wire.ErrConditionNotMet, 413: wire.ErrTooLarge,
		429: wire.ErrTooManyRequests, 503: wire.ErrUnavailable, 504: wire.ErrTimeout, 507: wire.ErrInsufficientStorage,
		301: wire.ErrRedirect, 308: wire.ErrRedirect} {
		if !errors.Is(wire.NewError(wire.Failure{Status: status}), want) {
			t.Errorf("status %d does not match %v", status, want)
		}
		if errors.Is(wire.NewError(wire.Failure{Status: 200}), want) {
			t.Errorf("200 matches %v", want)
		}
	}
}

func TestMalformed(t *testing.T) {
	e := wire.Malformed("put", "id:a:b::c", "/p", 200, []byte("<html><body>Please log in</body></html>"), "not a document answer", nil)
	if !errors.Is(e, wire.ErrMalformedResponse) || !strings.Contains(e.Error(), "Please log in") {
		t.Errorf("got %v", e)
	}
	if e := wire.Malformed("put", "", "/p", 200, nil, "empty", nil); !strings.Contains(e.Error(), "empty body") {
		t.Errorf("got %v", e)
	}
}

func TestExchange_SendFollowsTheSameRules(t *testing.T) {
	other, hits := counting(t, func(w http.ResponseWriter, r *http.Request) {})
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, other.URL+"/", http.StatusPermanentRedirect)
		case "/big":
			_, _ = w.Write(bytes.Repeat([]byte("x"), 5000))
		default:
			w.Header().Set("Retry-After", "-3")
			body, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s %s", r.Header.Get("X-Call"), body)
		}
	})
	x := wire.New(wire.Config{})
	ctx := context.Background()
	if _, err := x.Send(ctx, &wire.Request{Op: "query", Method: http.MethodPost, URL: srv.URL + "/redirect", Body: []byte("q")}); !errors.Is(err, wire.ErrRedirect) || hits.Load() != 0 {
		t.Errorf("redirect: %v, %d requests elsewhere", err, hits.Load())
	}
	if _, err := x.Send(ctx, &wire.Request{Op: "query", Method: http.MethodGet, URL: srv.URL + "/big", Limit: 100}); !errors.Is(err, wire.ErrResponseTooLarge) {
		t.Errorf("limit: %v", err)
	}
	resp, err := x.Send(ctx, &wire.Request{Op: "query", Method: http.MethodPost, URL: srv.URL + "/", Body: []byte("q"),
		Header: http.Header{"X-Call": {"c1"}}})
	if err != nil || string(resp.Body) != "c1 q" {
		t.Fatalf("%v, %+v", err, resp)
	}
	if _, ok := resp.RetryAfter(); ok {
		t.Error("a negative Retry-After counted as a hint")
	}
}

func TestExchange_TransportFailureIsLogged(t *testing.T) {
	var logs bytes.Buffer
	x := wire.New(wire.Config{
		Transport: testutil.RoundTripFunc(func(*http.Request) (*http.Response, error) { return nil, io.ErrUnexpectedEOF }),
		Logger:    slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	for name, send := range map[string]func(context.Context, *wire.Request) (*wire.Response, error){"Do": x.Do, "Send": x.Send} {
		logs.Reset()
		_, err := send(t.Context(), &wire.Request{Op: "get", ID: "id:a:b::c", Path: "/document/v1/a/b/docid/c", Method: http.MethodGet,
			URL: "http://h:1/document/v1/a/b/docid/c?secret=s3cr3t"})
		we, ok := wire.FailureOf(err)
		if !ok || we.Status != 0 || we.Op != "get" || we.ID != "id:a:b::c" || !errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: %v, want a transport *Error wrapping the cause, without the query", name, err)
		}
		if l := logs.String(); !strings.Contains(l, `msg="vespa request failed" op=get path=/document/v1/a/b/docid/c error="unexpected EOF"`) || strings.Contains(l, "s3cr3t") {
			t.Errorf("%s logged %q", name, l)
		}
	}
}
