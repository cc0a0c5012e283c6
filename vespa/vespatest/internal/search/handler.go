package search

import "net/http"

// NewHandler returns the /search/ handler evaluating queries over c.
func NewHandler(c Corpus) http.Handler {
	return &handler{corpus: c}
}

type handler struct {
	corpus Corpus
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte(`{"root":{"id":"toplevel","relevance":1.0,"fields":{"totalCount":0},"errors":[{"code":5,"summary":"Unspecified error","message":"search emulator not implemented yet"}]}}`))
}
