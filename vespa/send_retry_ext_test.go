package vespa_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/retries"
	"github.com/govespa/govespa/vespa/vespatest"
)

// fastSyncPolicy is SyncRequest without its waits, so retry tests run at once.
var fastSyncPolicy = retries.SyncRequest.WithWait(retries.WaitNone())

func TestSyncOperations_RetryDroppedConnection(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	c := newTestClient(t, srv.URL(), vespa.WithRetryPolicy(fastSyncPolicy), vespa.WithHTTPVersion(vespa.HTTP1))
	ctx := context.Background()
	id := vespa.MustParseDocumentID("id:ns:music::dropped")

	srv.ScriptFaults(vespatest.OpPut, vespatest.FaultDrop())
	if _, err := c.Put(ctx, id, map[string]any{"title": "x"}, vespa.OperationOptions{}); err != nil {
		t.Fatalf("put after one dropped connection: %v", err)
	}
	srv.ScriptFaults(vespatest.OpGet, vespatest.FaultDrop())
	if _, err := c.Get(ctx, id, vespa.OperationOptions{}); err != nil {
		t.Fatalf("get after one dropped connection: %v", err)
	}
	if got := srv.FaultStats().Dropped; got != 2 {
		t.Fatalf("dropped connections injected = %d, want 2", got)
	}
}

func TestSendOnce_TransportErrorKeepsURLErrorWithoutURLText(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	c := newTestClient(t, srv.URL(), vespa.WithHTTPVersion(vespa.HTTP1))
	srv.ScriptFaults(vespatest.OpGet, vespatest.FaultDrop())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.SendOnce(ctx, nil, vespa.OpGet, vespa.MustParseDocumentID("id:ns:music::a"), nil, vespa.OperationOptions{})
	if err == nil {
		t.Fatal("SendOnce after a dropped connection returned no error")
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Fatalf("error %v does not unwrap to *url.Error", err)
	}
	if !retries.IsConnectionError(err) {
		t.Fatalf("error %v is not classified as a connection error", err)
	}
	if msg := err.Error(); strings.Contains(msg, srv.URL()) {
		t.Fatalf("error text repeats the URL: %q", msg)
	}
}
