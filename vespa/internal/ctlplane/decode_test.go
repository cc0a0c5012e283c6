package ctlplane

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/retries"
)

func TestDecodeJSON(t *testing.T) {
	r, err := DecodeJSON[MessageReply]("cloud", "delete", []byte(`{"message":"gone","other":1}`))
	if err != nil || r.Message != "gone" {
		t.Errorf("DecodeJSON = %+v, %v", r, err)
	}
	for _, tc := range []struct{ pkg, op, want string }{
		{"cloud", "delete", "cloud: delete: decoding reply: "},
		{"deploy", "deploy", "deploy: decoding reply: "},
	} {
		if _, err := DecodeJSON[MessageReply](tc.pkg, tc.op, []byte(`<html>`)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("DecodeJSON(%s, %s) of HTML: %v, want an error starting %q", tc.pkg, tc.op, err, tc.want)
		}
	}
}

func TestDoJSONAndUploadJSON(t *testing.T) {
	var calls atomic.Int32
	hc := &http.Client{Transport: testutil.HandlerTransport{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		switch r.URL.Path {
		case "/ok":
			_, _ = io.WriteString(w, `{"message":"done `+r.Method+`"}`)
		case "/html":
			_, _ = io.WriteString(w, `<html>`)
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	})}}
	tr := NewTransport("cloud", hc, retries.ControlPlane.WithMaxAttempts(1), "ua", slog.New(slog.DiscardHandler))
	for _, send := range []struct {
		name string
		f    func(context.Context, *Transport, Call) (*MessageReply, error)
	}{{"DoJSON", DoJSON[MessageReply]}, {"UploadJSON", UploadJSON[MessageReply]}} {
		t.Run(send.name, func(t *testing.T) {
			r, err := send.f(t.Context(), tr, Call{Op: "delete", Method: http.MethodDelete, URL: &url.URL{Scheme: "http", Host: "cp", Path: "/ok"}})
			if err != nil || r.Message != "done DELETE" {
				t.Errorf("ok reply: %+v, %v", r, err)
			}
			_, err = send.f(t.Context(), tr, Call{Op: "delete", Method: http.MethodGet, URL: &url.URL{Scheme: "http", Host: "cp", Path: "/html"}})
			if err == nil || !strings.HasPrefix(err.Error(), "cloud: delete: decoding reply: ") {
				t.Errorf("HTML reply: %v", err)
			}
			_, err = send.f(t.Context(), tr, Call{Op: "delete", Method: http.MethodGet, URL: &url.URL{Scheme: "http", Host: "cp", Path: "/bad"}})
			if e, ok := FailureOf(err); !ok || e.Status != http.StatusBadRequest {
				t.Errorf("400 reply: %v, want an *Error with status 400", err)
			}
		})
	}
	if n := calls.Load(); n != 6 {
		t.Errorf("%d calls, want 6", n)
	}
}
