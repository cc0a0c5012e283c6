package vespa_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/vespatest"
)

func TestRemoveWhere_RemovesExactlyTheSelected(t *testing.T) {
	srv, c := newVisitServer(t, visitFastRetries)
	all := visitCorpus(t, srv, "ns", 200)
	visitCorpus(t, srv, "other", 20)
	// Slow pages and overload on the way.
	if err := srv.AddFault(vespatest.FaultRule{Op: vespatest.OpDeleteWhere, Rate: 0.2, Fault: vespatest.FaultOverload()}); err != nil {
		t.Fatal(err)
	}
	n, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{
		Namespace: "ns", DocType: "music", Cluster: "content", Selection: "music.n < 50 or music.n >= 180", Slices: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 70 {
		t.Errorf("documentCount %d, want 70", n)
	}
	for id := range all {
		var i int
		if _, err := fmt.Sscanf(id, "id:ns:music::doc-%d", &i); err != nil {
			t.Fatal(err)
		}
		_, present := srv.Document(id)
		if selected := i < 50 || i >= 180; present == selected {
			t.Errorf("%s: present %v", id, present)
		}
	}
	if got := srv.DocumentCount(); got != 150 {
		t.Errorf("%d documents left, want 150", got)
	}
}

func TestUpdateWhere_UpdatesTheSelected(t *testing.T) {
	srv, c := newVisitServer(t, visitFastRetries)
	visitCorpus(t, srv, "ns", 40)
	n, err := c.UpdateWhere(t.Context(), vespa.SelectionRequest{
		Namespace: "ns", DocType: "music", Cluster: "content", Selection: "music.n < 10", Slices: 2, Parallelism: 2,
	}, vespa.NewUpdate().Assign("title", "updated"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Errorf("documentCount %d, want 10", n)
	}
	for i := range 40 {
		raw, _ := srv.Document(fmt.Sprintf("id:ns:music::doc-%04d", i))
		var f struct{ Title string }
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		if (f.Title == "updated") != (i < 10) {
			t.Errorf("doc %d: title %q", i, f.Title)
		}
	}
}

func TestRemoveWhere_ErrorEndsTheCall(t *testing.T) {
	srv, c := newVisitServer(t, visitFastRetries)
	visitCorpus(t, srv, "ns", 30)
	srv.ScriptFaults(vespatest.OpDeleteWhere, vespatest.FaultServerError())
	_, err := c.RemoveWhere(t.Context(), vespa.SelectionRequest{Namespace: "ns", DocType: "music", Cluster: "content", Selection: "true"})
	var ve *vespa.Error
	if !errors.As(err, &ve) || ve.Status != http.StatusInternalServerError {
		t.Fatalf("got %v, want a 500 *Error", err)
	}
	if got := srv.FaultStats().ByStatus[500]; got != 1 {
		t.Errorf("%d attempts, want 1 (no retry of a failed mass operation)", got)
	}
}

func TestMassOperations_InvalidRequests(t *testing.T) {
	_, c := newVisitServer(t)
	for _, tc := range []struct {
		name string
		req  vespa.SelectionRequest
	}{
		{"no cluster", vespa.SelectionRequest{Namespace: "ns", DocType: "music", Selection: "true"}},
		{"no selection", vespa.SelectionRequest{Namespace: "ns", DocType: "music", Cluster: "content"}},
		{"slice out of range", vespa.SelectionRequest{Namespace: "ns", DocType: "music", Cluster: "content", Selection: "true", Slices: 2, SliceIDs: []int{5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.RemoveWhere(t.Context(), tc.req); err == nil {
				t.Error("RemoveWhere: no error")
			}
			if _, err := c.UpdateWhere(t.Context(), tc.req, vespa.NewUpdate().Assign("a", 1)); err == nil {
				t.Error("UpdateWhere: no error")
			}
		})
	}
	if _, err := c.UpdateWhere(t.Context(), vespa.SelectionRequest{Cluster: "content", Selection: "true"}, vespa.NewUpdate().Assign("a", 1)); err == nil {
		t.Error("UpdateWhere without a document type: no error")
	}
}
