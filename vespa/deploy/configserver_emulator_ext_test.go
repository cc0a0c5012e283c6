package deploy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa"
	"github.com/govespa/govespa/vespa/deploy"
	"github.com/govespa/govespa/vespa/vespatest"
)

// TestConfigServer_Emulator deploys to vespatest's config server, waits for
// convergence and for the container it reports to be up.
func TestConfigServer_Emulator(t *testing.T) {
	srv := vespatest.NewTestServer(t)
	cs, err := deploy.NewConfigServer(srv.ConfigServerURL(), deploy.WithPollInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := cs.DeployAndWait(ctx, appPackage(t), deploy.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID <= 0 || !s.Activated || s.Tenant != "default" {
		t.Errorf("session = %+v", s)
	}
	conv, err := cs.Convergence(ctx, "", "")
	if err != nil || !conv.Converged || conv.CurrentGeneration < s.ID {
		t.Errorf("convergence = %+v, %v", conv, err)
	}
	if urls := cs.ContainerURLs(conv); len(urls) != 1 || urls[0] != srv.URL() {
		t.Errorf("container URLs %q, want [%s]", urls, srv.URL())
	}

	// A package without services.xml cannot be made; a broken one is refused
	// with the config server's message.
	bad, err := deploy.NewPackageFS(testutil.MapFS("services.xml", "<services"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Deploy(ctx, bad, deploy.Params{}); err != nil {
		var e *deploy.Error
		if !errors.As(err, &e) || e.Message == "" {
			t.Errorf("Deploy of a broken services.xml: %v", err)
		}
	}
}

// TestConfigServer_ContainerHTTPClient deploys to an emulator whose
// container wants a data-plane token: the health wait fails at once without
// it, and succeeds with WithContainerHTTPClient over a vespa.Client's
// HTTPClient, which sends the token.
func TestConfigServer_ContainerHTTPClient(t *testing.T) {
	const token = "vespa_cloud_containerhealth"
	srv := vespatest.NewTestServer(t, vespatest.WithToken(token))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	params := deploy.Params{ContainerURLs: []string{srv.URL()}}

	plain, err := deploy.NewConfigServer(srv.ConfigServerURL(), deploy.WithPollInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.DeployAndWait(ctx, appPackage(t), params); !errors.Is(err, deploy.ErrUnauthorized) {
		t.Fatalf("DeployAndWait without the token: %v, want ErrUnauthorized from the container", err)
	}

	vc, err := vespa.NewClient(srv.URL(), vespa.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	cs, err := deploy.NewConfigServer(srv.ConfigServerURL(), deploy.WithPollInterval(10*time.Millisecond),
		deploy.WithContainerHTTPClient(vc.HTTPClient()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.DeployAndWait(ctx, appPackage(t), params); err != nil {
		t.Fatalf("DeployAndWait with the token: %v", err)
	}
	if _, err := deploy.NewConfigServer(srv.ConfigServerURL(), deploy.WithContainerHTTPClient(nil)); err == nil {
		t.Error("WithContainerHTTPClient(nil) accepted")
	}
}
