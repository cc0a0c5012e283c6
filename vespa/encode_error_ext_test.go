package vespa_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/govespa/govespa/vespa"
)

// TestPut_EncodingErrorIsNotATransportFailure: a put whose fields hold a NaN
// sends nothing and fails with an *EncodeError matching
// ErrInvalidDocument, not with the *Error{Status: 0} the docs define as a
// transport failure. Before, it was an *Error with Status 0.
func TestPut_EncodingErrorIsNotATransportFailure(t *testing.T) {
	var requests atomic.Int64
	srv := recordingVespa(t, func(*http.Request) { requests.Add(1) })
	c := newTestClient(t, srv.URL)
	_, err := c.Put(context.Background(), vespa.MustParseDocumentID("id:ns:music::nan"), map[string]any{"x": math.NaN()}, vespa.OperationOptions{})
	var ee *vespa.EncodeError
	var ve *vespa.Error
	var je *json.UnsupportedValueError
	if !errors.Is(err, vespa.ErrInvalidDocument) || !errors.As(err, &ee) || !errors.As(err, &je) || errors.As(err, &ve) {
		t.Fatalf("err = %#v (%v); want an *EncodeError matching ErrInvalidDocument, wrapping the encoder's error, no *vespa.Error", err, err)
	}
	if ee.Op != "put" || ee.ID != "id:ns:music::nan" || requests.Load() != 0 {
		t.Fatalf("%+v, %d requests sent", ee, requests.Load())
	}
}

// TestUpdate_EmptySaysVespaOnce checks issue 30's stutter: an empty update's
// error says "vespa:" once. Before: `vespa: update "id:...": vespa: empty
// update`.
func TestUpdate_EmptySaysVespaOnce(t *testing.T) {
	c, err := vespa.NewClient("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Update(context.Background(), vespa.MustParseDocumentID("id:ns:music::a"), vespa.NewUpdate(), vespa.OperationOptions{})
	if err == nil {
		t.Fatal("an empty update succeeded")
	}
	if msg := err.Error(); strings.Count(msg, "vespa:") != 1 || !strings.Contains(msg, "empty update") {
		t.Errorf("%q: want one vespa: prefix and the cause", msg)
	}
}
