package vespa_test

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestRemove_IgnoredIsVisible: a remove Vespa ignored (200 with
// X-Vespa-Ignored-Operation: true, as DocumentV1ApiHandler answers an
// operation DocumentRouteSelectorPolicy routed nowhere) succeeds with
// Result.IgnoredOperation set; a remove that was carried out has it unset.
func TestRemove_IgnoredIsVisible(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	srv.ScriptFaults(vespatest.OpRemove, vespatest.FaultIgnored())
	c := newTestClient(t, srv.URL())
	id := vespa.MustParseDocumentID("id:ns:music::a")
	r, err := c.Remove(t.Context(), id, vespa.OperationOptions{})
	if err != nil || !r.IgnoredOperation || r.Status != http.StatusOK {
		t.Fatalf("ignored remove: %+v, %v; want 200 with IgnoredOperation", r, err)
	}
	r, err = c.Remove(t.Context(), id, vespa.OperationOptions{})
	if err != nil || r.IgnoredOperation {
		t.Errorf("plain remove: %+v, %v; want IgnoredOperation unset", r, err)
	}
}

// TestRemoveWhere_IgnoredPageFails: a mass-operation page answered 200 with
// X-Vespa-Ignored-Operation (Vespa never sends it there, a proxy or fault
// might) ends RemoveWhere with an error matching ErrIgnoredOperation, and its
// documents are not counted. Before the check, RemoveWhere returned 3 and
// no error.
func TestRemoveWhere_IgnoredPageFails(t *testing.T) {
	c := newHandlerClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Vespa-Ignored-Operation", "true")
		_, _ = io.WriteString(w, `{"pathId":"/document/v1/ns/music/docid","documentCount":3}`)
	}))
	n, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{Namespace: "ns", DocType: "music", Cluster: "music", Selection: "true", Slices: 1})
	if !errors.Is(err, vespa.ErrIgnoredOperation) || n != 0 {
		t.Fatalf("RemoveWhere = %d, %v; want 0 and ErrIgnoredOperation", n, err)
	}
	var ve *vespa.Error
	if !errors.As(err, &ve) || ve.Status != http.StatusOK || ve.Op != "remove-where" {
		t.Errorf("error %#v: want an *Error of remove-where with the page's status", err)
	}
}
