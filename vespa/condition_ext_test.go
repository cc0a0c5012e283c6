package vespa_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// WhyConditionFailed tells a false condition from a missing document in a
// 412, without the caller matching Vespa's message text.
func TestWhyConditionFailed(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	c, err := vespa.NewClient(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	id := vespa.MustParseDocumentID("id:ns:music::a")
	if _, err := c.Put(ctx, id, map[string]any{"year": 1990}, vespa.OperationOptions{}); err != nil {
		t.Fatal(err)
	}
	_, falseErr := c.Put(ctx, id, map[string]any{"year": 2000}, vespa.OperationOptions{Condition: "music.year == 1800"})
	missing := vespa.MustParseDocumentID("id:ns:music::missing")
	_, missingErr := c.Remove(ctx, missing, vespa.OperationOptions{Condition: "music.year == 1990"})
	_, notFound := c.Get(ctx, missing, vespa.OperationOptions{})
	for _, e := range []error{falseErr, missingErr} {
		if !errors.Is(e, vespa.ErrConditionNotMet) {
			t.Fatalf("%v: want ErrConditionNotMet", e)
		}
	}
	for _, c := range []struct {
		err  error
		want vespa.ConditionFailure
	}{
		{falseErr, vespa.ConditionFalse},
		{fmt.Errorf("wrapped: %w", falseErr), vespa.ConditionFalse},
		{missingErr, vespa.DocumentMissing},
		{notFound, vespa.NotConditionFailure},
		{nil, vespa.NotConditionFailure},
		{errors.New("plain"), vespa.NotConditionFailure},
	} {
		if got := vespa.WhyConditionFailed(c.err); got != c.want {
			t.Errorf("WhyConditionFailed(%v) = %v, want %v", c.err, got, c.want)
		}
	}

	// A 412 that says neither (a proxy's) is unknown, not guessed.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusPreconditionFailed)
		_, _ = w.Write([]byte(`{"message":"precondition failed at the gateway"}`))
	}))
	defer proxy.Close()
	pc, err := vespa.NewClient(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	_, err = pc.Remove(ctx, id, vespa.OperationOptions{Condition: "true"})
	if got := vespa.WhyConditionFailed(err); got != vespa.ConditionUnknown || got.String() != "condition failed, reason unknown" {
		t.Errorf("WhyConditionFailed(%v) = %v, want ConditionUnknown", err, got)
	}
}
