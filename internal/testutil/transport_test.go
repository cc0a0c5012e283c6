package testutil

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

func TestHandlerTransport_ServesAsAServerSees(t *testing.T) {
	var got *http.Request
	var body string
	tr := HandlerTransport{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		switch r.URL.Path {
		case "/abort":
			panic(http.ErrAbortHandler)
		case "/panic":
			panic("boom")
		}
		w.WriteHeader(http.StatusTeapot)
	})}
	hc := &http.Client{Transport: tr}
	// An opaque path, as the vespa client sends document paths.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://vespa:8080/", strings.NewReader("b"))
	req.URL.Opaque = "/document/v1/ns/t/docid/a%2Fb"
	req.URL.RawQuery = "create=true"
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot || got.Host != "vespa:8080" || got.RequestURI != "/document/v1/ns/t/docid/a%2Fb?create=true" ||
		got.URL.Path != "/document/v1/ns/t/docid/a/b" || got.URL.EscapedPath() != "/document/v1/ns/t/docid/a%2Fb" ||
		got.URL.Query().Get("create") != "true" || got.URL.Host != "" || got.RemoteAddr == "" || body != "b" {
		t.Errorf("status %d; handler saw host %q, URI %q, URL %#v, remote %q, body %q", resp.StatusCode, got.Host, got.RequestURI, got.URL, got.RemoteAddr, body)
	}

	req, _ = http.NewRequestWithContext(t.Context(), http.MethodGet, "http://10.0.0.1:8080/", nil)
	req.Host = "vespa.example" // sent as the Host header instead of the URL's
	if resp, err := hc.Do(req); err != nil || got.Host != "vespa.example" {
		t.Errorf("a request with its own Host: %v; the handler saw host %q", err, got.Host)
	} else {
		resp.Body.Close()
	}

	req, _ = http.NewRequestWithContext(t.Context(), http.MethodGet, "http://vespa:8080/abort", nil)
	if _, err := hc.Do(req); !errors.Is(err, syscall.ECONNRESET) { //nolint:bodyclose // it fails: no body
		t.Errorf("aborted handler: %v, want a connection reset", err)
	}
	if got.Body == nil {
		t.Error("the handler got a nil body")
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, "http://vespa:8080/", nil)
	if _, err := (HandlerTransport{Handler: http.NotFoundHandler()}).RoundTrip(req); !errors.Is(err, context.Canceled) { //nolint:bodyclose // it fails: no body
		t.Errorf("cancelled request: %v", err)
	}

	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want the handler's own panic", r)
		}
	}()
	req, _ = http.NewRequestWithContext(t.Context(), http.MethodGet, "http://vespa:8080/panic", nil)
	_, _ = tr.RoundTrip(req) //nolint:bodyclose // it panics
}

// closeCounter is a request body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closes int
}

func (c *closeCounter) Close() error { c.closes++; return nil }

func TestHandlerTransport_ClosesTheRequestBody(t *testing.T) {
	tr := HandlerTransport{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/abort" {
			panic(http.ErrAbortHandler)
		}
	})}
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name, path string
		ctx        context.Context
	}{{"answered", "/", t.Context()}, {"aborted", "/abort", t.Context()}, {"cancelled", "/", ended}} {
		body := &closeCounter{Reader: strings.NewReader("b")}
		req, _ := http.NewRequestWithContext(tc.ctx, http.MethodPost, "http://vespa:8080"+tc.path, body)
		resp, err := tr.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
		}
		if body.closes != 1 {
			t.Errorf("%s: the request body closed %d times, want once", tc.name, body.closes)
		}
	}
}
