package vespa_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
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
