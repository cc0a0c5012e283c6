package vespatest

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/govespa/govespa/vespa/vespatest/internal/httpx"
	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// routes builds the container's handler: authentication, then dispatch by path.
func (s *Server) routes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			httpx.WriteJSON(w, http.StatusForbidden, jsonx.Object{{Key: "code", Val: jsonx.Int(403)}, {Key: "message", Val: jsonx.String("Access denied")}})
			return
		}
		path := httpx.RawPath(r)
		switch {
		case path == "/document/v1" || strings.HasPrefix(path, "/document/v1/"):
			s.docs.ServeDocV1(w, r)
		case path == "/search/" || path == "/search":
			s.serveSearch(w, r)
		case strings.HasPrefix(path, "/state/v1"):
			s.serveState(w, r)
		case path == "/status.html":
			s.serveStatusHTML(w, r)
		case path == "/ApplicationStatus":
			s.serveApplicationStatus(w, r)
		case path == "/":
			httpx.WriteJSON(w, http.StatusOK, jsonx.Object{{Key: "handlers", Val: handlerList(r.Host)}})
		default:
			httpx.WriteJSON(w, http.StatusNotFound, jsonx.Object{{Key: "code", Val: jsonx.Int(404)}, {Key: "message", Val: jsonx.String("No request handler bound to " + path)}})
		}
	})
}

// authorized checks the bearer token, when one is configured. Client
// certificates are checked by the TLS handshake.
func (s *Server) authorized(r *http.Request) bool {
	if s.cfg.token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.token)) == 1
}

// handlerList renders the handlers a container lists at its root, as Vespa's
// root handler does.
func handlerList(host string) json.RawMessage {
	type handler struct {
		ID             string   `json:"id"`
		Class          string   `json:"class"`
		Bundle         string   `json:"bundle"`
		ServerBindings []string `json:"serverBindings"`
	}
	list := []handler{
		{"com.yahoo.document.restapi.resource.DocumentV1ApiHandler", "com.yahoo.document.restapi.resource.DocumentV1ApiHandler", "vespaclient-container-plugin:" + httpx.VespaVersion, []string{"http://*/document/v1/*"}},
		{"com.yahoo.search.handler.SearchHandler", "com.yahoo.search.handler.SearchHandler", "container-search-and-docproc:" + httpx.VespaVersion, []string{"http://*/search/*"}},
		{"com.yahoo.container.jdisc.state.StateHandler", "com.yahoo.container.jdisc.state.StateHandler", "container-disc:" + httpx.VespaVersion, []string{"http://*/state/v1", "http://*/state/v1/*"}},
		{"status.html", "com.yahoo.container.handler.VipStatusHandler", "container-disc:" + httpx.VespaVersion, []string{"http://*/status.html"}},
		{"application-status", "com.yahoo.container.handler.observability.ApplicationStatusHandler", "container-disc:" + httpx.VespaVersion, []string{"http://*/ApplicationStatus"}},
	}
	b, _ := json.Marshal(list)
	return b
}
