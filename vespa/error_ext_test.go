package vespa_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
)

// statusSentinels maps each status that has a sentinel to it.
var statusSentinels = map[int]error{
	400: vespa.ErrBadRequest, 404: vespa.ErrNotFound, 412: vespa.ErrConditionNotMet, 413: vespa.ErrTooLarge,
	429: vespa.ErrTooManyRequests, 503: vespa.ErrUnavailable, 504: vespa.ErrTimeout, 507: vespa.ErrInsufficientStorage,
}

func TestError_Sentinels(t *testing.T) {
	for _, status := range []int{400, 403, 404, 405, 412, 413, 429, 500, 502, 503, 504, 507} {
		err := vespa.ErrorFromResult(&vespa.Result{ID: testID, Status: status, Message: "m", Path: "/p"}, "update")
		wrapped := fmt.Errorf("outer: %w", err)
		for s, sentinel := range statusSentinels {
			if errors.Is(wrapped, sentinel) != (s == status) {
				t.Errorf("status %d: errors.Is(%v) = %v", status, sentinel, !(s == status))
			}
		}
		var ve *vespa.Error
		if !errors.As(wrapped, &ve) || ve.StatusCode() != status || ve.Message != "m" || ve.ID != testID.String() || ve.Op != "update" || ve.Path != "/p" {
			t.Errorf("status %d: %#v", status, ve)
		}
	}
	for _, s := range []int{200, 201, 204} {
		if err := vespa.ErrorFromResult(&vespa.Result{Status: s}, "put"); err != nil {
			t.Errorf("%d: %v", s, err)
		}
	}
	if vespa.ErrorFromResult(nil, "put") != nil {
		t.Error("nil result gave an error")
	}
}

func TestError_Text(t *testing.T) {
	err := vespa.ErrorFromResult(&vespa.Result{ID: testID, Status: 412, Message: "no dice"}, "remove")
	if got, want := err.Error(), `vespa: remove "id:ns:music::a": status 412 Precondition Failed: no dice`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e := &vespa.Error{Op: "get", Path: "/p", Err: context.DeadlineExceeded}
	if got := e.Error(); got != "vespa: get /p: context deadline exceeded" || !errors.Is(e, context.DeadlineExceeded) {
		t.Errorf("Error() = %q", got)
	}
}

func TestError_NonJSONBody(t *testing.T) {
	html := "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>" + strings.Repeat("<p>nginx</p>\n", 100) + "</body></html>"
	for _, body := range []string{html, "", "{not json", "[1,2]", "\xff\xfe\x00binary"} {
		srv := newFakeVespa(t, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(body))
		})
		c := newTestClient(t, srv.URL)
		res, err := c.Get(context.Background(), testID, vespa.OperationOptions{})
		var ve *vespa.Error
		if !errors.As(err, &ve) || ve.Status != 502 {
			t.Fatalf("body %.20q: err = %v", body, err)
		}
		if res == nil || res.Status != 502 {
			t.Fatalf("result %+v", res)
		}
		if len(res.BodyExcerpt) > 256 || len(ve.Message) > 256 {
			t.Errorf("excerpt of %d bytes", len(res.BodyExcerpt))
		}
		if body == html && !strings.Contains(ve.Error(), "502 Bad Gateway") {
			t.Errorf("error %q lacks the excerpt", ve)
		}
		if strings.ContainsAny(ve.Message, "\n\x00") {
			t.Errorf("message %q is not one clean line", ve.Message)
		}
	}
}
