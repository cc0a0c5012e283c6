package cloud_test

import (
	"testing"
	"time"

	"github.com/govespa/govespa/internal/testutil"
	"github.com/govespa/govespa/vespa/cloud"
	"github.com/govespa/govespa/vespa/cloud/cloudtest"
	"github.com/govespa/govespa/vespa/deploy"
)

// testApp is the application the tests script.
var testApp = cloud.ApplicationID{Tenant: "scoober", Application: "albums", Instance: "default"}

var devZone = cloud.Zone{Environment: "dev", Region: "aws-us-east-1c"}

// newKey returns a fresh API key.
func newKey(t *testing.T) []byte {
	t.Helper()
	key, err := cloud.GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// newCloud starts an emulated control plane that accepts key, and a client
// of it signing with key.
func newCloud(t *testing.T, key []byte, opts ...cloudtest.Option) (*cloudtest.Server, *cloud.Client) {
	t.Helper()
	srv := cloudtest.NewTestServer(t, append([]cloudtest.Option{
		cloudtest.WithAPIKey(key), cloudtest.WithLogInterval(time.Millisecond)}, opts...)...)
	c, err := cloud.NewClient(testApp, cloud.WithEndpoint(srv.URL()), cloud.WithAPIKey(key),
		cloud.WithHTTPClient(srv.Client()), cloud.WithPollInterval(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// certPackage returns an application package with a client certificate.
func certPackage(t *testing.T) *deploy.Package {
	t.Helper()
	p, err := deploy.NewPackageFS(testutil.MapFS("services.xml", "<services version='1.0'/>", "schemas/music.sd", "schema music {}"))
	if err != nil {
		t.Fatal(err)
	}
	kp, err := cloud.GenerateKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	p, err = p.WithClientCertificate(kp.CertificatePEM)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
