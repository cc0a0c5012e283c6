// Package httpx holds the emulator's small HTTP helpers: the raw request
// path Vespa routes on, and JSON answers.
package httpx

import (
	"fmt"
	"net/http"
	"strings"
	"time"

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

// VespaVersion is the version the emulator claims to be.
const VespaVersion = "8.999.0"

// HealthBody is a /state/v1/health answer with status code.
func HealthBody(code string) jsonx.Object {
	now := time.Now()
	ms := now.UnixMilli()
	status := jsonx.Object{{Key: "code", Val: jsonx.String(code)}}
	if code != "up" {
		status = append(status, jsonx.Member{Key: "message", Val: jsonx.String("vespatest: status is " + code)})
	}
	metrics := fmt.Sprintf(`{"snapshot":{"from":%d.000,"to":%d.000},"values":[{"name":"requestsPerSecond","values":{"count":0,"rate":0}},{"name":"latencySeconds","values":{"average":0,"sum":0,"count":0,"max":0,"min":0,"rate":0}}]}`,
		now.Add(-time.Minute).Unix(), now.Unix())
	return jsonx.Object{{Key: "time", Val: jsonx.Int(ms)}, {Key: "status", Val: status.Marshal()}, {Key: "metrics", Val: []byte(metrics)}}
}
