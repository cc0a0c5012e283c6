package cloudapi

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"sort"
	"strconv"
	"time"
)

// run is a deployment run: a scripted log whose entries appear one per log
// interval after start, ending in status.
type run struct {
	id      int64
	job     string
	start   time.Time
	entries []entry
	steps   []step // in order
	status  string // final status
}

type entry struct {
	step, typ, message string
}

type step struct {
	name, final string // final: succeeded, failed or unfinished
}

// visible returns how many entries have appeared at now.
func (r *run) visible(now time.Time, interval time.Duration) int {
	if now.Before(r.start) {
		return 0
	}
	n := int(now.Sub(r.start) / interval)
	return min(n, len(r.entries))
}

// script builds the log of a run that ends in status.
func script(id appID, job, version, endpoint string, runID int64, status string) ([]entry, []step) {
	deploying := entry{"deployReal", "info", fmt.Sprintf("Deploying platform version %s and application dev build %d for %s of %s ...", version, runID, job, id.instance)}
	installing := entry{"installReal", "info", "Checking installation of services on " + job + " ..."}
	switch status {
	case "success", "noTests":
		return []entry{
			deploying,
			{"deployReal", "info", "Deployment successful."},
			installing,
			{"installReal", "info", "Found endpoints:"},
			{"installReal", "info", "- " + job},
			{"installReal", "info", " |-- " + endpoint + " (cluster 'default')"},
			{"installReal", "info", "Installation succeeded!"},
		}, []step{{"deployReal", "succeeded"}, {"installReal", "succeeded"}}
	case "deploymentFailed", "invalidApplication", "outOfCapacity", "nodeAllocationFailure", "endpointCertificateTimeout":
		return []entry{
			deploying,
			{"deployReal", "warning", "Deployment of " + id.String() + " ran into trouble (" + status + ")"},
			{"deployReal", "error", "Deployment failed: " + status},
		}, []step{{"deployReal", "failed"}, {"installReal", "unfinished"}}
	default:
		return []entry{
			deploying,
			{"deployReal", "info", "Deployment successful."},
			installing,
			{"installReal", "error", "Installation failed: " + status},
		}, []step{{"deployReal", "succeeded"}, {"installReal", "failed"}}
	}
}

// deploy answers POST .../instance/I/deploy/<job>: multipart form data with
// applicationZip and an optional deployOptions, as Vespa's CLI
// (client/go/internal/vespa/deploy.go) and Java client (ControllerHttpClient)
// send it. Any other body is refused: neither client sends one.
func (s *Server) deploy(r *http.Request, body []byte, id appID, job string) (int, any) {
	env, region, err := splitJob(job)
	if err != nil {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", err.Error())
	}
	if env != "dev" && env != "perf" {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", "Direct deployments are only allowed to manually deployed environments.")
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", "Expected a multipart/form-data request with part applicationZip")
	}
	parts, err := readForm(r, body)
	if err != nil {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", err.Error())
	}
	zipData, version := parts["applicationZip"], ""
	if opts, ok := parts["deployOptions"]; ok {
		var o struct {
			VespaVersion string `json:"vespaVersion"`
		}
		if err := json.Unmarshal(opts, &o); err != nil {
			return http.StatusBadRequest, errorBody("BAD_REQUEST", "invalid deployOptions: "+err.Error())
		}
		version = o.VespaVersion
	}
	files, err := packageFiles(zipData)
	if err != nil {
		return http.StatusBadRequest, errorBody("BAD_REQUEST", err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := id.key(job)
	runID := int64(len(s.runs[key]) + 1)
	if version == "" {
		version = s.cfg.VespaVersion
	}
	entries, steps := script(id, job, version, s.endpointURL("mtls", id, env, region), runID, s.runStatus)
	s.runs[key] = append(s.runs[key], &run{id: runID, job: job, start: s.now(), entries: entries, steps: steps, status: s.runStatus})
	s.deployments[id.key(env, region)] = &Deployment{Tenant: id.tenant, Application: id.application, Instance: id.instance,
		Environment: env, Region: region, Files: files, VespaVersion: version}
	return http.StatusOK, map[string]any{
		"message": fmt.Sprintf("Deployment started in run %d of %s for %s. This may take about 15 minutes the first time.", runID, job, id),
		"run":     runID,
	}
}

// runDetails answers GET .../job/<job>/run/<run>?after=<lastId>.
func (s *Server) runDetails(id appID, job, runText, afterText string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	runID, ok := parseID(runText)
	runs := s.runs[id.key(job)]
	if !ok || runID > int64(len(runs)) {
		return http.StatusNotFound, errorBody("NOT_FOUND", fmt.Sprintf("No run with id %s of %s for %s", runText, job, id))
	}
	after := int64(-1)
	if afterText != "" {
		n, err := strconv.ParseInt(afterText, 10, 64)
		if err != nil {
			return http.StatusBadRequest, errorBody("BAD_REQUEST", "invalid value of 'after': '"+afterText+"'")
		}
		after = n
	}
	ru := runs[runID-1]
	interval := s.cfg.LogInterval
	n := ru.visible(s.now(), interval)
	active := n < len(ru.entries)
	log := map[string][]map[string]any{}
	var order []string
	for i := range n {
		entryID := int64(i + 1)
		if entryID <= after {
			continue
		}
		e := ru.entries[i]
		if _, ok := log[e.step]; !ok {
			order = append(order, e.step)
		}
		log[e.step] = append(log[e.step], map[string]any{
			"at": ru.start.Add(time.Duration(i+1) * interval).UnixMilli(), "type": e.typ, "message": e.message,
		})
	}
	steps := map[string]any{}
	for _, st := range ru.steps {
		status := st.final
		if active && !stepDone(ru, st.name, n) {
			status = "unfinished"
		}
		steps[st.name] = map[string]any{"status": status, "startMillis": ru.start.UnixMilli()}
	}
	status := "running"
	if !active {
		status = ru.status
	}
	return http.StatusOK, orderedRun{active: active, status: status, order: order, log: log, lastID: int64(n), steps: steps}
}

// stepDone reports whether every entry of a step has appeared.
func stepDone(ru *run, name string, n int) bool {
	for i := n; i < len(ru.entries); i++ {
		if ru.entries[i].step == name {
			return false
		}
	}
	return true
}

// orderedRun renders a run reply with its log's steps in the order they ran.
type orderedRun struct {
	active bool
	status string
	order  []string
	log    map[string][]map[string]any
	lastID int64
	steps  map[string]any
}

func (o orderedRun) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"active":%t,"status":%q,"log":{`, o.active, o.status)
	for i, step := range o.order {
		if i > 0 {
			b.WriteByte(',')
		}
		entries, err := json.Marshal(o.log[step])
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%q:%s", step, entries)
	}
	steps, err := json.Marshal(o.steps)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, `},"lastId":%d,"steps":%s}`, o.lastID, steps)
	return b.Bytes(), nil
}

// listRuns answers GET .../job/<job>: the runs, newest first.
func (s *Server) listRuns(id appID, job string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	runs := s.runs[id.key(job)]
	list := []map[string]any{}
	for i := len(runs) - 1; i >= 0; i-- {
		ru := runs[i]
		status := ru.status
		if ru.visible(s.now(), s.cfg.LogInterval) < len(ru.entries) {
			status = "running"
		}
		list = append(list, map[string]any{"id": ru.id, "status": status, "start": ru.start.UnixMilli()})
	}
	return http.StatusOK, map[string]any{"runs": list}
}

// abort answers DELETE .../job/<job>: the last run ends as aborted now.
func (s *Server) abort(id appID, job string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	runs := s.runs[id.key(job)]
	if len(runs) == 0 {
		return http.StatusNotFound, errorBody("NOT_FOUND", "No runs of "+job+" for "+id.String())
	}
	ru := runs[len(runs)-1]
	n := ru.visible(s.now(), s.cfg.LogInterval)
	if n < len(ru.entries) {
		ru.entries = append(ru.entries[:n:n], entry{"deployReal", "warning", "Run aborted by user"})
		ru.status = "aborted"
		for i := range ru.steps {
			if !stepDone(ru, ru.steps[i].name, n) || ru.steps[i].final == "unfinished" {
				ru.steps[i].final = "unfinished"
			}
		}
	}
	return http.StatusOK, map[string]any{"message": fmt.Sprintf("Aborting run %d of %s for %s", ru.id, job, id)}
}

// endpointURL returns the data-plane URL reported for a deployment.
func (s *Server) endpointURL(auth string, id appID, env, region string) string {
	if auth == "token" && s.cfg.TokenEndpointURL != "" {
		return s.cfg.TokenEndpointURL
	}
	if auth == "mtls" && s.cfg.MTLSEndpointURL != "" {
		return s.cfg.MTLSEndpointURL
	}
	suffix := ""
	if auth == "token" {
		suffix = "-token"
	}
	return fmt.Sprintf("https://%s%s.%s.%s.%s.%s.z.vespa-app.cloud/", id.application, suffix, id.tenant, id.instance, region, env)
}

// deploymentInfo answers GET .../environment/E/region/R.
func (s *Server) deploymentInfo(id appID, env, region string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.deployments[id.key(env, region)]
	if !ok {
		return http.StatusNotFound, errorBody("NOT_FOUND", fmt.Sprintf("No deployment of %s in %s.%s", id, env, region))
	}
	endpoint := func(auth string) map[string]any {
		return map[string]any{"cluster": "default", "tls": true, "url": s.endpointURL(auth, id, env, region),
			"scope": "zone", "routingMethod": "exclusive", "authMethod": auth, "legacy": false}
	}
	return http.StatusOK, map[string]any{
		"tenant": id.tenant, "application": id.application, "instance": id.instance,
		"environment": env, "region": region,
		"endpoints": []any{endpoint("mtls"), endpoint("token")},
		"version":   d.VespaVersion, "status": "complete",
	}
}

// deactivate answers DELETE .../environment/E/region/R.
func (s *Server) deactivate(id appID, env, region string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := id.key(env, region)
	if _, ok := s.deployments[key]; !ok {
		return http.StatusNotFound, errorBody("NOT_FOUND", fmt.Sprintf("No deployment of %s in %s.%s", id, env, region))
	}
	delete(s.deployments, key)
	return http.StatusOK, map[string]any{"message": fmt.Sprintf("Deactivated %s in %s.%s", id, env, region)}
}

// readForm reads the parts of a multipart/form-data body.
func readForm(r *http.Request, body []byte) (map[string][]byte, error) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, fmt.Errorf("invalid multipart Content-Type")
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	parts := map[string][]byte{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return parts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("invalid multipart body: %w", err)
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, fmt.Errorf("invalid multipart body: %w", err)
		}
		parts[p.FormName()] = data
	}
}

// packageFiles lists the files of a zipped application package, which must
// hold services.xml.
func packageFiles(data []byte) ([]string, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("Missing application package")
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("Invalid application package: %w", err)
	}
	var files []string
	for _, f := range zr.File {
		if !f.FileInfo().IsDir() {
			files = append(files, f.Name)
		}
	}
	sort.Strings(files)
	if i := sort.SearchStrings(files, "services.xml"); i == len(files) || files[i] != "services.xml" {
		return nil, fmt.Errorf("Invalid application package: services.xml does not exist in application package")
	}
	return files, nil
}
