package cloud

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// RunStatus is the status of a deployment run, as the controller names it.
type RunStatus string

// The run statuses Vespa's clients know. A run whose "active" is false has
// ended; only [RunStatusSuccess] and [RunStatusNoTests] count as success.
const (
	RunStatusRunning                    RunStatus = "running"
	RunStatusSuccess                    RunStatus = "success"
	RunStatusNoTests                    RunStatus = "noTests"
	RunStatusAborted                    RunStatus = "aborted"
	RunStatusCancelled                  RunStatus = "cancelled"
	RunStatusError                      RunStatus = "error"
	RunStatusTestFailure                RunStatus = "testFailure"
	RunStatusNodeAllocationFailure      RunStatus = "nodeAllocationFailure"
	RunStatusOutOfCapacity              RunStatus = "outOfCapacity"
	RunStatusInstallationFailed         RunStatus = "installationFailed"
	RunStatusDeploymentFailed           RunStatus = "deploymentFailed"
	RunStatusEndpointCertificateTimeout RunStatus = "endpointCertificateTimeout"
	RunStatusInvalidApplication         RunStatus = "invalidApplication"
	RunStatusReset                      RunStatus = "reset"
)

// Succeeded reports whether the status is a successful end: success, or
// noTests (a test job with no tests to run).
func (s RunStatus) Succeeded() bool { return s == RunStatusSuccess || s == RunStatusNoTests }

// LogEntry is one entry of a run's log.
type LogEntry struct {
	// Step is the step that logged it, such as "deployReal" or "installReal".
	Step string
	// At is when it was logged.
	At time.Time
	// Type is "debug", "info", "warning" or "error".
	Type string
	// Message is the text; it may span lines.
	Message string
}

// RunDetails is one poll of a run: GET .../job/<job>/run/<run>?after=<lastId>.
type RunDetails struct {
	// Active reports whether the run is still going.
	Active bool
	// Status is the run's status; final once Active is false.
	Status RunStatus
	// LastID is the id of the last log entry; pass it as after to the next poll.
	LastID int64
	// Log holds the entries after the given id, ordered by time (stable, so
	// entries of one step keep their order).
	Log []LogEntry
	// Steps maps each step to its status, such as "succeeded", "failed" or
	// "unfinished".
	Steps map[string]string
}

// RunDetails polls a run once, returning its log entries after the entry with
// id after (-1 for all).
func (c *Client) RunDetails(ctx context.Context, zone Zone, run, after int64) (*RunDetails, error) {
	if err := zone.validate(); err != nil {
		return nil, fmt.Errorf("cloud: run status: %w", err)
	}
	u := c.instanceURL("job", zone.Job(), "run", strconv.FormatInt(run, 10))
	u.RawQuery = "after=" + strconv.FormatInt(after, 10)
	r, err := c.t.Do(ctx, ctlplane.Call{Op: "run status", Method: "GET", URL: u})
	if err != nil {
		return nil, err
	}
	return decodeRunDetails(r.Body)
}

// decodeRunDetails decodes a run reply, keeping the order of the log's steps.
func decodeRunDetails(body []byte) (*RunDetails, error) {
	raw, err := ctlplane.DecodeJSON[struct {
		Active bool                       `json:"active"`
		Status RunStatus                  `json:"status"`
		LastID int64                      `json:"lastId"`
		Log    json.RawMessage            `json:"log"`
		Steps  map[string]json.RawMessage `json:"steps"`
	}]("cloud", "run status", body)
	if err != nil {
		return nil, err
	}
	d := &RunDetails{Active: raw.Active, Status: raw.Status, LastID: raw.LastID, Steps: map[string]string{}}
	for name, st := range raw.Steps {
		var s struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(st, &s) == nil {
			d.Steps[name] = s.Status
		}
	}
	log, err := decodeRunLog(raw.Log)
	if err != nil {
		return nil, fmt.Errorf("cloud: run status: decoding log: %w", err)
	}
	d.Log = log
	return d, nil
}

// decodeRunLog decodes {"<step>": [{"at","type","message"}...], ...} in the
// order the steps appear, then orders the entries by time, stably.
func decodeRunLog(raw json.RawMessage) ([]LogEntry, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("log is not an object")
	}
	var out []LogEntry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		step, ok := tok.(string)
		if !ok {
			return nil, errors.New("log key is not a string")
		}
		var entries []struct {
			At      int64  `json:"at"`
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		if err := dec.Decode(&entries); err != nil {
			return nil, err
		}
		for _, e := range entries {
			out = append(out, LogEntry{Step: step, At: time.UnixMilli(e.At), Type: e.Type, Message: e.Message})
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b LogEntry) int { return a.At.Compare(b.At) })
	return out, nil
}

// RunResult is how a run ended successfully.
type RunResult struct {
	// Run is the run.
	Run Run
	// Status is [RunStatusSuccess] or [RunStatusNoTests].
	Status RunStatus
	// Steps maps each step to its final status.
	Steps map[string]string
}

// RunError reports a run that ended with a status other than success. It
// matches [ErrRunFailed].
type RunError struct {
	// Run is the run.
	Run Run
	// Status is its final status, such as [RunStatusDeploymentFailed].
	Status RunStatus
	// Step is the step that failed, if the controller said which.
	Step string
	// Messages are the warning and error entries the failed step logged.
	Messages []string
}

// Error returns "cloud: run <n> of <job> ended with status <s>[ in step
// <step>][: <messages>]".
func (e *RunError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cloud: run %d of %s ended with status %s", e.Run.ID, e.Run.Zone.Job(), e.Status)
	if e.Step != "" {
		b.WriteString(" in step " + e.Step)
	}
	if len(e.Messages) > 0 {
		b.WriteString(": " + strings.Join(e.Messages, "; "))
	}
	return b.String()
}

// Is matches [ErrRunFailed].
func (e *RunError) Is(target error) bool { return target == ErrRunFailed }

// FollowRun polls a run every poll interval, handing each new log entry to fn
// (which may be nil) as it arrives, in order, until the run ends. A run that
// ends in success or noTests returns its result; any other end returns a
// [*RunError] naming the failed step and its warning and error messages. It
// waits as long as ctx allows ([DefaultWaitTimeout] when ctx has no deadline);
// failed polls are retried until then, except final 4xx errors (such as 401,
// 403, 404), which end it at once.
func (c *Client) FollowRun(ctx context.Context, run *Run, fn func(LogEntry)) (*RunResult, error) {
	if run == nil {
		return nil, errors.New("cloud: follow run: nil run")
	}
	var (
		after    = int64(-1)
		problems = map[string][]string{} // warning and error messages by step
		last     *RunDetails
	)
	err := ctlplane.Poll(ctx, "cloud", fmt.Sprintf("run %d of %s", run.ID, run.Zone.Job()), c.poll, DefaultWaitTimeout, func(ctx context.Context) (bool, error) {
		d, err := c.RunDetails(ctx, run.Zone, run.ID, after)
		if err != nil {
			return false, err
		}
		for _, e := range d.Log {
			if e.Type == "warning" || e.Type == "error" {
				problems[e.Step] = append(problems[e.Step], e.Message)
			}
			if fn != nil {
				fn(e)
			}
		}
		if d.LastID > after {
			after = d.LastID
		}
		last = d
		return !d.Active, nil
	})
	if err != nil {
		return nil, err
	}
	if last.Status.Succeeded() {
		return &RunResult{Run: *run, Status: last.Status, Steps: last.Steps}, nil
	}
	re := &RunError{Run: *run, Status: last.Status}
	for _, step := range slices.Sorted(maps.Keys(last.Steps)) {
		if last.Steps[step] == "failed" {
			re.Step = step
			break
		}
	}
	if re.Step != "" {
		re.Messages = problems[re.Step]
	}
	return nil, re
}
