package cloud_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/deploy"
)

// TestClient_LostReplyIsOneUploadAndAClearError drops the reply to each
// upload after the emulated controller acted on it: each is sent once, and
// the error says the outcome is unknown and where to look.
func TestClient_LostReplyIsOneUploadAndAClearError(t *testing.T) {
	for _, c := range []struct {
		name, path, want string
		upload           func(ctx context.Context, c *cloud.Client) error
	}{
		{"deploy", "/deploy/dev-aws-us-east-1c", "list the runs of dev-aws-us-east-1c", func(ctx context.Context, c *cloud.Client) error {
			_, err := c.Deploy(ctx, devZone, certPackage(t), cloud.DeployOptions{})
			return err
		}},
		{"deploy pinned (multipart)", "/deploy/dev-aws-us-east-1c", "list the runs", func(ctx context.Context, c *cloud.Client) error {
			_, err := c.Deploy(ctx, devZone, certPackage(t), cloud.DeployOptions{VespaVersion: "8.400.12"})
			return err
		}},
		{"submit", "/submit", "new build", func(ctx context.Context, c *cloud.Client) error {
			_, err := c.Submit(ctx, certPackage(t), nil, cloud.SubmitOptions{})
			return err
		}},
		{"create token", "/token/ci", "tokens", func(ctx context.Context, c *cloud.Client) error {
			_, err := c.CreateToken(ctx, "ci", 0)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, cl := newCloud(t, newKey(t))
			srv.DropReplies(1)
			err := c.upload(t.Context(), cl)
			var sent int
			for _, r := range srv.Requests() {
				if strings.HasSuffix(r.Path, c.path) {
					sent++
					if !r.Dropped {
						t.Errorf("request %+v answered, want its reply dropped", r)
					}
				}
			}
			if sent != 1 {
				t.Errorf("%d uploads, want exactly 1", sent)
			}
			if !errors.Is(err, cloud.ErrOutcomeUnknown) || !errors.Is(err, deploy.ErrOutcomeUnknown) {
				t.Fatalf("error %v, want ErrOutcomeUnknown", err)
			}
			for _, want := range []string{"no reply", "not sent again", c.want} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

func TestClient_OutsideLinkRefusedBeforeSending(t *testing.T) {
	srv, c := newCloud(t, newKey(t))
	base := t.TempDir()
	dir := filepath.Join(base, "app")
	secret := filepath.Join(base, "secret.pem")
	writeFile(t, filepath.Join(dir, "services.xml"), []byte("<services/>"))
	writeFile(t, secret, []byte("API KEY"))
	pkg, err := deploy.NewPackage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "key.pem")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	_, err = c.Deploy(t.Context(), devZone, pkg, cloud.DeployOptions{SkipCertificateCheck: true})
	if !errors.Is(err, deploy.ErrUnsafeLink) || !strings.Contains(err.Error(), "key.pem") {
		t.Errorf("Deploy: %v, want ErrUnsafeLink naming key.pem", err)
	}
	_, err = c.Submit(t.Context(), pkg, nil, cloud.SubmitOptions{})
	if !errors.Is(err, deploy.ErrUnsafeLink) {
		t.Errorf("Submit: %v, want ErrUnsafeLink", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the controller, want none", n)
	}
}

func TestError_MatchesTheDataPlaneSentinels(t *testing.T) {
	_, c := newCloud(t, newKey(t))
	_, err := c.BuildStatus(t.Context(), 99)
	if !errors.Is(err, cloud.ErrNotFound) || !errors.Is(err, vespa.ErrNotFound) || !errors.Is(err, deploy.ErrNotFound) {
		t.Errorf("a 404 from the controller: %v; want cloud, deploy and vespa ErrNotFound", err)
	}
	var ve *vespa.Error
	if !errors.As(err, &ve) || ve.Status != 404 || ve.Op != "build status" {
		t.Errorf("errors.As(*vespa.Error) of %v: %+v", err, ve)
	}
}
