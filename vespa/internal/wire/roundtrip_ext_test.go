package wire_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/internal/wire"
)

func TestRoundTrip_RedirectIsReturnedNotFollowed(t *testing.T) {
	other, hits := counting(t, func(w http.ResponseWriter, r *http.Request) {})
	front, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusTemporaryRedirect)
	})
	// A client whose own policy would follow: the direct path never does.
	hc := &http.Client{Transport: http.DefaultTransport}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, front.URL+"/document/v1/a/b/docid/c", nil)
	wire.SetBody(req, []byte(`{"fields":{}}`))
	resp, err := wire.RoundTrip(hc, req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || hits.Load() != 0 {
		t.Fatalf("status %d, %d requests to the redirect's target; want the 307 itself and none", resp.StatusCode, hits.Load())
	}
}

// TestDirect: only a client with a transport, no cookie jar and no Timeout
// is bypassed (hc.Do would add the jar's cookies to the request itself).
func TestDirect(t *testing.T) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	rt := http.DefaultTransport
	for _, tc := range []struct {
		name string
		hc   *http.Client
		want bool
	}{
		{"transport only", &http.Client{Transport: rt}, true},
		{"a redirect policy", &http.Client{Transport: rt, CheckRedirect: wire.NoRedirects}, true},
		{"no transport", &http.Client{}, false},
		{"a cookie jar", &http.Client{Transport: rt, Jar: jar}, false},
		{"a timeout", &http.Client{Transport: rt, Timeout: time.Second}, false},
	} {
		if got := wire.Direct(tc.hc); got != tc.want {
			t.Errorf("%s: Direct = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRoundTrip_FailureIsURLErrorWithoutQuery(t *testing.T) {
	cause := io.EOF
	hc := &http.Client{Transport: testutil.RoundTripFunc(func(*http.Request) (*http.Response, error) { return nil, cause })}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPut, "http://h:1/document/v1/a/b/docid/c?secret=s3cr3t", nil)
	_, err := wire.RoundTrip(hc, req) //nolint:bodyclose // it fails: no body
	var ue *url.Error
	if !errors.As(err, &ue) || !errors.Is(err, io.EOF) {
		t.Fatalf("error %#v: want a *url.Error wrapping io.EOF", err)
	}
	if ue.Op != "Put" || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("error %q (op %q): want op Put and no query", err, ue.Op)
	}
}

func TestRoundTrip_NilAnswers(t *testing.T) {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://h:1/x", nil)
	hc := &http.Client{Transport: testutil.RoundTripFunc(func(*http.Request) (*http.Response, error) { return nil, nil })}
	if _, err := wire.RoundTrip(hc, req); err == nil { //nolint:bodyclose // it fails: no body
		t.Fatal("a nil response with a nil error was taken as an answer")
	}
	hc.Transport = testutil.RoundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, ContentLength: -1}, nil
	})
	resp, err := wire.RoundTrip(hc, req)
	if err == nil {
		defer resp.Body.Close()
	}
	if err != nil || resp.Body != http.NoBody {
		t.Fatalf("nil body: got %v, %v; want http.NoBody", resp, err)
	}
	hc.Transport = testutil.RoundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, ContentLength: 5}, nil
	})
	if _, err := wire.RoundTrip(hc, req); err == nil { //nolint:bodyclose // it fails: no body
		t.Fatal("a nil body with a Content-Length of 5 was taken as an answer")
	}
}

func TestRoundTrip_ClientTimeoutStillApplies(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	hc := &http.Client{Timeout: 20 * time.Millisecond, Transport: testutil.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-block:
			return nil, errors.New("unblocked")
		}
	})}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://h:1/x", nil)
	_, err := wire.RoundTrip(hc, req) //nolint:bodyclose // it fails: no body
	var ue *url.Error
	if !errors.As(err, &ue) || !ue.Timeout() {
		t.Fatalf("error %v: want the client's timeout", err)
	}
}

func TestBody_ReadsWritesAndHandsOver(t *testing.T) {
	data := []byte("0123456789")
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://h:1/x", nil)
	wire.SetBody(req, data)
	if req.ContentLength != 10 || req.GetBody == nil {
		t.Fatalf("ContentLength %d, GetBody %v", req.ContentLength, req.GetBody != nil)
	}
	p := make([]byte, 4)
	if n, err := req.Body.Read(p); n != 4 || err != nil || string(p) != "0123" {
		t.Fatalf("Read: %d, %v, %q", n, err, p)
	}
	var buf bytes.Buffer
	if n, err := req.Body.(io.WriterTo).WriteTo(&buf); n != 6 || err != nil || buf.String() != "456789" {
		t.Fatalf("WriteTo: %d, %v, %q", n, err, buf.String())
	}
	if n, err := req.Body.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("Read at the end: %d, %v", n, err)
	}
	again, err := req.GetBody()
	if err != nil {
		t.Fatal(err)
	}
	ub := again.(interface{ UnreadBytes() []byte }).UnreadBytes()
	if string(ub) != "0123456789" {
		t.Fatalf("UnreadBytes of GetBody's body = %q", ub)
	}
	if n, err := again.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("Read after UnreadBytes: %d, %v", n, err)
	}
	wire.SetBody(req, nil)
	if req.Body != http.NoBody || req.ContentLength != 0 || req.GetBody != nil {
		t.Fatal("an empty body is not http.NoBody")
	}
}
