package cloudapi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// build is a production build: one job per production zone, finishing after
// buildIntervals log intervals.
type build struct {
	id      int64
	start   time.Time
	status  string // how its job ends
	options json.RawMessage
	hasTest bool
	files   []string
}

// buildIntervals is how many log intervals a production build takes.
const buildIntervals = 3

// submit answers POST /application/v4/tenant/T/application/A/submit.
func (s *Server) submit(r *http.Request, body []byte, tenant, app string) (int, any) {
	parts, err := readForm(r, body)
	if err != nil {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", err.Error())
	}
	files, err := packageFiles(parts["applicationZip"])
	if err != nil {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", err.Error())
	}
	opts := parts["submitOptions"]
	if len(opts) > 0 && !json.Valid(opts) {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", "submitOptions is not valid JSON")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := tenant + "/" + app
	if s.builds[key] == nil {
		s.builds[key] = map[int64]*build{}
	}
	id := int64(len(s.builds[key]) + 1)
	_, hasTest := parts["applicationTestZip"]
	s.builds[key][id] = &build{id: id, start: s.now(), status: s.runStatus, options: opts, hasTest: hasTest, files: files}
	return http.StatusOK, map[string]any{
		"message": fmt.Sprintf("application build %d, source revision of repository 'repo', branch 'main'", id),
		"build":   id,
	}
}

// buildStatus answers GET /application/v4/tenant/T/application/A/build-status/<build>.
func (s *Server) buildStatus(tenant, app, idText string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := parseID(idText)
	b := s.builds[tenant+"/"+app][id]
	if !ok || b == nil {
		return http.StatusNotFound, errorBody("NOT_FOUND", "No build "+idText+" of "+tenant+"."+app)
	}
	done := !s.now().Before(b.start.Add(buildIntervals * s.cfg.LogInterval))
	runStatus, status, deployed, failed := "running", "deploying", false, false
	if done {
		runStatus, status = b.status, "done"
		deployed = b.status == "success"
		failed = !deployed
	}
	return http.StatusOK, map[string]any{
		"deployed": deployed, "status": status, "hasFailed": failed,
		"jobs": []any{map[string]any{"jobName": "production-aws-us-east-1c", "runStatus": runStatus, "runId": b.id, "instance": "default"}},
	}
}

// createToken answers POST /application/v4/tenant/T/token/<id>.
func (s *Server) createToken(tenant, id string) (int, any) {
	var secret, fp [16]byte
	_, _ = rand.Read(secret[:])
	_, _ = rand.Read(fp[:])
	s.mu.Lock()
	s.tokens++
	s.mu.Unlock()
	return http.StatusOK, map[string]any{
		"id": id, "token": "vespa_cloud_" + hex.EncodeToString(secret[:]),
		"fingerprint": hex.EncodeToString(fp[:]), "expiration": "none",
	}
}
