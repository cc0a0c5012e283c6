package feedgen

import (
	"io"
	"net/http"
)

// putAnswer is Vespa's answer to a put, as the sink gives it to every request.
const putAnswer = `{"pathId":"/document/v1/ns/music/docid/d0","id":"id:ns:music::d0"}`

// SinkHandler returns the handler of a sink: it reads each request's body
// and answers 200 at once with a Vespa put answer, the least a
// /document/v1 server can do, so that a benchmark measures the client.
func SinkHandler() http.Handler {
	answer := []byte(putAnswer)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})
}
