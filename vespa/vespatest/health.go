package vespatest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/httpx"
	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
)

// Health status codes of /state/v1/health.
const (
	healthUp           = "up"
	healthDown         = "down"
	healthInitializing = "initializing"
)

func validHealth(code string) bool {
	return code == healthUp || code == healthDown || code == healthInitializing
}

// SetHealth sets the status code /state/v1/health reports: "up",
// "initializing" or "down". /status.html and /ApplicationStatus answer 200
// only while it is "up". It returns an error for any other code.
func (s *Server) SetHealth(code string) error {
	if !validHealth(code) {
		return fmt.Errorf("vespatest: unknown health status code %q", code)
	}
	s.health.Store(&code)
	return nil
}

// Health returns the current /state/v1/health status code.
func (s *Server) Health() string { return *s.health.Load() }

func (s *Server) serveState(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/state/v1/health":
		httpx.WriteJSON(w, http.StatusOK, httpx.HealthBody(s.Health()))
	case "/state/v1/version":
		httpx.WriteJSON(w, http.StatusOK, jsonx.Object{{Key: "version", Val: jsonx.String(httpx.VespaVersion)}})
	case "/state/v1/config":
		g := s.app.Load().Generation
		cfg := fmt.Sprintf(`{"generation":%d,"applyOnRestart":false,"container":{"generation":%d},"wantedGeneration":%d}`, g, g, g)
		httpx.WriteJSON(w, http.StatusOK, jsonx.Object{{Key: "config", Val: []byte(cfg)}})
	case "/state/v1", "/state/v1/":
		base := "http://" + r.Host + "/state/v1/"
		res := `[{"url":"` + base + `config"},{"url":"` + base + `health"},{"url":"` + base + `version"}]`
		httpx.WriteJSON(w, http.StatusOK, jsonx.Object{{Key: "resources", Val: []byte(res)}})
	default:
		httpx.WriteJSON(w, http.StatusNotFound, jsonx.Object{{Key: "message", Val: jsonx.String("Not found: " + r.URL.Path)}})
	}
}

func (s *Server) serveStatusHTML(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	if s.Health() != healthUp {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("No search backends available, VIP status disabled."))
		return
	}
	_, _ = w.Write([]byte("<title>OK</title>"))
}

func (s *Server) serveApplicationStatus(w http.ResponseWriter, r *http.Request) {
	if s.Health() != healthUp {
		httpx.WriteJSON(w, http.StatusServiceUnavailable, jsonx.Object{{Key: "message", Val: jsonx.String("vespatest: not up")}})
		return
	}
	app := s.app.Load()
	now := time.Now()
	meta := jsonx.Object{
		{Key: "name", Val: jsonx.String("default")}, {Key: "user", Val: jsonx.String("vespatest")}, {Key: "path", Val: jsonx.String("")},
		{Key: "generation", Val: jsonx.Int(app.Generation)}, {Key: "timestamp", Val: jsonx.Int(now.UnixMilli())},
		{Key: "date", Val: jsonx.String(now.Format(time.UnixDate))}, {Key: "checksum", Val: jsonx.String(strconv.FormatInt(app.Generation, 16))},
	}
	appObj := jsonx.Object{{Key: "vespa", Val: jsonx.Object{{Key: "version", Val: jsonx.String(httpx.VespaVersion)}}.Marshal()}, {Key: "meta", Val: meta.Marshal()}}
	httpx.WriteJSON(w, http.StatusOK, jsonx.Object{
		{Key: "application", Val: appObj.Marshal()},
		{Key: "abstractComponents", Val: []byte("[]")},
		{Key: "handlers", Val: handlerList(r.Host)},
		{Key: "searchChains", Val: []byte("{}")},
	})
}
