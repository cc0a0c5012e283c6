package query_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/query"
)

func errBody(code int, summary string) string {
	return `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":0},"errors":[{"code":` +
		itoa(code) + `,"summary":"` + summary + `","source":"music","message":"detail"}]}}`
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestSearch_ErrorMapping(t *testing.T) {
	all := []error{vespa.ErrBadRequest, vespa.ErrNotFound, vespa.ErrTooManyRequests, vespa.ErrUnavailable, vespa.ErrTimeout,
		vespa.ErrInsufficientStorage, query.ErrUnauthorized, query.ErrForbidden, query.ErrServerError,
		query.ErrPartialResult, query.ErrMalformedResponse}
	cases := []struct {
		name   string
		status int
		body   string
		code   query.ErrorCode
		want   []error
	}{
		{"illegal query", 400, errBody(3, "Illegal query"), query.CodeIllegalQuery, []error{vespa.ErrBadRequest}},
		{"invalid parameter", 400, errBody(4, "Invalid query parameter"), query.CodeInvalidQueryParameter, []error{vespa.ErrBadRequest}},
		{"unauthorized", 401, errBody(14, "Client not authenticated."), query.CodeUnauthorized, []error{query.ErrUnauthorized}},
		{"forbidden", 403, errBody(15, "Forbidden."), query.CodeForbidden, []error{query.ErrForbidden}},
		{"not found", 404, errBody(16, "Resource not found."), query.CodeNotFound, []error{vespa.ErrNotFound}},
		{"web service code", 406, errBody(406, "Not acceptable"), 406, nil},
		{"overloaded", 429, errBody(429, "Too many requests"), 429, []error{vespa.ErrTooManyRequests}},
		{"null query", 500, errBody(1, "Null query"), query.CodeNullQuery, []error{query.ErrServerError}},
		{"result has errors", 500, errBody(8, "Error in search reply."), query.CodeResultHasErrors, []error{query.ErrServerError}},
		{"no backends", 503, errBody(0, "No backends in service. Try later"), query.CodeNoBackendsInService, []error{vespa.ErrUnavailable, query.ErrServerError}},
		{"backend communication", 503, errBody(10, "Backend communication error"), query.CodeBackendCommunicationError, []error{vespa.ErrUnavailable, query.ErrServerError}},
		{"timeout", 504, errBody(12, "Timed out"), query.CodeTimeout, []error{vespa.ErrTimeout, query.ErrServerError}},
		{"insufficient storage", 507, errBody(19, "Insufficient storage"), query.CodeInsufficientStorage, []error{vespa.ErrInsufficientStorage, query.ErrServerError}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qc, _ := newServer(t, tc.status, tc.body)
			r, err := qc.Search(context.Background(), &query.Request{YQL: "y"})
			var qe *query.Error
			if !errors.As(err, &qe) {
				t.Fatalf("err %v is not a *query.Error", err)
			}
			if qe.StatusCode() != tc.status || r == nil || qe.Result != r || r.Status != tc.status {
				t.Errorf("status %d, result %v", qe.StatusCode(), r)
			}
			if c, ok := query.CodeOf(err); !ok || c != tc.code || !qe.Has(tc.code) {
				t.Errorf("code %v %v, want %v", c, ok, tc.code)
			}
			var ve *vespa.Error
			if !errors.As(err, &ve) || ve.Status != tc.status {
				t.Errorf("errors.As *vespa.Error: %v", ve)
			}
			for _, s := range all {
				want := false
				for _, w := range tc.want {
					want = want || w == s
				}
				if got := errors.Is(err, s); got != want {
					t.Errorf("errors.Is(%v) = %v, want %v", s, got, want)
				}
			}
			if !strings.Contains(err.Error(), "detail") || !strings.HasPrefix(err.Error(), "query: ") {
				t.Errorf("message %q", err)
			}
		})
	}
}

func TestSearch_FixtureErrorsMapToTheirStatus(t *testing.T) {
	for _, c := range searchFixtures(t) {
		if c.status == 0 || c.status == 200 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			qc, _ := newServer(t, c.status, string(c.body))
			_, err := qc.Search(context.Background(), &query.Request{YQL: "y"})
			var qe *query.Error
			if !errors.As(err, &qe) || qe.Status != c.status || len(qe.Errors) == 0 {
				t.Fatalf("err %v", err)
			}
			if c.status >= 500 && !errors.Is(err, query.ErrServerError) {
				t.Errorf("%d does not match ErrServerError", c.status)
			}
		})
	}
}

func TestSearch_PartialResultKeepsHitsAndErrors(t *testing.T) {
	body := `{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":2},` +
		`"errors":[{"code":12,"summary":"Timed out","source":"music","message":"one node timed out"}],` +
		`"children":[{"id":"id:ns:music::a","relevance":0.5,"fields":{"title":"A"}},{"id":"id:ns:music::b","relevance":0.4,"fields":{"title":"B"}}]}}`
	qc, _ := newServer(t, 200, body)
	r, err := qc.Search(context.Background(), &query.Request{YQL: "y"})
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if len(r.Hits) != 2 || len(r.Errors) != 1 {
		t.Fatalf("hits %d errors %d", len(r.Hits), len(r.Errors))
	}
	perr := r.Err()
	if !errors.Is(perr, query.ErrPartialResult) || !errors.Is(perr, vespa.ErrTimeout) || errors.Is(perr, vespa.ErrBadRequest) {
		t.Errorf("Err() = %v", perr)
	}
}

func TestSearch_MalformedBodies(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   []error
	}{
		{502, "<html>bad gateway</html>", []error{query.ErrMalformedResponse, query.ErrServerError}},
		{200, `{"root":`, []error{query.ErrMalformedResponse}},
		{429, "slow down", []error{query.ErrMalformedResponse, vespa.ErrTooManyRequests}},
	} {
		qc, _ := newServer(t, tc.status, tc.body)
		r, err := qc.Search(context.Background(), &query.Request{YQL: "y"})
		if r != nil || err == nil {
			t.Fatalf("%d %q: result %v err %v", tc.status, tc.body, r, err)
		}
		for _, w := range tc.want {
			if !errors.Is(err, w) {
				t.Errorf("%d: %v does not match %v", tc.status, err, w)
			}
		}
		var qe *query.Error
		if errors.As(err, &qe); qe == nil || qe.Status != tc.status {
			t.Errorf("%v", err)
		}
	}
}

func TestError_RetryAfter(t *testing.T) {
	qc, _ := newServerWithHeader(t, 429, errBody(429, "Too many"), "Retry-After", "3")
	_, err := qc.Search(context.Background(), &query.Request{YQL: "y"})
	var qe *query.Error
	if !errors.As(err, &qe) {
		t.Fatal(err)
	}
	if d, ok := qe.RetryAfter(); !ok || d != 3*time.Second {
		t.Errorf("RetryAfter = %v %v", d, ok)
	}
}
