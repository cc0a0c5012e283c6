package cloud

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"

	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/internal/ctlplane"
)

// DeployOptions are the optional parameters of [Client.Deploy]; the zero
// value deploys on the latest Vespa version.
type DeployOptions struct {
	// VespaVersion pins the Vespa version, such as "8.400.12"; "" means the
	// latest. The package is sent as multipart form data, as Vespa's CLI and
	// Java client send it: part applicationZip, and with a version part
	// deployOptions ({"vespaVersion": ...}).
	VespaVersion string
	// SkipCertificateCheck deploys a package without security/clients.pem.
	// Vespa's CLI refuses such packages, since their mTLS endpoints accept no
	// client unless services.xml names certificates of its own.
	SkipCertificateCheck bool
}

// Run identifies a deployment run: a job (the zone) and a run number.
type Run struct {
	// ID is the run number within the zone's job.
	ID int64
	// Zone is the zone deployed to.
	Zone Zone
	// Message is the controller's message, such as "Deployment started in run
	// 1 of dev-aws-us-east-1c for t.a.i. This may take about 15 minutes the
	// first time.".
	Message string
}

// Deploy starts a deployment of pkg to a dev or perf zone with POST
// .../instance/I/deploy/<job> and returns the run; follow it with
// [Client.FollowRun]. The package must hold security/clients.pem unless
// opts.SkipCertificateCheck is set, and must hold no symbolic link that
// resolves outside it (deploy.ErrUnsafeLink): both are checked before
// anything is sent.
//
// The upload is sent once, never retried (retries.Upload), as Vespa's CLI
// and Java client send it: a second attempt after a lost reply would start a
// second run. When the request went out but no reply came, the error matches
// [ErrOutcomeUnknown] and says to list the zone's runs (the job's run list,
// or `vespa status deployment -t cloud`) before deploying again.
func (c *Client) Deploy(ctx context.Context, zone Zone, pkg *deploy.Package, opts DeployOptions) (*Run, error) {
	if err := checkManualZone("deploy", zone); err != nil {
		return nil, err
	}
	if pkg == nil {
		return nil, errors.New("cloud: deploy: nil package")
	}
	if _, err := pkg.Files(); err != nil { // unsafe links, unreadable files: before anything is sent
		return nil, err
	}
	if !opts.SkipCertificateCheck && !pkg.HasClientCertificate() {
		return nil, fmt.Errorf("cloud: deploy: the application package has no %s: add one with Package.WithClientCertificate (see GenerateKeyPair)", deploy.ClientCertificatePath)
	}
	cl := ctlplane.Call{Op: "deploy", Method: "POST", URL: c.instanceURL("deploy", zone.Job()),
		Check: fmt.Sprintf("list the runs of %s (GET %s, or `vespa status deployment -t cloud`) before deploying again", zone.Job(), c.instanceURL("job", zone.Job()).Path)}
	// As Vespa's CLI and Java client send it: multipart form data, the zip
	// in applicationZip, and deployOptions when a version is pinned.
	form, err := newForm()
	if err != nil {
		return nil, fmt.Errorf("cloud: deploy: %w", err)
	}
	form.file("applicationZip", "application.zip", pkg)
	if opts.VespaVersion != "" {
		deployOptions, err := json.Marshal(map[string]string{"vespaVersion": opts.VespaVersion})
		if err != nil {
			return nil, fmt.Errorf("cloud: deploy: %w", err)
		}
		form.field("deployOptions", deployOptions)
	}
	cl.ContentType, cl.Write = form.contentType(), form.write
	reply, err := ctlplane.UploadJSON[struct {
		Message string `json:"message"`
		Run     int64  `json:"run"`
	}](ctx, c.t, cl)
	if err != nil {
		return nil, err
	}
	if reply.Run <= 0 {
		return nil, fmt.Errorf("cloud: deploy: reply has no run number: %s", reply.Message)
	}
	return &Run{ID: reply.Run, Zone: zone, Message: reply.Message}, nil
}

// form is multipart form data written afresh for every attempt, with a
// boundary chosen once so that every pass gives the same bytes (the signature
// hashes one pass, the wire carries another).
type form struct {
	boundary string
	parts    []formPart
}

type formPart struct {
	name, filename string
	data           []byte          // a field, or
	pkg            *deploy.Package // a zipped package
}

func newForm() (*form, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	return &form{boundary: "govespa" + hex.EncodeToString(b[:])}, nil
}

func (f *form) field(name string, data []byte) {
	f.parts = append(f.parts, formPart{name: name, data: data})
}

func (f *form) file(name, filename string, pkg *deploy.Package) {
	f.parts = append(f.parts, formPart{name: name, filename: filename, pkg: pkg})
}

func (f *form) contentType() string { return "multipart/form-data; boundary=" + f.boundary }

// write writes the whole form to w.
func (f *form) write(w io.Writer) error {
	mw := multipart.NewWriter(w)
	if err := mw.SetBoundary(f.boundary); err != nil {
		return err
	}
	for _, p := range f.parts {
		h := textproto.MIMEHeader{}
		if p.pkg != nil {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.filename))
			h.Set("Content-Type", "application/zip")
		} else {
			// Like Vespa's CLI, fields carry no Content-Type of their own.
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.name))
		}
		pw, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		if p.pkg != nil {
			err = p.pkg.WriteZip(pw)
		} else {
			_, err = pw.Write(p.data)
		}
		if err != nil {
			return err
		}
	}
	return mw.Close()
}
