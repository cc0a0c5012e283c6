package configserver

import (
	"net/http"

	"github.com/govespa/govespa/vespa/vespatest/internal/fault"
	"github.com/govespa/govespa/vespa/vespatest/internal/httpx"
)

// prepare runs a session's prepare against its timeout budget b as Vespa's
// SessionPreparer does: the package is preprocessed (a package without
// services.xml fails here), checkTimeout("preprocess"); the models are built
// (here: the latency of an OpDeploy fault, slept in full, since Vespa checks
// the budget only between steps), checkTimeout("build models"). A step that
// ends with no time left is a 408 REQUEST_TIMEOUT, "prepare timed out [...]
// after <step> step (timeout PT…S): tenant.app.instance". A failed prepare
// deletes the session, as Deployment.prepare does. It answers and returns
// false when the prepare fails.
func (cs *Server) prepare(w http.ResponseWriter, r *http.Request, b *budget, id int64, sess *session) bool {
	ok := cs.checkPackage(w, sess.tenant, id, sess.pkg) &&
		cs.checkTimeout(w, b, "preprocess", sess) &&
		cs.buildModels(w, r) &&
		cs.checkModel(w, sess) &&
		cs.checkTimeout(w, b, "build models", sess)
	if !ok {
		cs.mu.Lock()
		delete(cs.sessions, id)
		cs.mu.Unlock()
	}
	return ok
}

// buildModels runs the OpDeploy fault of the request, if any: its latency,
// a dropped connection, or its status answered in the config server's error
// envelope. It returns false when it has answered (or dropped) the request.
func (cs *Server) buildModels(w http.ResponseWriter, r *http.Request) bool {
	f, ok := cs.c.DeployFault(httpx.RawPath(r))
	if !ok {
		return true
	}
	if fault.Run(r.Context(), w, r, fault.Fault{Latency: f.Latency, Drop: f.Drop}, 0) == fault.OutcomeDone {
		return false
	}
	if f.Status == 0 || f.Status == http.StatusOK {
		return true
	}
	msg := f.Message
	if msg == "" {
		msg = "vespatest: injected " + http.StatusText(f.Status)
	}
	code := f.ErrorCode
	if code == "" {
		code = errorCode(f.Status)
	}
	configError(w, f.Status, code, msg)
	return false
}

// checkModel refuses a package whose models Vespa would fail to build, as
// HttpHandler answers ModelsBuilder's InvalidApplicationException: 400
// INVALID_APPLICATION_PACKAGE.
func (cs *Server) checkModel(w http.ResponseWriter, sess *session) bool {
	if sess.pkg == nil || sess.pkg.ModelError == "" {
		return true
	}
	configError(w, http.StatusBadRequest, "INVALID_APPLICATION_PACKAGE", sess.pkg.ModelError)
	return false
}

// errorCode is the error-code HttpErrorResponse pairs with an HTTP status;
// 409 is APPLICATION_LOCK_FAILURE (another deployment holds the lock), the
// conflict a client most often retries.
func errorCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BAD_REQUEST"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusMethodNotAllowed:
		return "METHOD_NOT_ALLOWED"
	case http.StatusRequestTimeout:
		return "REQUEST_TIMEOUT"
	case http.StatusConflict:
		return "APPLICATION_LOCK_FAILURE"
	case http.StatusPreconditionFailed:
		return "PRECONDITION_FAILED"
	}
	return "INTERNAL_SERVER_ERROR"
}

// checkTimeout is SessionPreparer.Preparation.checkTimeout.
func (cs *Server) checkTimeout(w http.ResponseWriter, b *budget, step string, sess *session) bool {
	if b.hasTimeLeft(step) {
		return true
	}
	configError(w, http.StatusRequestTimeout, "REQUEST_TIMEOUT", "prepare timed out "+b.timesUsed()+" after "+step+
		" step (timeout "+javaDuration(b.timeout)+"): "+sess.appID())
	return false
}

// activationInTime is the check Deployment.activate makes before it
// activates: with no time left in b (a timeout of 0 or less, or a prepare
// that used it up), 408 REQUEST_TIMEOUT "Timeout exceeded when trying to
// activate 'tenant.app.instance'", and nothing is activated.
func (cs *Server) activationInTime(w http.ResponseWriter, b *budget, sess *session) bool {
	if b.hasTimeLeft("") {
		return true
	}
	configError(w, http.StatusRequestTimeout, "REQUEST_TIMEOUT", "Timeout exceeded when trying to activate '"+sess.appID()+"'")
	return false
}

// appID is the session's ApplicationId as its toString writes it.
func (s *session) appID() string { return s.tenant + "." + s.app + "." + s.instance }
