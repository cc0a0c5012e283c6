package cloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// SubmitOptions describe a production submission; every field is optional.
type SubmitOptions struct {
	// Risk is the submitter's estimate of the change's risk.
	Risk int `json:"risk,omitempty"`
	// Commit is the source revision, such as a git commit hash.
	Commit string `json:"commit,omitempty"`
	// Description describes the change.
	Description string `json:"description,omitempty"`
	// AuthorEmail is the author's e-mail address.
	AuthorEmail string `json:"authorEmail,omitempty"`
	// SourceURL links to the source revision.
	SourceURL string `json:"sourceUrl,omitempty"`
	// ProjectID is a CI project id.
	ProjectID int64 `json:"projectId,omitempty"`
}

// Submission is the controller's answer to a submission.
type Submission struct {
	// Build is the build number, for [Client.BuildStatus]; 0 when the
	// controller did not say.
	Build int64 `json:"build"`
	// Message is the controller's message.
	Message string `json:"message"`
	// Skipped reports that the controller skipped the build (no changes).
	Skipped bool `json:"skipped"`
}

// Submit submits pkg for production with POST
// /application/v4/tenant/T/application/A/submit, as multipart form data with
// the parts submitOptions (JSON), applicationZip and, when testPkg is not nil,
// applicationTestZip. Give ctx a generous deadline: Vespa's CLI allows 40
// minutes. The submission is sent once, never retried (retries.Upload): a
// lost reply is an error matching [ErrOutcomeUnknown], since a second
// attempt could make a second build.
func (c *Client) Submit(ctx context.Context, pkg, testPkg *deploy.Package, opts SubmitOptions) (*Submission, error) {
	if pkg == nil {
		return nil, errors.New("cloud: submit: nil package")
	}
	for _, p := range []*deploy.Package{pkg, testPkg} {
		if p == nil {
			continue
		}
		if _, err := p.Files(); err != nil { // unsafe links: before anything is sent
			return nil, err
		}
	}
	options, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("cloud: submit: %w", err)
	}
	form, err := newForm()
	if err != nil {
		return nil, fmt.Errorf("cloud: submit: %w", err)
	}
	form.field("submitOptions", options)
	form.file("applicationZip", "application.zip", pkg)
	if testPkg != nil {
		form.file("applicationTestZip", "application-test.zip", testPkg)
	}
	return ctlplane.UploadJSON[Submission](ctx, c.t, ctlplane.Call{Op: "submit", Method: "POST", URL: c.applicationURL("submit"),
		ContentType: form.contentType(), Write: form.write,
		Check: "look for a new build in the application's deployment view in the console before submitting again"})
}

// BuildJob is one job of a production build.
type BuildJob struct {
	// JobName is the deployment job, such as "production-aws-us-east-1c"
	// (see [Zone.Job]), "system-test" or "staging-test".
	JobName string `json:"jobName"`
	// RunStatus is the status of the job's run for this build, one of the
	// [RunStatus] values as text, such as "running", "success" or
	// "deploymentFailed".
	RunStatus string `json:"runStatus"`
	// RunID is the run's number within the job, for [Client.RunDetails].
	RunID int64 `json:"runId"`
	// Instance is the application instance the job deploys, such as
	// "default".
	Instance string `json:"instance"`
}

// BuildStatus is the state of a production build.
type BuildStatus struct {
	// Deployed reports that the build is deployed to every production zone.
	Deployed bool `json:"deployed"`
	// Status is "deploying", "done" or "cancelled".
	Status string `json:"status"`
	// HasFailed reports that a job of the build failed.
	HasFailed bool `json:"hasFailed"`
	// SkipReason is set when the build was skipped: "no-changes" or "cancelled".
	SkipReason string `json:"skipReason,omitempty"`
	// AbsorbedIntoBuild is the later build this one was absorbed into, if any.
	AbsorbedIntoBuild int64 `json:"absorbedIntoBuild,omitempty"`
	// Jobs are the build's jobs.
	Jobs []BuildJob `json:"jobs"`
}

// BuildStatus returns the status of a production build, from GET
// /application/v4/tenant/T/application/A/build-status/<build>.
func (c *Client) BuildStatus(ctx context.Context, build int64) (*BuildStatus, error) {
	return ctlplane.DoJSON[BuildStatus](ctx, c.t, ctlplane.Call{Op: "build status", Method: "GET", URL: c.applicationURL("build-status", strconv.FormatInt(build, 10))})
}

// BuildError reports a production build that failed or was cancelled. It
// matches [ErrBuildFailed].
type BuildError struct {
	// Build is the build number.
	Build int64
	// Status is the build's last status.
	Status *BuildStatus
	// Job is the failed job, when one failed.
	Job *BuildJob
}

// Error describes the failure.
func (e *BuildError) Error() string {
	if e.Job != nil {
		return fmt.Sprintf("cloud: build %d: job %s (run %d) ended with status %s", e.Build, e.Job.JobName, e.Job.RunID, e.Job.RunStatus)
	}
	return fmt.Sprintf("cloud: build %d ended with status %s", e.Build, e.Status.Status)
}

// Is matches [ErrBuildFailed].
func (e *BuildError) Is(target error) bool { return target == ErrBuildFailed }

// failedRunStatus reports whether a job's run status is a failure: "failure",
// "error" or "aborted" (those Vespa's CLI checks), or one of the failed
// [RunStatus] values. Unknown statuses are not failures: the wait goes on.
func failedRunStatus(s string) bool {
	switch RunStatus(s) {
	case "failure", RunStatusError, RunStatusAborted, RunStatusTestFailure, RunStatusDeploymentFailed,
		RunStatusInstallationFailed, RunStatusOutOfCapacity, RunStatusNodeAllocationFailure,
		RunStatusEndpointCertificateTimeout, RunStatusInvalidApplication:
		return true
	}
	return false
}

// WaitForBuild polls a production build every poll interval, handing each
// status to fn (which may be nil), until it is deployed or skipped (returns
// its status) or fails (returns a [*BuildError]). It waits as long as ctx
// allows ([DefaultWaitTimeout] when ctx has no deadline).
func (c *Client) WaitForBuild(ctx context.Context, build int64, fn func(*BuildStatus)) (*BuildStatus, error) {
	var last *BuildStatus
	var failure error
	err := ctlplane.Poll(ctx, "cloud", fmt.Sprintf("build %d", build), c.poll, DefaultWaitTimeout, func(ctx context.Context) (bool, error) {
		s, err := c.BuildStatus(ctx, build)
		if err != nil {
			return false, err
		}
		last = s
		if fn != nil {
			fn(s)
		}
		switch {
		case s.SkipReason != "":
			return true, nil
		case s.Status == "cancelled":
			failure = &BuildError{Build: build, Status: s}
			return true, nil
		}
		for i := range s.Jobs {
			if failedRunStatus(s.Jobs[i].RunStatus) {
				failure = &BuildError{Build: build, Status: s, Job: &s.Jobs[i]}
				return true, nil
			}
		}
		return s.Deployed, nil
	})
	if err != nil {
		return last, err
	}
	return last, failure
}
