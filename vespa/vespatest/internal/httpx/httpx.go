// Package httpx holds the emulator's small HTTP helpers: the raw request
// path Vespa routes on, and JSON answers.
package httpx

import (
	"net/http"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// JSONContentType is the Content-Type of Vespa's JSON answers.
const JSONContentType = "application/json; charset=UTF-8"

// RawPath returns the request path exactly as sent, still percent-encoded.
func RawPath(r *http.Request) string {
	uri := r.RequestURI
	if uri == "" {
		uri = r.URL.RequestURI()
	}
	if i := strings.IndexByte(uri, '?'); i >= 0 {
		uri = uri[:i]
	}
	if strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://") {
		return r.URL.EscapedPath()
	}
	return uri
}

// WriteJSON answers status with body.
func WriteJSON(w http.ResponseWriter, status int, body jsonx.Object) {
	w.Header().Set("Content-Type", JSONContentType)
	w.WriteHeader(status)
	_, _ = w.Write(body.Marshal())
}
