// Package configserver is the emulator's config-server API: deploy sessions
// (prepareandactivate and the session flow), serviceconverge and health.
package configserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/httpx"
	"github.com/govespa/govespa/vespa/vespatest/internal/jsonx"
	"github.com/govespa/govespa/vespa/vespatest/internal/schema"
)

// Container is the emulated container a config server deploys to.
type Container interface {
	// NextSession returns the id of a new deploy session (2, 3, ...).
	NextSession() int64
	// Activate makes pkg the deployed application.
	Activate(pkg *schema.AppPackage) error
	// SetHealth sets the container's health ("up" after a deploy).
	SetHealth(code string) error
	// Generation is the deployed application's generation.
	Generation() int64
	// Addr is the container's listen address, host:port.
	Addr() string
	// DeployFault picks the fault, if any, for the prepare of a deployment
	// whose request has the raw path path (faults of fault.OpDeploy).
	DeployFault(path string) (fault.Fault, bool)
}

// Server is the config-server API (deploy, serviceconverge, health) on its
// own listener, as Vespa serves it on port 19071.
type Server struct {
	c   Container
	ln  net.Listener
	srv *http.Server
	// URL is the base URL, http://host:port.
	URL string

	mu       sync.Mutex
	sessions map[int64]*session
	active   int64

	served chan struct{} // closed when the Serve goroutine returns
}

type session struct {
	tenant, app, instance string
	pkg                   *schema.AppPackage
	prepared, active      bool
	basedOn               int64 // the active session when this one was created
}

// Start listens on addr and serves the config-server API for c until
// Close. errorLog receives the HTTP server's errors; logger its serve error.
func Start(c Container, addr string, errorLog *log.Logger, logger *slog.Logger) (*Server, error) {
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("vespatest: config server listen on %s: %w", addr, err)
	}
	cs := &Server{c: c, ln: ln, URL: "http://" + ln.Addr().String(), sessions: map[int64]*session{}}
	cs.srv = &http.Server{Handler: http.HandlerFunc(cs.serve), ReadHeaderTimeout: 30 * time.Second, ErrorLog: errorLog}
	cs.served = make(chan struct{})
	go func() {
		defer close(cs.served)
		if err := cs.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("vespatest: config server", "err", err)
		}
	}()
	return cs, nil
}

// Close shuts the config server down within ctx.
func (cs *Server) Close(ctx context.Context) {
	if err := cs.srv.Shutdown(ctx); err != nil {
		_ = cs.srv.Close() // shutting down anyway: a close error has no one to go to
	}
	<-cs.served
}

func writeConfigJSON(w http.ResponseWriter, status int, body jsonx.Object) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body.Marshal())
}

func configError(w http.ResponseWriter, status int, code, msg string) {
	writeConfigJSON(w, status, jsonx.Object{{Key: "error-code", Val: jsonx.String(code)}, {Key: "message", Val: jsonx.String(msg)}})
}

var emptyChanges = json.RawMessage(`{"restart":[],"refeed":[],"reindex":[]}`)

func (cs *Server) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/state/v1/health":
		writeConfigJSON(w, http.StatusOK, httpx.HealthBody("up"))
		return
	case p == "/status.html":
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>OK</title>"))
		return
	case p == "/ApplicationStatus":
		writeConfigJSON(w, http.StatusOK, jsonx.Object{{Key: "application", Val: json.RawMessage(`{"vespa":{"version":"` + httpx.VespaVersion + `"}}`)}})
		return
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	if len(segs) < 4 || segs[0] != "application" || segs[1] != "v2" || segs[2] != "tenant" {
		configError(w, http.StatusNotFound, "NOT_FOUND", "Nothing at path '"+p+"'")
		return
	}
	tenant, rest := segs[3], segs[4:]
	base := "http://" + r.Host + "/application/v2/tenant/" + tenant
	method := func(allowed string) bool {
		if r.Method != allowed {
			configError(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Method '"+r.Method+"' is not supported")
			return false
		}
		return true
	}
	switch {
	case len(rest) == 1 && rest[0] == "prepareandactivate":
		if method(http.MethodPost) {
			cs.prepareAndActivate(w, r, tenant, base)
		}
	case len(rest) == 2 && rest[0] == "prepareandactivate":
		if method(http.MethodPut) {
			cs.activateOnly(w, r, tenant, rest[1])
		}
	case len(rest) == 1 && rest[0] == "session":
		if method(http.MethodPost) {
			cs.createSession(w, r, tenant, base)
		}
	case len(rest) == 3 && rest[0] == "session" && (rest[2] == "prepared" || rest[2] == "active"):
		if method(http.MethodPut) {
			cs.sessionStep(w, r, tenant, base, rest[1], rest[2])
		}
	case len(rest) == 1 && rest[0] == "application":
		cs.listApplications(w, base)
	case len(rest) == 2 && rest[0] == "application" && r.Method == http.MethodDelete:
		cs.deleteApplication(w, rest[1])
	case len(rest) >= 9 && rest[0] == "application" && rest[len(rest)-1] == "serviceconverge":
		cs.serviceConverge(w, r)
	default:
		configError(w, http.StatusNotFound, "NOT_FOUND", "Nothing at path '"+p+"'")
	}
}

// readPackage reads the application package from a zip, gzipped tar, or
// multipart body (parts "applicationPackage" and "prepareParams", the
// deploy parameters as JSON, returned as params; nil for other bodies).
func readPackage(r *http.Request) (pkg *schema.AppPackage, params []byte, hadData bool, err error) {
	var data []byte
	mt, mtParams, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		mr := multipart.NewReader(r.Body, mtParams["boundary"])
		params = []byte{}
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			switch part.FormName() {
			case "applicationPackage":
				data, _ = io.ReadAll(part)
			case "prepareParams":
				params, _ = io.ReadAll(part)
			}
		}
	} else {
		var err error
		if data, err = io.ReadAll(r.Body); err != nil {
			return nil, nil, false, err
		}
	}
	if len(data) == 0 {
		return nil, params, false, errors.New("Request contains no data")
	}
	if pkg, err = schema.ReadApplicationArchive(data); err != nil {
		return nil, params, true, err
	}
	return pkg, params, true, nil
}

func (cs *Server) newSession(r *http.Request, tenant string, pkg *schema.AppPackage) (int64, *session) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	id := cs.c.NextSession()
	app, inst := r.URL.Query().Get("applicationName"), r.URL.Query().Get("instance")
	if app == "" {
		app = "default"
	}
	if inst == "" {
		inst = "default"
	}
	sess := &session{tenant: tenant, app: app, instance: inst, pkg: pkg, basedOn: cs.active}
	cs.sessions[id] = sess
	return id, sess
}

func (cs *Server) checkPackage(w http.ResponseWriter, tenant string, id int64, pkg *schema.AppPackage) bool {
	if !pkg.HasServices {
		configError(w, http.StatusBadRequest, "BAD_REQUEST", fmt.Sprintf(
			"Error preprocessing application package for %s.default.default, session id %d (based on session id unknown): services.xml does not exist in application package. There are %d files in the directory",
			tenant, id, pkg.Files))
		return false
	}
	return true
}

func (cs *Server) appURL(base string, sess *session) string {
	return base + "/application/" + sess.app + "/environment/prod/region/default/instance/" + sess.instance
}

func (cs *Server) activateSession(id int64, sess *session) {
	cs.mu.Lock()
	cs.active = id
	sess.prepared, sess.active = true, true
	cs.mu.Unlock()
	_ = cs.c.Activate(sess.pkg)
	_ = cs.c.SetHealth("up")
}

func (cs *Server) prepareAndActivate(w http.ResponseWriter, r *http.Request, tenant, base string) {
	pkg, params, hadData, err := readPackage(r)
	if err != nil {
		if !hadData {
			configError(w, http.StatusBadRequest, "BAD_REQUEST", err.Error())
		} else {
			configError(w, http.StatusBadRequest, "INVALID_APPLICATION_PACKAGE", "Unable to read application package: "+err.Error())
		}
		return
	}
	b := newBudget(requestTimeout(r, defaultPrepareTimeout))
	if params != nil { // multipart: the timeout is in the deploy parameters
		b = newBudget(paramsTimeout(params, defaultPrepareTimeout))
	}
	id, sess := cs.newSession(r, tenant, pkg)
	if !cs.prepare(w, r, b, id, sess) || !cs.activationInTime(w, b, sess) {
		return
	}
	cs.activateSession(id, sess)
	sid := strconv.FormatInt(id, 10)
	writeConfigJSON(w, http.StatusOK, jsonx.Object{
		{Key: "log", Val: json.RawMessage("[]")},
		{Key: "message", Val: jsonx.String("Session " + sid + " for tenant '" + tenant + "' prepared and activated.")},
		{Key: "session-id", Val: jsonx.String(sid)},
		{Key: "activated", Val: json.RawMessage("true")},
		{Key: "tenant", Val: jsonx.String(tenant)},
		{Key: "url", Val: jsonx.String(cs.appURL(base, sess))},
		{Key: "configChangeActions", Val: emptyChanges},
	})
}

func (cs *Server) lookup(w http.ResponseWriter, tenant, idText string) (int64, *session, bool) {
	id, err := strconv.ParseInt(idText, 10, 64)
	cs.mu.Lock()
	sess := cs.sessions[id]
	cs.mu.Unlock()
	if err != nil || sess == nil || sess.tenant != tenant {
		configError(w, http.StatusNotFound, "NOT_FOUND", "Local session "+idText+" for '"+tenant+"' was not found")
		return 0, nil, false
	}
	return id, sess, true
}

func (cs *Server) activateOnly(w http.ResponseWriter, r *http.Request, tenant, idText string) {
	id, sess, ok := cs.lookup(w, tenant, idText)
	if !ok || !cs.activationInTime(w, newBudget(requestTimeout(r, defaultActivateTimeout)), sess) {
		return
	}
	cs.mu.Lock()
	active := cs.active
	cs.mu.Unlock()
	if active != id && active != sess.basedOn {
		configError(w, http.StatusConflict, "ACTIVATION_CONFLICT", fmt.Sprintf(
			"app:%s.%s.%s This session %d was prepared when session %d was active, but session %d has since become active: refusing to activate this session, please redeploy",
			tenant, sess.app, sess.instance, id, sess.basedOn, active))
		return
	}
	cs.activateSession(id, sess)
	writeConfigJSON(w, http.StatusOK, jsonx.Object{{Key: "message", Val: jsonx.String(fmt.Sprintf("Session %d for %s.%s.%s activated", id, tenant, sess.app, sess.instance))}})
}

func (cs *Server) createSession(w http.ResponseWriter, r *http.Request, tenant, base string) {
	pkg, _, hadData, err := readPackage(r)
	if err != nil {
		code := "BAD_REQUEST"
		if hadData {
			code = "INVALID_APPLICATION_PACKAGE"
		}
		configError(w, http.StatusBadRequest, code, err.Error())
		return
	}
	id, _ := cs.newSession(r, tenant, pkg)
	sid := strconv.FormatInt(id, 10)
	writeConfigJSON(w, http.StatusOK, jsonx.Object{
		{Key: "log", Val: json.RawMessage("[]")},
		{Key: "tenant", Val: jsonx.String(tenant)},
		{Key: "session-id", Val: jsonx.String(sid)},
		{Key: "prepared", Val: jsonx.String(base + "/session/" + sid + "/prepared")},
		{Key: "content", Val: jsonx.String(base + "/session/" + sid + "/content/")},
		{Key: "message", Val: jsonx.String("Session " + sid + " for tenant '" + tenant + "' created.")},
	})
}

func (cs *Server) sessionStep(w http.ResponseWriter, r *http.Request, tenant, base, idText, step string) {
	id, sess, ok := cs.lookup(w, tenant, idText)
	if !ok {
		return
	}
	sid := strconv.FormatInt(id, 10)
	if step == "prepared" {
		if !cs.prepare(w, r, newBudget(requestTimeout(r, defaultPrepareTimeout)), id, sess) {
			return
		}
		cs.mu.Lock()
		sess.prepared = true
		cs.mu.Unlock()
		writeConfigJSON(w, http.StatusOK, jsonx.Object{
			{Key: "tenant", Val: jsonx.String(tenant)},
			{Key: "session-id", Val: jsonx.String(sid)},
			{Key: "activate", Val: jsonx.String(base + "/session/" + sid + "/active")},
			{Key: "message", Val: jsonx.String("Session " + sid + " for tenant '" + tenant + "' prepared.")},
			{Key: "log", Val: json.RawMessage("[]")},
			{Key: "configChangeActions", Val: emptyChanges},
		})
		return
	}
	cs.mu.Lock()
	prepared := sess.prepared
	cs.mu.Unlock()
	if !prepared {
		configError(w, http.StatusBadRequest, "BAD_REQUEST", "Session "+sid+" is not prepared")
		return
	}
	if !cs.activationInTime(w, newBudget(requestTimeout(r, defaultActivateTimeout)), sess) {
		return
	}
	cs.activateSession(id, sess)
	writeConfigJSON(w, http.StatusOK, jsonx.Object{
		{Key: "tenant", Val: jsonx.String(tenant)},
		{Key: "session-id", Val: jsonx.String(sid)},
		{Key: "message", Val: jsonx.String("Session " + sid + " for tenant '" + tenant + "' activated.")},
		{Key: "url", Val: jsonx.String(cs.appURL(base, sess))},
	})
}

func (cs *Server) listApplications(w http.ResponseWriter, base string) {
	cs.mu.Lock()
	sess := cs.sessions[cs.active]
	cs.mu.Unlock()
	list := []string{}
	if sess != nil {
		list = append(list, cs.appURL(base, sess))
	}
	b, _ := json.Marshal(list)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (cs *Server) deleteApplication(w http.ResponseWriter, app string) {
	cs.mu.Lock()
	found := false
	if sess := cs.sessions[cs.active]; sess != nil && sess.app == app {
		found = true
		cs.active = 0
	}
	cs.mu.Unlock()
	if !found {
		configError(w, http.StatusNotFound, "NOT_FOUND", "Unable to delete application '"+app+"': not found")
		return
	}
	writeConfigJSON(w, http.StatusOK, jsonx.Object{{Key: "message", Val: jsonx.String("Application '" + app + "' was deleted")}})
}

func (cs *Server) serviceConverge(w http.ResponseWriter, r *http.Request) {
	gen := cs.c.Generation()
	host, port, _ := net.SplitHostPort(cs.c.Addr())
	self := "http://" + r.Host + r.URL.Path
	svc := jsonx.Object{
		{Key: "clusterName", Val: jsonx.String("default")}, {Key: "host", Val: jsonx.String(host)}, {Key: "port", Val: json.RawMessage(port)},
		{Key: "type", Val: jsonx.String("container")}, {Key: "url", Val: jsonx.String(self + "/" + host + ":" + port)},
		{Key: "currentGeneration", Val: jsonx.Int(gen)},
	}
	writeConfigJSON(w, http.StatusOK, jsonx.Object{
		{Key: "services", Val: json.RawMessage("[" + string(svc.Marshal()) + "]")},
		{Key: "url", Val: jsonx.String(self)},
		{Key: "currentGeneration", Val: jsonx.Int(gen)},
		{Key: "wantedGeneration", Val: jsonx.Int(gen)},
		{Key: "converged", Val: json.RawMessage("true")},
	})
}
