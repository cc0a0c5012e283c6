package vespatest

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/httpx"
	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/search"
)

// corpus presents the store to the /search/ handler.
type corpus struct{ s *Server }

func (c corpus) Schemas() []search.Schema { return c.s.app.Load().Schemas }

// ClusterOf names the content cluster of a document type.
func (c corpus) ClusterOf(docType string) string { return c.s.app.Load().ClusterOf(docType) }

// DefaultQueryProfile is the application's default query profile.
func (c corpus) DefaultQueryProfile() map[string]string { return c.s.app.Load().QueryProfile }

// Each iterates one consistent snapshot: writers wait while it runs.
func (c corpus) Each(fn func(search.Document) bool) {
	c.s.store.Each(func(id string, fields []byte) bool {
		return fn(search.Document{ID: id, Type: docTypeOf(id), Fields: json.RawMessage(fields)})
	})
}

// docTypeOf returns the type part of a stored (valid) document ID.
func docTypeOf(id string) string {
	rest := strings.TrimPrefix(id, "id:")
	_, rest, _ = strings.Cut(rest, ":")
	typ, _, _ := strings.Cut(rest, ":")
	return typ
}

func newSearchMount(s *Server) http.Handler { return search.NewHandler(corpus{s}) }

// serveSearch runs faults for OpSearch, then the search handler. A pure
// latency is the handler's to wait, since only it knows the query's timeout.
func (s *Server) serveSearch(w http.ResponseWriter, r *http.Request) {
	f, ok := s.faults.Pick(fault.OpSearch, httpx.RawPath(r))
	if ok && f.SoftTimeout {
		r = r.WithContext(search.WithSoftTimeout(r.Context(), f.Covered))
		f.SoftTimeout, f.Covered = false, 0
		ok = f != fault.Fault{}
	}
	if ok && f.Latency > 0 && f.Status == 0 && !f.Drop {
		r = r.WithContext(search.WithLatency(r.Context(), f.Latency))
		ok = false
	}
	if ok {
		switch fault.Run(r.Context(), w, r, f, 0) {
		case fault.OutcomeDone:
			return
		case fault.OutcomeStatus:
			writeSearchError(w, f)
			return
		}
	}
	s.search.ServeHTTP(w, r)
}

// writeSearchError renders an injected fault as a Vespa search error result.
func writeSearchError(w http.ResponseWriter, f fault.Fault) {
	code, summary := f.Status, http.StatusText(f.Status)
	switch f.Status {
	case http.StatusServiceUnavailable:
		code, summary = 0, "No backends in service. Try later"
	case http.StatusGatewayTimeout:
		code, summary = 12, "Timed out"
	case http.StatusInternalServerError:
		code, summary = 18, "Internal server error."
	}
	msg := fault.MessageOf(f)
	errObj := jsonx.Object{{Key: "code", Val: jsonx.Int(int64(code))}, {Key: "summary", Val: jsonx.String(summary)}, {Key: "message", Val: jsonx.String(msg)}}
	root := jsonx.Object{
		{Key: "id", Val: jsonx.String("toplevel")}, {Key: "relevance", Val: json.RawMessage("1.0")},
		{Key: "fields", Val: json.RawMessage(`{"totalCount":0}`)},
		{Key: "errors", Val: json.RawMessage("[" + string(errObj.Marshal()) + "]")},
	}
	httpx.WriteJSON(w, f.Status, jsonx.Object{{Key: "root", Val: root.Marshal()}})
}
